package gp

import (
	"runtime"
	"sync"
)

// band is one column band of a product explained splits: the entries
// lo … hi−1 of dst = k(x, D) − Vᵀl. A model keeps its bands, so that
// handing them to the workers allocates nothing per update (the house
// rule for hot loops: a goroutine per band would allocate its closure
// every time).
type band struct {
	m             *Model
	dst, x, kx, l []float64
	lo, hi        int
	fin           *finish // when not nil, the update's pass follows (finishRange)
	wg            *sync.WaitGroup
}

// run computes the band and reports it done.
func (b *band) run() {
	b.m.explainedRange(b.dst, b.x, b.kx, b.l, b.lo, b.hi)
	if b.fin != nil {
		b.m.finishRange(b.fin, b.dst, b.lo, b.hi)
	}
	b.wg.Done()
}

// bandWork carries bands to the workers: one goroutine per core, started
// on first use and living as long as the process, idle on this channel
// when there is no work. One per core, not one fewer: bandit updates f and
// the g_i at once, and each update's bands should find a free worker.
var (
	bandWork  chan *band
	startOnce sync.Once
)

func startWorkers() {
	w := max(runtime.GOMAXPROCS(0), 2)
	bandWork = make(chan *band, 4*w)
	for range w {
		go func() {
			for b := range bandWork {
				b.run()
			}
		}()
	}
}

// explainedBands computes explained's product in w ≥ 2 column bands of
// about equal size: bands 1 … w−1 go to the workers (or run here when
// their queue is full, so a product never blocks on a send), band 0 runs
// here, and the call returns when all are done. A band is reused only
// after that, so a worker never reads one being refilled.
func (m *Model) explainedBands(dst, x, kx, l []float64, w int, f *finish) {
	startOnce.Do(startWorkers)
	n := len(m.x)
	if cap(m.bands) < w {
		m.bands = make([]band, w)
	}
	bs := m.bands[:w]
	for k := range bs {
		lo, hi := k*n/w, (k+1)*n/w
		bs[k] = band{m: m, dst: dst[lo:hi], x: x, kx: kx, l: l, lo: lo, hi: hi, fin: f, wg: &m.bandWG}
	}
	m.bandWG.Add(w)
	for k := 1; k < w; k++ {
		select {
		case bandWork <- &bs[k]:
		default:
			bs[k].run()
		}
	}
	bs[0].run()
	m.bandWG.Wait()
	for k := range bs {
		bs[k].dst, bs[k].x, bs[k].kx, bs[k].l, bs[k].fin = nil, nil, nil, nil, nil // keep no caller's slices
	}
}
