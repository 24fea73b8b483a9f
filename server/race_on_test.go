//go:build race

package server_test

// raceDetector: the race detector slows the server's encoding about
// tenfold, so the dashboard's load time is asserted only without it.
const raceDetector = true
