// Package csvcell keeps the text cells of the CSV files safegp writes
// from being taken for formulas by a spreadsheet (CSV injection, OWASP):
// a cell that begins with =, +, -, @, a tab or a carriage return and is
// not a number is written behind an apostrophe, which spreadsheets show
// as text, and read back without it, so that an export imports as it was.
package csvcell
