// Package space states a study in the user's terms and maps it to the
// policies': named parameters (floats and ints on a linear or a log
// scale, choices) onto the unit cube, with the finite candidate set a
// policy searches when there are few numeric parameters; and named
// outcomes — an objective to minimize or maximize, constraints with upper
// and lower limits — onto the f and g_i ≥ 0 the policies take, through an
// affine transform (standardization) each limit goes through with its
// outcome. It produces candidates for the existing policies rather than
// new ones.
//
// Layer 1 (docs/layout.md): it imports internal packages only.
package space
