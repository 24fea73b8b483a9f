package safegp

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// layers is the module's layering (docs/layout.md): a package imports
// only packages of lower layers. A package missing here fails the test,
// so that a new package takes its place on purpose.
var layers = map[string]int{
	".": 0, "internal/argmax": 0, "internal/chol": 0, "internal/csvcell": 0, "internal/errclass": 0, "internal/fielderr": 0, "internal/gemv": 0, "internal/memlimit": 0, "internal/moments": 0,
	"internal/number": 0, "internal/opencache": 0, "internal/outdir": 0, "internal/plural": 0, "internal/quote": 0,
	"internal/readlimit": 0, "internal/spatial": 0, "internal/strictjson": 0, "internal/strictyaml": 0,
	"internal/racetest": 0, "internal/testbin": 0, "internal/testjson": 0, "internal/vec": 0, "internal/vexp": 0,
	"kernel": 1, "problem/bench": 1, "problem/losbo": 1, "shard": 1, "space": 1,
	"gp": 2, "theory": 2, "problem": 2,
	"fit": 3, "bandit": 3,
	"config": 4, "plot": 4,
	"store": 5, "internal/refit": 5, "study/calib": 5, "study/defaults": 5,
	"experiment": 6, "study/api": 6,
	"study":          7,
	"study/exchange": 8, "study/view": 8,
	"reproduce": 9, "safety": 9, "sweep": 9, "server": 9,
	"cmd/safegp": 10, "deploy": 10,
}

// TestLayers: no package imports one of its own layer or above (its
// non-test files; the internal packages of layer 0 may use each other,
// being leaves in all but name).
func TestLayers(t *testing.T) {
	const module = "github.com/safegp/safegp"
	imports := map[string]map[string]bool{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".") && path != ".") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(filepath.Dir(path))
		if imports[pkg] == nil {
			imports[pkg] = map[string]bool{}
		}
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if rest, ok := strings.CutPrefix(p, module+"/"); ok {
				imports[pkg][rest] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(imports) < 20 {
		t.Fatalf("found %d packages: run from the module root", len(imports))
	}
	for pkg, ims := range imports {
		l, ok := layers[pkg]
		if !ok {
			t.Errorf("package %s has no layer: add it to layers and docs/layout.md", pkg)
			continue
		}
		for im := range ims {
			li, ok := layers[im]
			switch {
			case !ok:
				t.Errorf("%s imports %s, which has no layer", pkg, im)
			case l == 0 && li == 0:
			case li >= l:
				t.Errorf("%s (layer %d) imports %s (layer %d): an arrow up or across", pkg, l, im, li)
			}
		}
	}
	if _, err := os.Stat("go.mod"); err != nil {
		t.Fatal("not at the module root")
	}
}
