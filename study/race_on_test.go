//go:build race

package study_test

// raceDetector: the race detector slows the plants' simulations in the
// tuning tests about eightfold (88 s for both), and they run no
// goroutines of their own, so they run without it (.ci/run).
const raceDetector = true
