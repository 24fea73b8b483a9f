package strictyaml

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/safegp/safegp/internal/quote"

	"go.yaml.in/yaml/v3"
)

// ErrEmpty reports a document with no content.
var ErrEmpty = errors.New("empty document")

// maxNodes bounds the nodes the check visits, aliases expanded: a YAML
// bomb (aliases of aliases) is refused instead of walked exponentially.
const maxNodes = 1_000_000

// maxDelimiters bounds the commas, colons, dashes, brackets and line
// breaks of a document, before it is parsed: yaml.Unmarshal builds every
// node (about 200 bytes each) before the walk counts them, and every node
// but the top one takes at least one delimiter, so a document with more
// than two per node allowed is too large whatever it holds. 16 MiB of
// "1," (8 million nodes, 1.6 GB parsed) is refused in a few milliseconds.
const maxDelimiters = 2 * maxNodes

// checkSize refuses a document with more than maxDelimiters delimiters.
func checkSize(data []byte) error {
	n := 0
	for _, c := range data {
		switch c {
		case ',', ':', '-', '[', '{', '\n':
			n++
		}
	}
	if n > maxDelimiters {
		return fmt.Errorf("more than %d lines, commas, colons and dashes: a document this large is not read (at most %d values)", maxDelimiters, maxNodes)
	}
	return nil
}

// Decode decodes data into v (a pointer to a struct) after checking every
// value against v's type. Types that decode themselves (yaml.Unmarshaler)
// check their own values, through DecodeNode and Errorf, and their errors
// are named by their full key path too. Errors read "line N: key.path:
// what is wrong".
func Decode(data []byte, v any) error {
	if err := checkSize(data); err != nil {
		return err
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return errors.New(message(err, nil))
	}
	if root.Kind == 0 || len(root.Content) == 0 {
		return ErrEmpty
	}
	w := newWalker(nil)
	if err := w.walk(root.Content[0], reflect.TypeOf(v).Elem(), ""); err != nil {
		return err
	}
	// Decoding the checked tree, not the text again: the walk has
	// refused unknown keys already (types that decode themselves check
	// their own), and a stored study's spec holds every action.
	if err := root.Decode(v); err != nil {
		if ne := w.rebase(err); ne != nil {
			return ne
		}
		return errors.New(message(err, &root))
	}
	return nil
}

// DecodeNode decodes n, the node an UnmarshalYAML method was given, into v
// (a pointer) as strictly as Decode does: unknown keys, keys given twice,
// null values (unless the field is tagged strictyaml:"nullable"),
// fractions for integers and values of the wrong kind are *NodeErrors,
// which Decode names by their full key path. It lets a type decode its
// YAML form into typed fields instead of reading the node by hand.
func DecodeNode(n *yaml.Node, v any) error {
	w := newWalker(n)
	if err := w.walk(n, reflect.TypeOf(v).Elem(), ""); err != nil {
		return err
	}
	if err := n.Decode(v); err != nil {
		if ne := w.rebase(err); ne != nil {
			return ne
		}
		// The walk refuses what the decoder would; this is a fallback.
		return &NodeError{Root: n, Line: n.Line, Msg: yamlLine().ReplaceAllString(message(err, nil), "")}
	}
	return nil
}

// Errorf reports a value an UnmarshalYAML method refuses after decoding
// it: n is the node the method was given, path the key path from n to the
// value ("" for n itself, "plateau.window", "[2]").
func Errorf(n *yaml.Node, path, format string, args ...any) error {
	return &NodeError{Root: n, Line: find(n, path).Line, Path: path, Msg: fmt.Sprintf(format, args...)}
}

// NodeError is a value the check refuses. Path is the key path to it from
// Root, the node a type decoding itself was given (nil: the document's
// top); Decode reports it from the document's top.
type NodeError struct {
	Root *yaml.Node
	Line int
	Path string
	Msg  string
}

func (e *NodeError) Error() string {
	if e.Root != nil && e.Path == "" {
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return fmt.Sprintf("line %d: %s: %s", e.Line, label(e.Path), e.Msg)
}

// find returns the node at path under n, or the deepest node on the way
// that exists, so that an error gets the line nearest to its value.
func find(n *yaml.Node, path string) *yaml.Node {
	for path != "" {
		for n.Kind == yaml.AliasNode {
			n = n.Alias
		}
		var key string
		switch {
		case path[0] == '[':
			end := strings.IndexByte(path, ']')
			i, err := strconv.Atoi(path[1:max(end, 1)])
			if end < 0 || err != nil || n.Kind != yaml.SequenceNode || i < 0 || i >= len(n.Content) {
				return n
			}
			n, path = n.Content[i], path[end+1:]
			continue
		case path[0] == '.':
			path = path[1:]
			continue
		}
		end := strings.IndexAny(path, ".[")
		if end < 0 {
			end = len(path)
		}
		key, path = path[:end], path[end:]
		next := (*yaml.Node)(nil)
		for i := 0; n.Kind == yaml.MappingNode && i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				next = n.Content[i+1]
				break
			}
		}
		if next == nil {
			return n
		}
		n = next
	}
	return n
}

