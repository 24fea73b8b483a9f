// Package theory computes the quantities of the paper's regret analysis —
// β_t, the information-gain bound, B, C_1, the regret bound, feature maps
// and their covariance's smallest eigenvalue, and the exploration length T'
// of Theorems 2 and 4 (SPEC §7).
package theory
