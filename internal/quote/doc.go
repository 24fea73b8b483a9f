// Package quote echoes input values in error messages by a short prefix:
// an error that quoted a whole 16 MB request would be 16 MB (80 MB once
// escaped), so every place that names an offending value goes through
// Short or Bytes.
package quote
