package experiment_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/safegp/safegp/experiment"
)

// FuzzParse feeds the configuration loader arbitrary documents: it must
// never panic, and a configuration it accepts must pass the checks it
// claims (the decoder's strictness is tested in internal/strictyaml).
func FuzzParse(f *testing.F) {
	paths, _ := filepath.Glob("../examples/*.yaml")
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(regimeConfig))
	f.Add([]byte("horizon: 1.5\n"))
	f.Add([]byte("{\"realizations\": null}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := experiment.Parse(bytes.NewReader(data), ".")
		if err != nil || c.Problem.Generate == nil {
			return
		}
		if c.Realizations < 1 || c.Horizon < 1 || len(c.Algorithms) == 0 {
			t.Fatalf("accepted %+v", c)
		}
	})
}
