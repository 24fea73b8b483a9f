package strictjson

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
)

type inner struct {
	Lease float64 `json:"lease_seconds"`
}

type target struct {
	Ask     *int               `json:"ask,omitempty"`
	F       json.RawMessage    `json:"f"`
	G       []float64          `json:"g"`
	Context map[string]float64 `json:"context,omitempty"`
	Inner   *inner             `json:"inner"`
	List    []inner            `json:"list"`
	Skip    int                `json:"-"`
	Plain   int
}

// TestCheck is issue 24, item 5: what encoding/json takes silently —
// a key twice (the last wins), a key in another case — is refused with
// the key's path; every exact document passes.
func TestCheck(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, doc string
		err       error
		msg       string
	}{
		{"exact", `{"ask": 1, "f": 0.1, "g": [1], "context": {"t": 1}, "inner": {"lease_seconds": 2}, "list": [{"lease_seconds": 1}], "Plain": 1}`, nil, ""},
		{"unknown key", `{"nope": 1}`, nil, ""}, // the decoder's DisallowUnknownFields says it
		{"duplicate", `{"ask":1,"f":0.1,"f":0.9}`, ErrDuplicate, `key "f" is given twice`},
		{"duplicate in a raw value", `{"f": {"a": 1, "a": 2}}`, ErrDuplicate, `key "a" in f`},
		{"duplicate in a map", `{"context": {"t": 1, "t": 2}}`, ErrDuplicate, `key "t" in context`},
		{"duplicate in a list", `{"list": [{}, {"lease_seconds": 1, "lease_seconds": 2}]}`, ErrDuplicate, `key "lease_seconds" in list[1]`},
		{"case", `{"ASK": 3, "f": 0.1}`, ErrCase, `key "ASK": keys are case-sensitive: write "ask"`},
		{"case of an untagged field", `{"plain": 3}`, ErrCase, `key "plain": keys are case-sensitive: write "Plain"`},
		{"case nested", `{"inner": {"Lease_Seconds": 3}}`, ErrCase, `key "Lease_Seconds" in inner: keys are case-sensitive: write "lease_seconds"`},
		{"case in a list", `{"list": [{"LEASE_SECONDS": 1}]}`, ErrCase, `in list[0]`},
		{"map keys keep their case", `{"context": {"T": 1, "t": 2}}`, nil, ""},
		{"trailing data", `{"f": 1} {}`, ErrSyntax, "trailing data after the JSON value"},
		{"invalid UTF-8", "{\"f\": \"\xff\"}", ErrSyntax, "UTF-8"},
		{"truncated", `{"f": `, ErrSyntax, "ends too early"},
		{"empty", ` `, ErrSyntax, "empty body"},
		{"long duplicate key", `{"` + strings.Repeat("k", 1<<20) + `": 1, "` + strings.Repeat("k", 1<<20) + `": 2}`, ErrDuplicate, `(1048576 bytes)`},
	} {
		err := Check([]byte(c.doc), &target{})
		if !errors.Is(err, c.err) || (err != nil && !strings.Contains(err.Error(), c.msg)) {
			t.Errorf("%s: %v, want %v mentioning %q", c.name, err, c.err, c.msg)
		}
		if err != nil && len(err.Error()) > 400 {
			t.Errorf("%s: an error of %d bytes", c.name, len(err.Error()))
		}
	}
	// Any value (nil target): duplicates anywhere, case not checked.
	if err := Check([]byte(`[{"a": 1}, {"b": {"c": 1, "c": 1}}]`), nil); !errors.Is(err, ErrDuplicate) || !strings.Contains(err.Error(), `key "c" in [1].b`) {
		t.Errorf("nil target: %v", err)
	}
}

