package sweep

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/safegp/safegp/experiment"
	"github.com/safegp/safegp/internal/readlimit"
	"github.com/safegp/safegp/internal/strictyaml"
)

// ErrSweep marks a sweep file that cannot be run: a bad key, an axis
// whose key path does not fit the base, or a cell that is not a valid
// configuration.
var ErrSweep = errors.New("invalid sweep")

// MaxCells bounds the Cartesian product, checked before any cell is
// built: each cell holds a configuration and, when it runs, an output
// folder.
const MaxCells = 100_000

// maxNodes bounds the nodes of one cell's tree (strictyaml's bound), so
// that copying a base full of aliases cannot exhaust memory.
const maxNodes = 1_000_000

// Metrics a figure may plot: the final average regret R_T/T, the
// violations over the T rounds, and the exploration phase's length.
const (
	MetricRegret      = "regret"
	MetricViolations  = "violations"
	MetricExploration = "exploration"
)

// Sweep is a checked sweep file: its axes and every cell of their
// Cartesian product, each an ordinary, valid configuration.
type Sweep struct {
	Axes   []Axis
	Figure Figure
	// Cells are in the product's order, the last axis fastest.
	Cells []Cell

	// src and dir are the sweep file's text and folder, as Parse got
	// them: a shard records them so that merge rebuilds the sweep.
	src []byte
	dir string
}

// Axis is one key path into the base configuration and the values it
// takes, as written (Values[k] is the k-th value's text: a scalar as
// given, a list or mapping in YAML's flow style).
type Axis struct {
	Key    string
	Short  string // the name used in folder names: the last key, or Key when two axes share it
	Values []string
	// Numbers[k] is Values[k] as a number, NaN when it is not one.
	Numbers []float64
	line    int
	nodes   []*yaml.Node
}

// Figure is the figure section: the metric plotted against the axis X.
type Figure struct {
	Metric string `yaml:"metric" json:"metric"`
	X      string `yaml:"x" json:"x"`
}

// Cell is one point of the product: Index in the product's order, Pick[i]
// the index of its value on axis i.
type Cell struct {
	Index  int
	Pick   []int
	Name   string // its folder under cells/: "03-lengthscale=0.1,delta=0.01"
	Config *experiment.Config
	// YAML is the cell's configuration as a file: `safegp run` of it
	// (saved as Name + ".yaml" beside the base, whose folder relative
	// paths start from) writes the cell's folder byte for byte.
	YAML []byte
	// runKeys[a] identifies what algorithm a's runs depend on: the cell's
	// tree with the algorithms list reduced to algorithm a (Run reuses
	// runs across cells whose keys are equal).
	runKeys []string
}

// Label is the cell's axis values, "lengthscale=0.1, delta=0.01", for
// messages.
func (s *Sweep) Label(c *Cell) string {
	parts := make([]string, len(s.Axes))
	for i, a := range s.Axes {
		parts[i] = a.Key + "=" + a.Values[c.Pick[i]]
	}
	return strings.Join(parts, ", ")
}

// file is a sweep file as decoded, strictly.
type file struct {
	Base     tree     `yaml:"base"`
	BaseFile string   `yaml:"base_file"`
	Axes     axesNode `yaml:"axes"`
	Figure   *Figure  `yaml:"figure"`
}

// tree keeps a YAML subtree as written.
type tree struct{ n *yaml.Node }

func (t *tree) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return strictyaml.Errorf(n, "", "want a configuration (a mapping), got %s", strictyaml.Describe(n))
	}
	t.n = n
	return nil
}

// axesNode keeps the axes in the order written: the product's order.
type axesNode struct{ keys, lists []*yaml.Node }

func (a *axesNode) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return strictyaml.Errorf(n, "", "want a mapping of key paths to lists of values, got %s", strictyaml.Describe(n))
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if line, dup := seen[k.Value]; dup {
			return strictyaml.Errorf(n, k.Value, "axis given twice (already on line %d)", line)
		}
		seen[k.Value] = k.Line
		for v.Kind == yaml.AliasNode {
			v = v.Alias
		}
		if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
			return strictyaml.Errorf(n, k.Value, "want a non-empty list of values, got %s", strictyaml.Describe(v))
		}
		a.keys, a.lists = append(a.keys, k), append(a.lists, v)
	}
	if len(a.keys) == 0 {
		return strictyaml.Errorf(n, "", "give at least one axis")
	}
	return nil
}