var unmarshaler = reflect.TypeFor[yaml.Unmarshaler]()

type walker struct {
	root  *yaml.Node // the node DecodeNode was given; nil for Decode
	nodes int
	// decoders holds the key path of each node left to a type that decodes
	// itself, so that its errors can be named from the top.
	decoders map[*yaml.Node]string
}

func newWalker(root *yaml.Node) *walker {
	return &walker{root: root, decoders: map[*yaml.Node]string{}}
}

// rebase turns a *NodeError raised by a type that decodes itself into one
// relative to the walk's root; nil if err is not one.
func (w *walker) rebase(err error) *NodeError {
	var ne *NodeError
	if !errors.As(err, &ne) {
		return nil
	}
	at, ok := w.decoders[ne.Root]
	if !ok {
		return ne
	}
	return &NodeError{Root: w.root, Line: ne.Line, Path: join(at, ne.Path), Msg: ne.Msg}
}

func (w *walker) errorf(n *yaml.Node, path, format string, args ...any) error {
	return &NodeError{Root: w.root, Line: n.Line, Path: path, Msg: fmt.Sprintf(format, args...)}
}

func (w *walker) walk(n *yaml.Node, t reflect.Type, path string) error {
	return w.walkValue(n, t, path, false)
}

// walkValue checks n against t; nullable allows a null value.
func (w *walker) walkValue(n *yaml.Node, t reflect.Type, path string, nullable bool) error {
	if w.nodes++; w.nodes > maxNodes {
		return w.errorf(n, path, "more than %d values (aliases expanded); simplify the document", maxNodes)
	}
	for n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		if nullable {
			return nil
		}
		return w.errorf(n, path, "no value (null); give a value or leave the key out")
	}
	if reflect.PointerTo(t).Implements(unmarshaler) {
		if _, seen := w.decoders[n]; !seen {
			w.decoders[n] = path
		}
		return nil
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return w.walkInt(n, t, path)
	case reflect.Float32, reflect.Float64, reflect.Bool, reflect.String:
		return w.walkScalar(n, t, path)
	case reflect.Slice, reflect.Array:
		return w.walkList(n, t, path)
	case reflect.Map:
		return w.walkMap(n, t, path)
	case reflect.Struct:
		return w.walkStruct(n, t, path)
	}
	return nil
}

// bad reports a value of the wrong kind: "want <want>, got <value>".
func (w *walker) bad(n *yaml.Node, path, want string) error {
	return w.errorf(n, path, "want %s, got %s", want, describe(n))
}

// walkInt checks an integer of t's width, signed or not.
func (w *walker) walkInt(n *yaml.Node, t reflect.Type, path string) error {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!float" {
		// 2.0 and 1e3 are integers; 1.5 is not, and must not be
		// truncated to 1.
		if f, err := strconv.ParseFloat(n.Value, 64); err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			return nil
		}
	}
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" {
		return w.bad(n, path, "an integer")
	}
	bits := t.Bits()
	if t.Kind() >= reflect.Uint {
		if _, err := strconv.ParseUint(strings.ReplaceAll(n.Value, "_", ""), 0, bits); err != nil {
			return w.bad(n, path, fmt.Sprintf("an integer in 0…%d", uint64(1)<<bits-1))
		}
	} else if _, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, bits); err != nil {
		return w.bad(n, path, "an integer of at most 18 digits")
	}
	return nil
}

// walkScalar checks a number, a boolean or a string.
func (w *walker) walkScalar(n *yaml.Node, t reflect.Type, path string) error {
	switch t.Kind() {
	case reflect.Float32, reflect.Float64:
		if n.Kind != yaml.ScalarNode || (n.Tag != "!!int" && n.Tag != "!!float") {
			return w.bad(n, path, "a number")
		}
	case reflect.Bool:
		if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
			return w.bad(n, path, "true or false")
		}
	case reflect.String:
		if n.Kind != yaml.ScalarNode {
			return w.bad(n, path, "a string")
		}
	}
	return nil
}

// walkList checks a sequence against a slice or an array (of t.Len() values).
func (w *walker) walkList(n *yaml.Node, t reflect.Type, path string) error {
	if n.Kind != yaml.SequenceNode {
		return w.bad(n, path, "a list")
	}
	if t.Kind() == reflect.Array && len(n.Content) != t.Len() {
		return w.errorf(n, path, "want a list of %d values, got %d", t.Len(), len(n.Content))
	}
	for i, c := range n.Content {
		if err := w.walk(c, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
			return err
		}
	}
	return nil
}

