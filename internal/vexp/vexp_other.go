//go:build !amd64

package vexp

const haveVector = false

func expVector(x []float64) int { return 0 }

func seRow2Vector(dst, pts []float64, p *[4]float64) int { return 0 }
