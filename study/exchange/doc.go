// Package exchange reads and writes a study's data in the formats that
// leave it: the CSV of measurements an import takes (ParseImportCSV: the
// problem-file columns, a study stated in parameters' named columns, or a
// study's own export) and a study's record as CSV or JSON (ExportCSV,
// WriteExportCSV, ExportJSON). The study itself knows events and requests;
// the CLI and the HTTP service read and write files through this package.
//
// Layer 8 (docs/layout.md): it may import study and the packages below it.
package exchange
