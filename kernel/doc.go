// Package kernel provides the covariance functions used to model the
// objective and the constraints as Gaussian processes (SPEC §2).
package kernel
