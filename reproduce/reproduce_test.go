package reproduce_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/safegp/safegp/reproduce"
)

// TestQuick runs the whole reproduction with a few realizations and checks
// that every experiment wrote its files and the report covers every claim.
func TestQuick(t *testing.T) {
	dir := t.TempDir()
	o, err := reproduce.Run(context.Background(), reproduce.Options{Out: dir, Quick: true, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"REPORT.md", "fig2-regret.png", "fig2-regret.svg",
		"illustration/illustration.png", "illustration/illustration.svg", "illustration/illustration.json",
		"linear/regret.png", "linear/results.json", "phase1/regret.svg", "phase1/summary.csv"}
	for _, r := range reproduce.Regimes {
		for _, f := range []string{"results.json", "summary.csv", "regret.png", "regret.svg"} {
			want = append(want, "regret-"+r+"/"+f)
		}
	}
	for _, f := range want {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: missing or empty", f)
		}
	}
	// Five claims as in the paper, four again under the ablations.
	if len(o.Claims) != 9 {
		t.Errorf("%d claims, want 9", len(o.Claims))
	}
	for _, c := range o.Claims {
		switch c.Verdict {
		case reproduce.Holds, reproduce.DoesNotHold, reproduce.Indistinct:
		default:
			t.Errorf("claim %q: verdict %q", c.Claim, c.Verdict)
		}
	}
	for _, e := range o.Experiments {
		if e.Config.Realizations != reproduce.QuickRealizations {
			t.Errorf("%s: %d realizations in a quick run", e.Name, e.Config.Realizations)
		}
	}
	// Each regime runs the paper's five algorithms and four ablations.
	if got := len(o.Experiments[0].Curves); got != 9 {
		t.Errorf("regime 1-10: %d labels, want 9", got)
	}
	if len(o.Illustration.Snapshots) != 2 {
		t.Errorf("%d illustration snapshots, want 2", len(o.Illustration.Snapshots))
	}
	report, _ := os.ReadFile(filepath.Join(dir, "REPORT.md"))
	for _, s := range []string{"## The paper's claims", "Quick run", "Linear kernels", "Phase-1 rule", "Illustration", "λ_−"} {
		if !strings.Contains(string(report), s) && !(s == "λ_−" && strings.Contains(string(report), "no T'")) {
			t.Errorf("REPORT.md lacks %q", s)
		}
	}
}
