package sweep

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/safegp/safegp/experiment"
)

// TestShardsPlayRunsOnce: in a sweep whose cells share runs (the second
// algorithm's runs do not depend on the first's plateau window), the n
// shards together play exactly the runs the whole sweep plays, each once
// (a shard holds every reuse of a run it plays: dealing), and every cell's
// runs are the whole sweep's, bit for bit. Without the dealing by the
// run's first cell, a shard would play the reused runs again: the sums
// would exceed the whole's count. A sweep that shares nothing is dealt as
// experiment.Shard.Select deals.
func TestShardsPlayRunsOnce(t *testing.T) {
	s, err := Parse(withAxes(t, "axes:\n  algorithms[0].exploration.plateau.window: [3, 4, 6]\n  seed: [7, 8]\nfigure: {x: seed}\n"), "testdata")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// play runs every cell as Run and RunShard do (reuse.options), with
	// units selected, counting the runs played and keeping every cell's
	// runs.
	play := func(units func(i int) func(a, r int) bool) (int, [][]experiment.Run) {
		u := s.newReuse()
		played := 0
		cells := make([][]experiment.Run, len(s.Cells))
		for i := range s.Cells {
			o := u.options(i, experiment.Options{Workers: 2})
			kept := o.Played
			o.Played = func(a int, run *experiment.Run) { played++; kept(a, run) }
			o.Units = units(i)
			res, err := experiment.Execute(ctx, s.Cells[i].Config, o)
			if err != nil {
				t.Fatal(err)
			}
			u.done(i)
			cells[i] = res.Runs
		}
		return played, cells
	}
	whole, wholeRuns := play(func(int) func(a, r int) bool { return nil })
	// 6 cells × 2 realizations of sgp-ucb, and gp-ucb-oracle's once per seed.
	if want := 6*2 + 2*2; whole != want {
		t.Errorf("the whole sweep played %d runs, want %d", whole, want)
	}
	d := s.deal()
	for _, n := range []int{1, 2, 3, 7} {
		sum := 0
		for i := 1; i <= n; i++ {
			sh := experiment.Shard{I: i, N: n}
			played, runs := play(func(c int) func(a, r int) bool { return d.selects(c, sh) })
			sum += played
			for c := range s.Cells {
				held := d.held(c, sh)
				if len(runs[c]) != len(held) {
					t.Fatalf("n = %d, shard %d, cell %d: %d runs for %d held units", n, i, c, len(runs[c]), len(held))
				}
				R := s.Cells[c].Config.Realizations
				for k, u := range held {
					u -= d.base[c]
					if want := wholeRuns[c][u]; !reflect.DeepEqual(runs[c][k], want) {
						t.Errorf("n = %d, shard %d, cell %d: the run of unit (%d, %d) differs from the whole sweep's", n, i, c, u/R, u%R)
					}
				}
			}
		}
		if sum != whole {
			t.Errorf("n = %d: the shards played %d runs, the whole sweep %d", n, sum, whole)
		}
	}

	// No run shared: the deal of cell i is Shard.Select's from UnitBase(i).
	s2, err := Parse(small(t), "testdata")
	if err != nil {
		t.Fatal(err)
	}
	d2 := s2.deal()
	for i := range s2.Cells {
		sh := experiment.Shard{I: 2, N: 3}
		if got, want := d2.held(i, sh), sh.Held(s2.UnitBase(i), s2.Cells[i].Config); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("cell %d: held %v, want Shard.Held's %v", i, got, want)
		}
	}
}