// walkMap checks a mapping against a Go map: any keys, each value t.Elem().
func (w *walker) walkMap(n *yaml.Node, t reflect.Type, path string) error {
	if n.Kind != yaml.MappingNode {
		return w.bad(n, path, "a mapping")
	}
	if err := w.unique(n, path); err != nil {
		return err
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if err := w.walk(n.Content[i+1], t.Elem(), join(path, n.Content[i].Value)); err != nil {
			return err
		}
	}
	return nil
}

// walkStruct checks a mapping against a struct: only its yaml-tagged
// exported fields are known keys.
func (w *walker) walkStruct(n *yaml.Node, t reflect.Type, path string) error {
	if n.Kind != yaml.MappingNode {
		return w.bad(n, path, "a mapping")
	}
	if err := w.unique(n, path); err != nil {
		return err
	}
	fields := map[string]reflect.StructField{}
	var names []string
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "" || name == "-" || !f.IsExported() {
			continue
		}
		fields[name] = f
		names = append(names, name)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		f, ok := fields[k.Value]
		if !ok {
			return w.errorf(k, path, "unknown key %s (known: %s)", quote.Short(k.Value), strings.Join(names, ", "))
		}
		if err := w.walkValue(n.Content[i+1], f.Type, join(path, k.Value), f.Tag.Get("strictyaml") == "nullable"); err != nil {
			return err
		}
	}
	return nil
}

// unique refuses a mapping that gives a key twice.
func (w *walker) unique(n *yaml.Node, path string) error {
	seen := make(map[string]int, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if line, dup := seen[k.Value]; dup {
			return w.errorf(k, path, "key %s given twice (already on line %d)", quote.Short(k.Value), line)
		}
		seen[k.Value] = k.Line
	}
	return nil
}

// join appends a key ("window") or an index ("[2]") to a key path.
func join(path, key string) string {
	switch {
	case path == "":
		return key
	case key == "":
		return path
	case key[0] == '[':
		return path + key
	}
	return path + "." + key
}

func label(path string) string {
	if path == "" {
		return "the top level"
	}
	return path
}

// Describe names a node's value for an error message: a quoted string,
// a number as written, "a list" or "a mapping".
func Describe(n *yaml.Node) string { return describe(n) }

func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	switch n.Tag {
	case "!!str":
		return quote.Short(n.Value)
	case "!!float":
		if slices.Contains([]string{".nan", ".NaN", ".NAN"}, n.Value) {
			return "NaN"
		}
	}
	return quote.Prefix(n.Value)
}

// The error rewriting's patterns, compiled on first use (an error), not
// at every process's start.
var (
	yamlPrefix = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^yaml: `) })
	yamlLine   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^line (\d+): `) })
	goWords    = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile("cannot unmarshal !!(\\w+) `([^`]*)` into (\\S+)")
	})
)

// message makes a decoding error one line, naming the key path of the
// value on the line it gives ("line 4: model.delta: …"), without Go's
// words (types decoded by hand report their own).
func message(err error, root *yaml.Node) string {
	var te *yaml.TypeError
	msgs := []string{err.Error()}
	if errors.As(err, &te) {
		msgs = te.Errors
	}
	paths := map[int]string{}
	if root != nil {
		keyPaths(root, "", paths)
	}
	for i, m := range msgs {
		m = strings.TrimSpace(yamlPrefix().ReplaceAllString(m, ""))
		if g := goWords().FindStringSubmatch(m); g != nil {
			m = strings.Replace(m, g[0], fmt.Sprintf("want %s, got %s", goType(g[3]), quote.Short(g[2])), 1)
		}
		if g := yamlLine().FindStringSubmatch(m); g != nil {
			line, _ := strconv.Atoi(g[1])
			if p, ok := paths[line]; ok && !strings.Contains(m, p+":") {
				m = g[0] + p + ": " + m[len(g[0]):]
			}
		}
		msgs[i] = m
	}
	return strings.Join(msgs, "; ")
}

// goType names a Go type from a yaml error in a configuration's words.
func goType(t string) string {
	switch {
	case strings.HasPrefix(t, "int"), strings.HasPrefix(t, "uint"):
		return "an integer"
	case strings.HasPrefix(t, "float"):
		return "a number"
	case t == "bool":
		return "true or false"
	case t == "string":
		return "a string"
	case strings.HasPrefix(t, "[]"), strings.HasPrefix(t, "["):
		return "a list"
	}
	return "a mapping"
}

// keyPaths maps each line that holds a value to the dotted key path of that
// value (the innermost one, when several share a line).
func keyPaths(n *yaml.Node, path string, paths map[int]string) {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			keyPaths(c, path, paths)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			p := join(path, n.Content[i].Value)
			paths[n.Content[i+1].Line] = p
			keyPaths(n.Content[i+1], p, paths)
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			p := fmt.Sprintf("%s[%d]", path, i)
			paths[c.Line] = p
			keyPaths(c, p, paths)
		}
	}
}
