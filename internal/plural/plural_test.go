package plural

import "testing"

func TestCount(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		n    int
		noun string
		want string
	}{
		{0, "constraint", "0 constraints"},
		{1, "constraint", "1 constraint"},
		{2, "constraint", "2 constraints"},
		{1, "entry", "1 entry"},
		{3, "entry", "3 entries"},
		{-1, "step", "-1 step"},
	} {
		if got := Count(c.n, c.noun); got != c.want {
			t.Errorf("Count(%d, %q) = %q, want %q", c.n, c.noun, got, c.want)
		}
	}
}
