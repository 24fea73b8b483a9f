// Package vec has the few vector operations the kernels, problems and
// policies share, written to not allocate.
package vec
