//go:build !amd64

package gemv

const haveAVX2 = false

func addNegTAVX2(y, v []float64, stride int, l []float64) { panic("gemv: no AVX2 kernel here") }
