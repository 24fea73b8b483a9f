package gp

// Pop exposes pop to the benchmarks.
var Pop = (*Model).pop