// FuzzCheck: a document Check passes has, in every object of any depth
// (read by encoding/json's own tokenizer), each key once, and at the top
// no key that names a field of the target in another case.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{`{"ask": 1, "f": 2, "g": [1]}`, `{"f":1,"f":2}`, `{"ASK":1}`, `{"context":{"a":1,"a":2}}`, `[1,2]`, `{"inner":{"lease_seconds":1}}`} {
		f.Add(s)
	}
	fs := fieldsOf(reflect.TypeFor[target]())
	f.Fuzz(func(t *testing.T, s string) {
		if Check([]byte(s), &target{}) != nil {
			return
		}
		dec := json.NewDecoder(strings.NewReader(s))
		type frame struct {
			object bool
			keys   map[string]bool
			want   bool // the next string is a key
		}
		var stack []*frame
		for {
			tok, err := dec.Token()
			if err != nil {
				return // encoding/json stops where jsontext went on: nothing to compare
			}
			var top *frame
			if len(stack) > 0 {
				top = stack[len(stack)-1]
			}
			switch v := tok.(type) {
			case json.Delim:
				if v == '{' || v == '[' {
					if top != nil && top.object {
						top.want = true
					}
					stack = append(stack, &frame{object: v == '{', keys: map[string]bool{}, want: true})
					continue
				}
				stack = stack[:len(stack)-1]
				if len(stack) == 0 {
					return
				}
				continue
			case string:
				if top != nil && top.object && top.want {
					if top.keys[v] {
						t.Fatalf("%q: key %q twice passed", s, v)
					}
					top.keys[v] = true
					if len(stack) == 1 {
						if _, ok := fs.exact[v]; !ok {
							if _, folded := fs.folded[strings.ToLower(v)]; folded {
								t.Fatalf("%q: key %q passed in another case", s, v)
							}
						}
					}
					top.want = false
					continue
				}
			}
			if top != nil && top.object {
				top.want = true
			}
		}
	})
}

type Embedded struct {
	Window int `json:"window"`
}

type ptrEmbedded struct {
	Cap int `json:"cap"`
}

// custom decodes itself: its keys are its own business.
type custom struct{ raw []byte }

func (c *custom) UnmarshalJSON(b []byte) error { c.raw = b; return nil }

type withEmbedded struct {
	Embedded
	*ptrEmbedded
	hidden int //lint:ignore U1000 an unexported field, which JSON never sets
	Named  struct {
		Deep int `json:"deep"`
	} `json:"named"`
	Custom *custom     `json:"custom"`
	Pair   [2]Embedded `json:"pair"`
}

// TestCheckFieldsOfEmbeddedStructs: an embedded struct's fields are the
// outer struct's keys (encoding/json's rule), for a value or a pointer;
// an unexported field is no key; a type that decodes itself is not looked
// into; an array's elements are checked as a slice's; and a document cut
// off anywhere in an object or a list is ErrSyntax saying it ends early.
func TestCheckFieldsOfEmbeddedStructs(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, doc string
		err       error
		msg       string
	}{
		{"exact", `{"window": 1, "cap": 2, "named": {"deep": 3}, "custom": {"X": 1, "x": 2}, "pair": [{"window": 1}, {"window": 2}]}`, nil, ""},
		{"embedded key in another case", `{"Window": 1}`, ErrCase, `key "Window": keys are case-sensitive: write "window"`},
		{"embedded pointer's key in another case", `{"CAP": 1}`, ErrCase, `write "cap"`},
		{"unexported field is no key", `{"Hidden": 1}`, nil, ""},
		{"embedded struct is no key", `{"embedded": {}}`, nil, ""},
		{"named struct is one", `{"Named": {}}`, ErrCase, `write "named"`},
		{"case in an array element", `{"pair": [{"window": 1}, {"WINDOW": 2}]}`, ErrCase, `in pair[1]`},
		{"duplicate in a custom value", `{"custom": {"x": 1, "x": 2}}`, ErrDuplicate, `key "x" in custom`},
		{"cut in a struct", `{"window": 1, `, ErrSyntax, "ends too early"},
		{"cut in a map", `{"custom": {"a": 1`, ErrSyntax, "ends too early"},
		{"cut in a list", `{"pair": [{"window": 1}`, ErrSyntax, "ends too early"},
		{"cut at a key", `{"named": {"deep"`, ErrSyntax, "ends too early"},
	} {
		err := Check([]byte(c.doc), &withEmbedded{})
		if !errors.Is(err, c.err) || (err != nil && !strings.Contains(err.Error(), c.msg)) {
			t.Errorf("%s: %v, want %v mentioning %q", c.name, err, c.err, c.msg)
		}
	}
	fs := fieldsOf(reflect.TypeFor[withEmbedded]())
	want := []string{"cap", "custom", "named", "pair", "window"}
	var got []string
	for k := range fs.exact {
		got = append(got, k)
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("keys %v, want %v", got, want)
	}
}
