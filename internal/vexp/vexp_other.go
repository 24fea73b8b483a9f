//go:build !amd64

package vexp

const haveVector = false

func expVector(x []float64) int { return 0 }
