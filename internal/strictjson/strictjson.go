package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/safegp/safegp/internal/quote"
)

// Errors of Check; each is wrapped with the key's path.
var (
	// ErrDuplicate: an object has the same key twice.
	ErrDuplicate = errors.New("key given twice")
	// ErrCase: a key names a field in another case.
	ErrCase = errors.New("keys are case-sensitive")
	// ErrSyntax: not valid JSON (or invalid UTF-8, or data after the
	// value).
	ErrSyntax = errors.New("not valid JSON")
)

// Check checks data, the JSON that encoding/json is about to decode into
// v (a pointer, or nil for any value), for keys given twice in any object
// and for keys that match a struct field of v only when case is ignored.
// It walks v's type beside the document: a struct's keys are checked
// against its fields' names (a key of no field in any case is left to the
// decoder's DisallowUnknownFields), a map's and a raw value's keys for
// duplicates only. Errors name the key and the path to it ("context.t",
// "[3].f").
func Check(data []byte, v any) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return fmt.Errorf("%w: empty body: want a JSON value", ErrSyntax)
	}
	dec := jsontext.NewDecoder(bytes.NewReader(data))
	var t reflect.Type
	if v != nil {
		t = reflect.TypeOf(v)
	}
	if err := walk(dec, t); err != nil {
		return describe(dec, err)
	}
	if _, err := dec.ReadToken(); err != io.EOF {
		return fmt.Errorf("%w: trailing data after the JSON value (at byte %d)", ErrSyntax, dec.InputOffset())
	}
	return nil
}

var unmarshaler = reflect.TypeFor[json.Unmarshaler]()

// walk reads one value from dec, checking it against type t (nil: any).
func walk(dec *jsontext.Decoder, t reflect.Type) error {
	t = checked(t)
	switch dec.PeekKind() {
	case '{':
		if t != nil && t.Kind() == reflect.Struct {
			return walkStruct(dec, t)
		}
		return walkObject(dec, t)
	case '[':
		return walkArray(dec, t)
	}
	// A scalar, or a syntax error that ReadValue reports.
	_, err := dec.ReadValue()
	return err
}

// checked is the type whose keys walk checks for a value decoded into t:
// pointers followed, nil where t decodes itself or takes anything (an
// interface), since its keys are then unknown.
func checked(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		if t.Implements(unmarshaler) {
			return nil // a json.RawMessage or a custom decoder: keys unknown
		}
		t = t.Elem()
	}
	if t != nil && (reflect.PointerTo(t).Implements(unmarshaler) || t.Kind() == reflect.Interface) {
		return nil
	}
	return t
}

// walkObject reads an object that is not a struct's: a map's values are
// checked against its element type, anything else's not at all.
func walkObject(dec *jsontext.Decoder, t reflect.Type) error {
	var elem reflect.Type
	if t != nil && t.Kind() == reflect.Map {
		elem = t.Elem()
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	for dec.PeekKind() != '}' {
		if _, err := dec.ReadToken(); err != nil { // the key: jsontext refuses a duplicate
			return err
		}
		if err := walk(dec, elem); err != nil {
			return err
		}
	}
	_, err := dec.ReadToken()
	return err
}

// walkArray reads an array, checking its values against a slice's or an
// array's element type.
func walkArray(dec *jsontext.Decoder, t reflect.Type) error {
	var elem reflect.Type
	if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
		elem = t.Elem()
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	for dec.PeekKind() != ']' {
		if err := walk(dec, elem); err != nil {
			return err
		}
	}
	_, err := dec.ReadToken()
	return err
}

// errCase is a key that names a field in another case.
type errCase struct{ key, field string }

func (e errCase) Error() string { return "" }

func walkStruct(dec *jsontext.Decoder, t reflect.Type) error {
	fs := fieldsOf(t)
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return err
		}
		key := tok.String()
		ft, ok := fs.exact[key]
		if !ok {
			if f, ok := fs.folded[strings.ToLower(key)]; ok {
				return errCase{key, f}
			}
			// Unknown: the decoder's DisallowUnknownFields names it.
		}
		if err := walk(dec, ft); err != nil {
			return err
		}
	}
	_, err := dec.ReadToken()
	return err
}

// fields are a struct's JSON names as encoding/json sees them.
type fields struct {
	exact  map[string]reflect.Type // name → field type
	folded map[string]string       // lower-case name → name
}

var cache sync.Map // reflect.Type → *fields

func fieldsOf(t reflect.Type) *fields {
	if f, ok := cache.Load(t); ok {
		return f.(*fields)
	}
	f := &fields{exact: map[string]reflect.Type{}, folded: map[string]string{}}
	var add func(t reflect.Type)
	add = func(t reflect.Type) {
		for i := range t.NumField() {
			sf := t.Field(i)
			tag := sf.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, _, _ := strings.Cut(tag, ",")
			if sf.Anonymous && name == "" {
				et := sf.Type
				if et.Kind() == reflect.Pointer {
					et = et.Elem()
				}
				if et.Kind() == reflect.Struct {
					add(et) // an embedded struct's fields are the outer's
					continue
				}
			}
			if !sf.IsExported() {
				continue
			}
			if name == "" {
				name = sf.Name
			}
			f.exact[name] = sf.Type
			f.folded[strings.ToLower(name)] = name
		}
	}
	add(t)
	cache.Store(t, f)
	return f
}

// describe words an error of walk with the path where it happened.
func describe(dec *jsontext.Decoder, err error) error {
	var ec errCase
	if errors.As(err, &ec) {
		return &keyError{fmt.Sprintf("%s: keys are case-sensitive: write %q", at(pathOf(dec.StackPointer().Parent()), quote.Short(ec.key)), ec.field), ErrCase}
	}
	var se *jsontext.SyntacticError
	if errors.As(err, &se) {
		if errors.Is(se.Err, jsontext.ErrDuplicateName) {
			return &keyError{at(pathOf(se.JSONPointer.Parent()), quote.Short(se.JSONPointer.LastToken())) + " is given twice", ErrDuplicate}
		}
		msg := strings.TrimPrefix(se.Err.Error(), "jsontext: ")
		if errors.Is(err, io.ErrUnexpectedEOF) {
			msg = "the JSON ends too early"
		}
		return fmt.Errorf("%w at byte %d: %s", ErrSyntax, se.ByteOffset, msg)
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%w: the JSON ends too early", ErrSyntax)
	}
	return fmt.Errorf("%w: %w", ErrSyntax, err)
}

// keyError is an error about a key: its message names the key and its
// path; it wraps ErrDuplicate or ErrCase.
type keyError struct {
	msg  string
	kind error
}

func (e *keyError) Error() string { return e.msg }
func (e *keyError) Unwrap() error { return e.kind }

// at says where key is: "key \"f\"" at the top, "key \"t\" in context".
func at(path, key string) string {
	if path == "" {
		return "key " + key
	}
	return "key " + key + " in " + path
}

// pathOf writes a JSON pointer as the keys and indices a user reads:
// /context/t → context.t, /3/f → [3].f (indices from 0, as JSON counts).
func pathOf(p jsontext.Pointer) string {
	var b strings.Builder
	for tok := range p.Tokens() {
		if tok != "" && strings.Trim(tok, "0123456789") == "" {
			fmt.Fprintf(&b, "[%s]", tok)
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(quote.Prefix(tok))
	}
	return b.String()
}
