package gp

// Pop exposes pop to the benchmarks.
var Pop = (*Model).pop

// SetWorkers makes explained split every product into w bands (0: by
// size, on GOMAXPROCS cores) until the returned function restores it.
func SetWorkers(w int) (restore func()) {
	old := testWorkers
	testWorkers = w
	return func() { testWorkers = old }
}

// KeptRows is how many prior rows m keeps (KeepPriorRows).
func KeptRows(m *Model) int {
	if len(m.x) == 0 {
		return 0
	}
	return len(m.krows) / len(m.x)
}
