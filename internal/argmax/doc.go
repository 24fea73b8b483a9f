// Package argmax is the one argmax of safegp, with SPEC's tie rule: "every
// argmax breaks ties by the lowest index" (SPEC, notation; users of the
// Python SafeOpt library reported asymmetric results from unstated tie
// rules). The policies, the problem's benchmark x* and a study's best
// action all choose through it, so that the rule is stated once.
package argmax
