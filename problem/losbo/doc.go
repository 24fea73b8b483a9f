// Package losbo holds the LoSBO suite's test functions: the 100 functions
// in the RKHS of the squared-exponential kernel (sums of its orthonormal
// basis functions) and the 100 pre-RKHS functions of the Matérn-3/2 kernel
// (sums of its translates) on [0, 1], each of RKHS norm 10, with the
// safety threshold, Lipschitz constant, optimum and reachable safe set its
// authors computed. They are the synthetic problems of C. Fiedler,
// J. Menn, L. Kreisköther, S. Trimpe, "On Safety in Safe Bayesian
// Optimization", TMLR 2024, as their repository,
// github.com/Data-Science-in-Mechanical-Engineering/LoSBO (commit
// 7cfb0ca, MIT licence: LICENSE here), stores them; convert.py turned its
// YAML and pickle files into functions.json once, and checks the
// evaluation against the authors' formulas (testdata/golden.json).
//
// The functions are data: this package evaluates them and says where
// they came from; the protocol the paper runs on them is safety's.
//
// Layer 1 (docs/layout.md): it imports internal packages only.
package losbo