// Load reads a sweep file and builds and checks every cell (Parse).
func Load(path string) (*Sweep, error) {
	data, err := readlimit.ReadDocument(path)
	if err != nil {
		return nil, fmt.Errorf("read sweep: %w", err)
	}
	s, err := Parse(data, filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// Parse decodes a sweep file strictly (unknown keys are errors, with their
// line), builds every cell of the axes' Cartesian product by setting each
// axis's key path in a copy of the base's YAML tree and decoding that as
// an ordinary configuration, and checks every cell; an error names the
// cell and its axis values. dir is the sweep file's folder: base_file is
// relative to it, and a base's relative paths to the base's folder.
func Parse(data []byte, dir string) (*Sweep, error) {
	f, err := decodeFile(data)
	if err != nil {
		return nil, err
	}
	base, baseDir, baseName, err := f.base(dir)
	if err != nil {
		return nil, err
	}
	s := &Sweep{src: data, dir: dir}
	count, err := s.addAxes(f.Axes)
	if err != nil {
		return nil, err
	}
	shortNames(s.Axes)
	if err := s.buildCells(count, base, baseDir, baseName); err != nil {
		return nil, err
	}
	if err := s.checkProblems(); err != nil {
		return nil, err
	}
	if err := s.figure(f.Figure); err != nil {
		return nil, err
	}
	return s, nil
}

// decodeFile decodes a sweep file strictly, with a hint for the usual
// cause of a flow mapping's syntax error.
func decodeFile(data []byte) (*file, error) {
	var f file
	if err := strictyaml.Decode(data, &f); err != nil {
		if errors.Is(err, strictyaml.ErrEmpty) {
			return nil, fmt.Errorf("%w: empty sweep file", ErrSweep)
		}
		if strings.Contains(err.Error(), "did not find expected ',' or '}'") && bytes.Contains(data, []byte("[")) {
			// The usual cause: a key path with an index in a flow
			// mapping, where YAML reads the bracket as a sequence.
			return nil, fmt.Errorf("%w: %w (in YAML's flow style, {x: a[0].b}, a key path with brackets needs quotes: {x: \"a[0].b\"})", ErrSweep, err)
		}
		return nil, fmt.Errorf("%w: %w", ErrSweep, err)
	}
	return &f, nil
}

// base returns the base configuration's tree, given inline or read from
// base_file, the folder its relative paths are relative to, and the
// prefix naming base_file in a cell's errors ("" inline).
func (f *file) base(dir string) (*yaml.Node, string, string, error) {
	switch {
	case f.Base.n != nil && f.BaseFile != "":
		return nil, "", "", fmt.Errorf("%w: give base or base_file, not both", ErrSweep)
	case f.Base.n == nil && f.BaseFile == "":
		return nil, "", "", fmt.Errorf("%w: give base (a configuration) or base_file (its path, relative to the sweep file)", ErrSweep)
	case f.BaseFile == "":
		return f.Base.n, dir, "", nil
	}
	path := f.BaseFile
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	text, err := readlimit.ReadDocument(path)
	if err != nil {
		return nil, "", "", fmt.Errorf("%w: base_file: %w", ErrSweep, err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(text, &doc); err != nil {
		return nil, "", "", fmt.Errorf("%w: base_file %s: %w", ErrSweep, f.BaseFile, err)
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, "", "", fmt.Errorf("%w: base_file %s: want a configuration (a mapping)", ErrSweep, f.BaseFile)
	}
	return doc.Content[0], filepath.Dir(path), f.BaseFile + ": ", nil
}

// addAxes checks and adds the axes, in the file's order, and returns the
// number of cells in their product (at most MaxCells).
func (s *Sweep) addAxes(axes axesNode) (int, error) {
	count := 1
	for i, k := range axes.keys {
		if _, err := parsePath(k.Value); err != nil {
			return 0, fmt.Errorf("%w: line %d: axes: %q: %w", ErrSweep, k.Line, k.Value, err)
		}
		ax := Axis{Key: k.Value, line: k.Line, nodes: axes.lists[i].Content}
		for _, v := range ax.nodes {
			ax.Values = append(ax.Values, text(v))
			x, err := strconv.ParseFloat(v.Value, 64)
			if v.Kind != yaml.ScalarNode || err != nil {
				x = nan
			}
			ax.Numbers = append(ax.Numbers, x)
		}
		if count > MaxCells/len(ax.Values) {
			return 0, fmt.Errorf("%w: axes: more than %d cells in the product; split the sweep", ErrSweep, MaxCells)
		}
		count *= len(ax.Values)
		s.Axes = append(s.Axes, ax)
	}
	return count, nil
}

// buildCells builds the count cells of the axes' product, the last axis
// fastest, each named by its index and axis values.
func (s *Sweep) buildCells(count int, base *yaml.Node, baseDir, baseName string) error {
	width := len(strconv.Itoa(count - 1))
	pick := make([]int, len(s.Axes))
	for c := 0; c < count; c++ {
		cell := Cell{Index: c, Pick: append([]int(nil), pick...)}
		var parts []string
		for i, a := range s.Axes {
			parts = append(parts, a.Short+"="+a.Values[pick[i]])
		}
		cell.Name = fmt.Sprintf("%0*d-%s", width, c, folderName(strings.Join(parts, ",")))
		if err := s.build(&cell, base, baseDir, baseName); err != nil {
			return err
		}
		s.Cells = append(s.Cells, cell)
		// The next pick: the last axis fastest.
		for i := len(pick) - 1; i >= 0; i-- {
			if pick[i]++; pick[i] < len(s.Axes[i].Values) {
				break
			}
			pick[i] = 0
		}
	}
	return nil
}

// build makes cell's configuration: the base's tree with each axis's value
// set at its key path, decoded as an ordinary configuration.
func (s *Sweep) build(cell *Cell, base *yaml.Node, dir, baseName string) error {
	budget := maxNodes
	root, err := clone(base, &budget)
	if err != nil {
		return fmt.Errorf("%w: base: %w", ErrSweep, err)
	}
	for i, a := range s.Axes {
		v, err := clone(a.nodes[cell.Pick[i]], &budget)
		if err != nil {
			return fmt.Errorf("%w: line %d: axes: %s: %w", ErrSweep, a.line, a.Key, err)
		}
		if err := set(root, a.Key, v); err != nil {
			return fmt.Errorf("%w: line %d: axes: %s: %w", ErrSweep, a.line, a.Key, err)
		}
	}
	cfg, err := experiment.ParseNode(root, dir)
	if err != nil {
		return fmt.Errorf("%w: cell %d (%s): %s%w", ErrSweep, cell.Index, s.Label(cell), baseName, err)
	}
	if cfg.Problem.Function != nil {
		// A benchmark function's runs have no regret R_T/T to tabulate.
		return fmt.Errorf("%w: cell %d (%s): problem.function is not offered in a sweep: the table is of R_T/T on a finite decision set", ErrSweep, cell.Index, s.Label(cell))
	}
	out, err := yaml.Marshal(root)
	if err != nil {
		return fmt.Errorf("%w: cell %d (%s): %w", ErrSweep, cell.Index, s.Label(cell), err)
	}
	cell.Config, cell.YAML = cfg, out
	if cell.runKeys, err = runKeys(root); err != nil {
		return fmt.Errorf("%w: cell %d (%s): %w", ErrSweep, cell.Index, s.Label(cell), err)
	}
	return nil
}

// runKeys returns, for each algorithm of the configuration tree root, the
// text of everything algorithm a's runs can depend on: the tree without
// the algorithms list, then algorithm a's entry. A run of an algorithm on
// realization r is a function of these alone — every stream is drawn from
// (seed, r, purpose), the same for every algorithm of a realization
// (experiment's stream) — so two cells with equal keys have equal runs.
// Equal text is a sufficient test, not a necessary one: entries written
// differently but meaning the same are simply run again.
func runKeys(root *yaml.Node) ([]string, error) {
	rest := *root
	rest.Content = nil
	var algs *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "algorithms" {
			algs = root.Content[i+1]
			continue
		}
		rest.Content = append(rest.Content, root.Content[i], root.Content[i+1])
	}
	head, err := yaml.Marshal(&rest)
	if err != nil {
		return nil, err
	}
	if algs == nil {
		return nil, nil
	}
	keys := make([]string, len(algs.Content))
	for a, n := range algs.Content {
		b, err := yaml.Marshal(n)
		if err != nil {
			return nil, err
		}
		keys[a] = string(head) + "\x00" + string(b)
	}
	return keys, nil
}

// checkProblems reads each cell's problem and warm-start files once, so
// that a missing or bad file stops the sweep before anything runs, as it
// stops `safegp run` before its first run.
func (s *Sweep) checkProblems() error {
	for i := range s.Cells {
		c := &s.Cells[i]
		if c.Config.Problem.File == "" {
			continue
		}
		if _, err := c.Config.ReadProblem(); err != nil {
			return fmt.Errorf("%w: cell %d (%s): %w", ErrSweep, c.Index, s.Label(c), err)
		}
	}
	return nil
}

// figure checks and completes the figure section: the metric defaults to
// the regret, x to the only axis.
func (s *Sweep) figure(f *Figure) error {
	if f != nil {
		s.Figure = *f
	}
	switch s.Figure.Metric {
	case "":
		s.Figure.Metric = MetricRegret
	case MetricRegret, MetricViolations, MetricExploration:
	default:
		return fmt.Errorf("%w: figure.metric: %q is not one of %s, %s, %s", ErrSweep, s.Figure.Metric, MetricRegret, MetricViolations, MetricExploration)
	}
	if s.Figure.X == "" {
		if len(s.Axes) > 1 {
			return fmt.Errorf("%w: figure.x: give the axis to plot against (one of the keys under axes)", ErrSweep)
		}
		s.Figure.X = s.Axes[0].Key
	}
	for _, a := range s.Axes {
		if a.Key != s.Figure.X {
			continue
		}
		for k, x := range a.Numbers {
			if x != x {
				return fmt.Errorf("%w: figure.x: axis %s: value %s is not a number, so it cannot be plotted against", ErrSweep, a.Key, a.Values[k])
			}
		}
		return nil
	}
	keys := make([]string, len(s.Axes))
	for i, a := range s.Axes {
		keys[i] = a.Key
	}
	return fmt.Errorf("%w: figure.x: %q is not an axis (axes: %s)", ErrSweep, s.Figure.X, strings.Join(keys, ", "))
}

var nan = func() float64 { z := 0.0; return z / z }()

// step is one segment of a key path: a mapping key, or an index into a
// list (Index ≥ 0).
type step struct {
	Key   string
	Index int
}

// Compiled on first use, not at init: every safegp process (a CLI
// ask or tell, a shard) would pay for it at start-up.
var keyRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*`) })

// parsePath splits "problem.generate.constraints[0].lengthscale" into its
// steps.
func parsePath(p string) ([]step, error) {
	var out []step
	rest := p
	for {
		k := keyRE().FindString(rest)
		if k == "" {
			return nil, fmt.Errorf("want a key at %q", rest)
		}
		out = append(out, step{Key: k, Index: -1})
		rest = rest[len(k):]
		for strings.HasPrefix(rest, "[") {
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				return nil, fmt.Errorf("unclosed '[' in %q", p)
			}
			i, err := strconv.Atoi(rest[1:end])
			if err != nil || i < 0 {
				return nil, fmt.Errorf("want an index ≥ 0 between [ and ], got %q", rest[1:end])
			}
			out = append(out, step{Index: i})
			rest = rest[end+1:]
		}
		if rest == "" {
			return out, nil
		}
		if rest[0] != '.' {
			return nil, fmt.Errorf("want '.' or '[' after %q", p[:len(p)-len(rest)])
		}
		rest = rest[1:]
	}
}

// set puts v at key path p in the mapping root. A missing last key, or a
// missing mapping on the way to it, is added (the decoding that follows
// refuses a key the configuration does not know, with its line); an index
// must exist.
func set(root *yaml.Node, p string, v *yaml.Node) error {
	steps, err := parsePath(p)
	if err != nil {
		return err
	}
	n := root
	for k, st := range steps {
		at := pathText(steps[:k])
		last := k == len(steps)-1
		if st.Index >= 0 {
			if n.Kind != yaml.SequenceNode {
				return fmt.Errorf("%s is %s, not a list, so [%d] does not apply", at, strictyaml.Describe(n), st.Index)
			}
			if st.Index >= len(n.Content) {
				return fmt.Errorf("index %d out of range: %s has %d item(s) in the base", st.Index, at, len(n.Content))
			}
			if last {
				n.Content[st.Index] = v
				return nil
			}
			n = n.Content[st.Index]
			continue
		}
		if n.Kind != yaml.MappingNode {
			name := at
			if name == "" {
				name = "the base"
			}
			return fmt.Errorf("%s is %s, not a mapping, so it has no key %q", name, strictyaml.Describe(n), st.Key)
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == st.Key {
				if last {
					n.Content[i+1] = v
					return nil
				}
				next = n.Content[i+1]
				break
			}
		}
		if next == nil {
			if !last && steps[k+1].Index >= 0 {
				return fmt.Errorf("%s has no key %q in the base, so it has no list to index", nameOr(at), st.Key)
			}
			key := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: st.Key, Line: v.Line}
			if last {
				next = v
			} else {
				next = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: v.Line}
			}
			n.Content = append(n.Content, key, next)
			if last {
				return nil
			}
		}
		n = next
	}
	return nil
}

func nameOr(at string) string {
	if at == "" {
		return "the base"
	}
	return at
}

func pathText(steps []step) string {
	var b strings.Builder
	for _, st := range steps {
		if st.Index >= 0 {
			fmt.Fprintf(&b, "[%d]", st.Index)
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(st.Key)
	}
	return b.String()
}

// clone copies n deeply, aliases expanded (a cell's tree is changed in
// place), spending *budget nodes.
func clone(n *yaml.Node, budget *int) (*yaml.Node, error) {
	for n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if *budget--; *budget < 0 {
		return nil, fmt.Errorf("more than %d values (aliases expanded); simplify the file", maxNodes)
	}
	c := *n
	c.Anchor = ""
	if n.Content != nil {
		c.Content = make([]*yaml.Node, len(n.Content))
		for i, ch := range n.Content {
			var err error
			if c.Content[i], err = clone(ch, budget); err != nil {
				return nil, err
			}
		}
	}
	return &c, nil
}

// text is a value as written: a scalar's text, a list or mapping in flow
// style.
func text(n *yaml.Node) string {
	for n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n.Kind == yaml.ScalarNode {
		return n.Value
	}
	budget := maxNodes
	c, err := clone(n, &budget)
	if err != nil {
		return "…"
	}
	var flow func(*yaml.Node)
	flow = func(m *yaml.Node) {
		m.Style, m.HeadComment, m.LineComment, m.FootComment = yaml.FlowStyle, "", "", ""
		for _, ch := range m.Content {
			flow(ch)
		}
	}
	flow(c)
	out, err := yaml.Marshal(c)
	if err != nil {
		return "…"
	}
	return strings.TrimSpace(string(out))
}

// shortNames names each axis in folder names by its last key, or by its
// whole key path when another axis ends in the same key.
func shortNames(axes []Axis) {
	count := map[string]int{}
	for _, a := range axes {
		count[last(a.Key)]++
	}
	for i := range axes {
		axes[i].Short = last(axes[i].Key)
		if count[axes[i].Short] > 1 {
			axes[i].Short = axes[i].Key
		}
	}
}

var unsafeRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^A-Za-z0-9._=,+\-\[\]]+`) })

// folderName keeps a cell's folder name portable: characters other than
// letters, digits and . _ = , + - [ ] become _, and a long name is cut
// (the index before it keeps names distinct).
func folderName(s string) string {
	s = unsafeRE().ReplaceAllString(s, "_")
	if len(s) > 100 {
		s = s[:100]
	}
	return s
}

// last is a key path's last key ("lengthscale" of
// "problem.generate.constraints[0].lengthscale"), or the path.
func last(k string) string {
	steps, _ := parsePath(k)
	for i := len(steps) - 1; i >= 0; i-- {
		if steps[i].Index < 0 {
			return steps[i].Key
		}
	}
	return k
}
