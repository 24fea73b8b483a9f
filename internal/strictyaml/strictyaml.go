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

	"go.yaml.in/yaml/v3"
)

// ErrEmpty reports a document with no content.
var ErrEmpty = errors.New("empty document")

// maxNodes bounds the nodes the check visits, aliases expanded: a YAML
// bomb (aliases of aliases) is refused instead of walked exponentially.
const maxNodes = 1_000_000

// Decode decodes data into v (a pointer to a struct) after checking every
// value against v's type. Types that decode themselves (yaml.Unmarshaler)
// check their own values. Errors read "line N: key.path: what is wrong".
func Decode(data []byte, v any) error {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return errors.New(message(err, nil))
	}
	if root.Kind == 0 || len(root.Content) == 0 {
		return ErrEmpty
	}
	w := walker{}
	if err := w.walk(root.Content[0], reflect.TypeOf(v).Elem(), ""); err != nil {
		return err
	}
	// Decoding the checked tree, not the text again: the walk has
	// refused unknown keys already (types that decode themselves check
	// their own), and a stored study's spec holds every action.
	if err := root.Decode(v); err != nil {
		return errors.New(message(err, &root))
	}
	return nil
}

var unmarshaler = reflect.TypeFor[yaml.Unmarshaler]()

type walker struct{ nodes int }

func (w *walker) walk(n *yaml.Node, t reflect.Type, path string) error {
	if w.nodes++; w.nodes > maxNodes {
		return fmt.Errorf("line %d: %s: more than %d values (aliases expanded); simplify the document", n.Line, label(path), maxNodes)
	}
	for n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return fmt.Errorf("line %d: %s: no value (null); give a value or leave the key out", n.Line, label(path))
	}
	if reflect.PointerTo(t).Implements(unmarshaler) {
		return nil
	}
	bad := func(want string) error {
		return fmt.Errorf("line %d: %s: want %s, got %s", n.Line, label(path), want, describe(n))
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if n.Kind == yaml.ScalarNode && n.Tag == "!!float" {
			// 2.0 and 1e3 are integers; 1.5 is not, and must not be
			// truncated to 1.
			if f, err := strconv.ParseFloat(n.Value, 64); err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
				return nil
			}
		}
		if n.Kind != yaml.ScalarNode || n.Tag != "!!int" {
			return bad("an integer")
		}
		bits := t.Bits()
		if t.Kind() >= reflect.Uint {
			if _, err := strconv.ParseUint(strings.ReplaceAll(n.Value, "_", ""), 0, bits); err != nil {
				return bad(fmt.Sprintf("an integer in 0…%d", uint64(1)<<bits-1))
			}
		} else if _, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, bits); err != nil {
			return bad("an integer of at most 18 digits")
		}
	case reflect.Float32, reflect.Float64:
		if n.Kind != yaml.ScalarNode || (n.Tag != "!!int" && n.Tag != "!!float") {
			return bad("a number")
		}
	case reflect.Bool:
		if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
			return bad("true or false")
		}
	case reflect.String:
		if n.Kind != yaml.ScalarNode {
			return bad("a string")
		}
	case reflect.Slice, reflect.Array:
		if n.Kind != yaml.SequenceNode {
			return bad("a list")
		}
		if t.Kind() == reflect.Array && len(n.Content) != t.Len() {
			return fmt.Errorf("line %d: %s: want a list of %d values, got %d", n.Line, label(path), t.Len(), len(n.Content))
		}
		for i, c := range n.Content {
			if err := w.walk(c, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			return bad("a mapping")
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if err := w.walk(n.Content[i+1], t.Elem(), join(path, n.Content[i].Value)); err != nil {
				return err
			}
		}
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return bad("a mapping")
		}
		fields := map[string]reflect.Type{}
		var names []string
		for f := range t.Fields() {
			name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			if name == "" || name == "-" || !f.IsExported() {
				continue
			}
			fields[name] = f.Type
			names = append(names, name)
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			ft, ok := fields[k.Value]
			if !ok {
				return fmt.Errorf("line %d: %s: unknown key %q (known: %s)", k.Line, label(path), k.Value, strings.Join(names, ", "))
			}
			if err := w.walk(n.Content[i+1], ft, join(path, k.Value)); err != nil {
				return err
			}
		}
	}
	return nil
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func label(path string) string {
	if path == "" {
		return "the top level"
	}
	return path
}

// describe names a node's value for an error message.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	switch n.Tag {
	case "!!str":
		return strconv.Quote(n.Value)
	case "!!float":
		if slices.Contains([]string{".nan", ".NaN", ".NAN"}, n.Value) {
			return "NaN"
		}
	}
	return n.Value
}

var (
	yamlPrefix = regexp.MustCompile(`^yaml: `)
	yamlLine   = regexp.MustCompile(`^line (\d+): `)
	goWords    = regexp.MustCompile("cannot unmarshal !!(\\w+) `([^`]*)` into (\\S+)")
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
		m = strings.TrimSpace(yamlPrefix.ReplaceAllString(m, ""))
		if g := goWords.FindStringSubmatch(m); g != nil {
			m = strings.Replace(m, g[0], fmt.Sprintf("want %s, got %q", goType(g[3]), g[2]), 1)
		}
		if g := yamlLine.FindStringSubmatch(m); g != nil {
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
