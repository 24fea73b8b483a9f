package gemv

import "golang.org/x/sys/cpu"

var haveAVX2 = cpu.X86.HasAVX2

// addNegTAVX2 adds Σ_s (−l[s])·V[s, j] to y[j], s in order, V[s, j] =
// v[s·stride + j] (gemv_amd64.s).
//
//go:noescape
func addNegTAVX2(y, v []float64, stride int, l []float64)
