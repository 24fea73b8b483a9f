package study

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/safegp/safegp/store"
	"github.com/safegp/safegp/study/api"
)

const lruSpec = `{"decision_set": {"grid": {"bounds": [[0, 4]], "points": [21]}}, "seed_actions": [5, 6],
 "thresholds": [0.0],
 "model": {"objective": {"kernel": "se", "lengthscale": 1}, "constraints": [{"kernel": "se", "lengthscale": 1}], "noise_std": 0.05, "delta": 0.1, "beta": 4},
 "algorithm": {"name": "sgp-ucb", "phase1": "uniform", "exploration": {"fixed": 3}}, "horizon": 100, "seed": %d}`

func lruService(t testing.TB, path string, maxOpen int) *Service {
	t.Helper()
	st, err := store.Open(path, store.OpenOptions{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return NewService(st, ServiceOptions{MaxOpen: maxOpen})
}

// loaded is the number of studies the service holds.
func (v *Service) loaded() int {
	return v.cache.Len()
}

// round asks and tells once, with a smooth system's values.
func round(t testing.TB, v *Service, name string) int {
	t.Helper()
	ctx := context.Background()
	a, err := v.Ask(ctx, name)
	if err != nil {
		t.Error(err)
		return -1
	}
	f, g := -(a.X[0]-3)*(a.X[0]-3), 1-math.Pow(a.X[0]/3.5, 4)
	id := a.Ask
	if _, err := v.Tell(ctx, name, &api.TellRequest{Ask: &id, F: &f, G: []float64{g}}); err != nil {
		t.Error(err)
	}
	return a.Index
}

// TestServiceCacheIsBounded: with MaxOpen = 2, driving six studies in
// turn, and then all at once, never holds more than two in memory, and
// the studies evicted and reloaded play exactly what studies kept in
// memory play.
func TestServiceCacheIsBounded(t *testing.T) {
	ctx := context.Background()
	const studies, rounds, maxOpen = 6, 8, 2
	dir := t.TempDir()
	small := lruService(t, filepath.Join(dir, "small.db"), maxOpen)
	big := lruService(t, filepath.Join(dir, "big.db"), 100)
	r := func(seed int) *Resolved {
		s, err := ParseSpec(fmt.Appendf(nil, lruSpec, seed))
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Resolve("")
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	for k := range studies {
		for _, v := range []*Service{small, big} {
			if err := v.Create(ctx, fmt.Sprint("s", k), r(k)); err != nil {
				t.Fatal(err)
			}
		}
	}
	// In turn: every round of every study evicts another.
	got, want := map[string][]int{}, map[string][]int{}
	for range rounds {
		for k := range studies {
			name := fmt.Sprint("s", k)
			got[name] = append(got[name], round(t, small, name))
			want[name] = append(want[name], round(t, big, name))
			if n := small.loaded(); n > maxOpen {
				t.Fatalf("%d studies in memory, bound %d", n, maxOpen)
			}
		}
	}
	if big.loaded() != studies {
		t.Errorf("the large cache holds %d studies, want %d", big.loaded(), studies)
	}
	for name := range want {
		if !slices.Equal(got[name], want[name]) {
			t.Errorf("%s: evicted and reloaded it played %v, kept in memory %v", name, got[name], want[name])
		}
	}
	// All at once: requests wait for a free place rather than exceed the
	// bound; watch the bound from inside the calls.
	var wg sync.WaitGroup
	var mu sync.Mutex
	most := 0
	for k := range studies {
		for range 3 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				name := fmt.Sprint("s", k)
				err := small.with(ctx, name, func(s *Study) error {
					mu.Lock()
					most = max(most, small.loaded())
					mu.Unlock()
					return nil
				})
				if err != nil {
					t.Error(err)
				}
				if _, err := small.Show(ctx, name); err != nil {
					t.Error(err)
				}
			}()
		}
	}
	wg.Wait()
	if most > maxOpen || small.loaded() > maxOpen {
		t.Errorf("up to %d studies in memory at once (now %d), bound %d", most, small.loaded(), maxOpen)
	}
	// An unknown study takes no place.
	if _, err := small.Show(ctx, "nope"); err == nil {
		t.Error("show of an unknown study")
	}
	if small.loaded() > maxOpen {
		t.Errorf("%d studies in memory after a miss", small.loaded())
	}
}

// TestServiceWaitHonoursContext: a call that waits for a place gives up
// when its context ends.
func TestServiceWaitHonoursContext(t *testing.T) {
	ctx := context.Background()
	v := lruService(t, filepath.Join(t.TempDir(), "w.db"), 1)
	for _, n := range []string{"a", "b"} {
		s, _ := ParseSpec(fmt.Appendf(nil, lruSpec, 1))
		res, err := s.Resolve("")
		if err != nil {
			t.Fatal(err)
		}
		if err := v.Create(ctx, n, res); err != nil {
			t.Fatal(err)
		}
	}
	inA, release := make(chan struct{}), make(chan struct{})
	go v.with(ctx, "a", func(*Study) error { close(inA); <-release; return nil })
	<-inA
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := v.Show(cctx, "b"); err == nil {
		t.Error("a cancelled call waited for a place and got one")
	}
	close(release)
	if _, err := v.Show(ctx, "b"); err != nil {
		t.Errorf("after a was released: %v", err)
	}
}

// TestServiceMemoryBudget: with MaxMemory room for two studies' estimates,
// driving four in turn never holds more than two (least recently used out
// first), and while two are in use a third is refused with ErrOverloaded,
// not loaded beyond the budget.
func TestServiceMemoryBudget(t *testing.T) {
	ctx := context.Background()
	s, err := ParseSpec(fmt.Appendf(nil, lruSpec, 1))
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Resolve("")
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(filepath.Join(t.TempDir(), "b.db"), store.OpenOptions{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	v := NewService(st, ServiceOptions{MaxOpen: 100, MaxMemory: 2*r.Bytes() + r.Bytes()/2})
	for k := range 4 {
		if err := v.Create(ctx, fmt.Sprint("m", k), r); err != nil {
			t.Fatal(err)
		}
	}
	for range 3 {
		for k := range 4 {
			round(t, v, fmt.Sprint("m", k))
			if n := v.loaded(); n > 2 {
				t.Fatalf("%d studies held within a budget of two", n)
			}
		}
	}
	// Hold two studies in use, then ask for a third.
	hold, release := make(chan bool), make(chan bool)
	var wg sync.WaitGroup
	for k := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v.with(ctx, fmt.Sprint("m", k), func(*Study) error { hold <- true; <-release; return nil })
		}()
		<-hold
	}
	_, err = v.Show(ctx, "m3")
	close(release)
	wg.Wait()
	if !errors.Is(err, api.ErrOverloaded) {
		t.Errorf("third study while two are in use: %v, want api.ErrOverloaded", err)
	}
	if _, err := v.Show(ctx, "m3"); err != nil {
		t.Errorf("after the others are done: %v", err)
	}
}
