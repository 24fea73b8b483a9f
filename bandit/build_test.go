package bandit_test

import (
	"errors"
	"testing"

	"github.com/safegp/safegp/bandit"
)

// bare is a Policy with nothing beyond the interface: every optional
// ability is refused, or answered as absent, never asserted blind.
type bare struct{}

func (bare) Ask() (bandit.Ask, error)                { return bandit.Ask{}, nil }
func (bare) Tell(int, bandit.Observation) error      { return nil }
func (bare) Inspect(*bandit.Snapshot, bandit.Detail) {}

// TestCapabilitiesChecked: the package functions that reach a policy's
// optional abilities refuse a policy without them with ErrUnsupported
// (Predict, AskNew, SetContext, MarkAsks, Rollback) or answer that it has
// none (Pending, Context, LinePoints, Best), and Release leaves it alone.
func TestCapabilitiesChecked(t *testing.T) {
	t.Parallel()
	var p bandit.Policy = bare{}
	var pr bandit.Prediction
	if err := bandit.Predict(p, &pr, [][]float64{{0}}); !errors.Is(err, bandit.ErrUnsupported) {
		t.Errorf("Predict: %v", err)
	}
	if _, ok, err := bandit.AskNew(p); ok || !errors.Is(err, bandit.ErrUnsupported) {
		t.Errorf("AskNew: ok %v, %v", ok, err)
	}
	if err := bandit.SetContext(p, []float64{1}); !errors.Is(err, bandit.ErrUnsupported) {
		t.Errorf("SetContext: %v", err)
	}
	if _, err := bandit.MarkAsks(p); !errors.Is(err, bandit.ErrUnsupported) {
		t.Errorf("MarkAsks: %v", err)
	}
	if err := bandit.Rollback(p, bandit.Mark{}); !errors.Is(err, bandit.ErrUnsupported) {
		t.Errorf("Rollback: %v", err)
	}
	if bandit.Pending(p) != nil || bandit.Context(p) != nil || bandit.LinePoints(p) != nil {
		t.Error("a bare policy reports pending asks, a context or a line")
	}
	if _, _, ok := bandit.Best(p); ok {
		t.Error("a bare policy reports a best point")
	}
	bandit.Release(p)
}
