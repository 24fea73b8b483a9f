package config

import (
	"fmt"
	"regexp"
	"sync"

	"github.com/safegp/safegp/internal/quote"

	"github.com/safegp/safegp/internal/fielderr"
	"github.com/safegp/safegp/kernel"
)

// Context is the `context` block of a study's specification: the names of
// the context variables — measured each round, not chosen, such as a
// temperature or a load — and the context kernel k_c of the product
// kernel k_x·k_c on (x, c) (kernel.Product, kernel.NewContext). One
// context kernel serves f and every g_i.
type Context struct {
	Names  []string    `yaml:"names" json:"names"`
	Kernel kernel.Spec `yaml:"kernel" json:"kernel"`
}

// MaxContextNames bounds the context variables.
const MaxContextNames = 100

// Compiled on first use, not at init: every safegp process (a CLI
// ask or tell, a shard) would pay for it at start-up.
var contextName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,63}$`) })

// reservedName matches the column names of a data file (x1…, f, g1…,
// seed, noise_std), which a context variable's column would be confused
// with in an import or an export.
var reservedName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(x[0-9]+|g[0-9]+|f|seed|noise_std)$`) })

// CheckContextNames checks the names of context variables: at least one,
// at most MaxContextNames, each an identifier (a letter or '_', then
// letters, digits and '_', at most 64) that is not a data file's column
// name, none given twice. Errors name the entry ("[1]").
func CheckContextNames(names []string) error {
	if len(names) == 0 {
		return fielderr.New(ErrInvalid, "", "missing: the name of each context variable, e.g. [temperature, load]")
	}
	if len(names) > MaxContextNames {
		return fielderr.New(ErrInvalid, "", "%d context variables, at most %d", len(names), MaxContextNames)
	}
	seen := map[string]int{}
	for i, n := range names {
		key := fmt.Sprintf("[%d]", i)
		switch {
		case !contextName().MatchString(n):
			return fielderr.New(ErrInvalid, key, "%s is not a name: a letter or '_', then letters, digits and '_' (at most 64)", quote.Short(n))
		case reservedName().MatchString(n):
			return fielderr.New(ErrInvalid, key, "%q is the name of a data column (x1…, f, g1…, seed, noise_std): choose another", n)
		}
		if j, dup := seen[n]; dup {
			return fielderr.New(ErrInvalid, key, "%q is also names[%d]: give each context variable once", n, j)
		}
		seen[n] = i
	}
	return nil
}

// Check checks the block: the names (CheckContextNames) and the context
// kernel for that many context dimensions (kernel.NewContext). Errors name
// the key relative to the block.
func (c *Context) Check() error {
	if err := CheckContextNames(c.Names); err != nil {
		return fielderr.Under("names", err)
	}
	if _, err := kernel.NewContext(c.Kernel, len(c.Names)); err != nil {
		return fielderr.Recast(ErrInvalid, "kernel", err)
	}
	return nil
}

// Products returns the kernels on (x, c) of a contextual model: each of f
// and g made k·kc with kernel.Product, for actions of d coordinates.
func Products(f kernel.Kernel, g []kernel.Kernel, kc kernel.Kernel, d int) (kernel.Kernel, []kernel.Kernel) {
	pg := make([]kernel.Kernel, len(g))
	for i, k := range g {
		pg[i] = kernel.Product{X: k, C: kc, D: d}
	}
	return kernel.Product{X: f, C: kc, D: d}, pg
}
