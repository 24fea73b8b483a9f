// Package number is safegp's one parser of numbers written as text: in
// command-line flags, CSV cells, context values and tells. It takes the
// decimal notation JSON and CSV users mean — an optional sign, digits with
// an optional decimal point, an optional exponent (-1.5, .5, 2., 1e-3,
// 1.5E+03) — and refuses everything else Go's strconv would also take:
// digit separators (1_0), hexadecimal (0x1p-3, 0x10), octal and binary
// prefixes, Inf and NaN. A value that means something else to every other
// tool must not become a number here.
package number
