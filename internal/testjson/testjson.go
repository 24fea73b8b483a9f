package testjson

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// KeysOnce reports whether every object of data, at any depth, has each
// key once, and whether the top object's keys are all in exact (when
// exact is not nil, compared case-sensitively). A document that
// encoding/json cannot tokenize is not judged (nil): the decoders refuse
// it anyway.
func KeysOnce(data []byte, exact ...string) error {
	k := keyCheck{}
	if exact != nil {
		k.allowed = map[string]bool{}
		for _, key := range exact {
			k.allowed[key] = true
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		top := k.top()
		if d, ok := tok.(json.Delim); ok {
			if k.delim(d, top) {
				return nil
			}
			continue
		}
		if s, ok := tok.(string); ok && top != nil && top.object && top.key {
			if err := k.key(s, top); err != nil {
				return err
			}
			continue
		}
		if top != nil && top.object {
			top.key = true
		}
	}
}

// keyCheck is KeysOnce's state: the open objects and arrays, innermost
// last, and the top object's allowed keys (nil: any).
type keyCheck struct {
	allowed map[string]bool
	stack   []*frame
}

// frame is one open object or array; key is whether its next string
// token is a key.
type frame struct {
	object, key bool
	seen        map[string]bool
}

// top is the innermost open object or array; nil outside any.
func (k *keyCheck) top() *frame {
	if len(k.stack) == 0 {
		return nil
	}
	return k.stack[len(k.stack)-1]
}

// delim opens or closes an object or an array; it reports whether the
// document's top value has ended.
func (k *keyCheck) delim(d json.Delim, top *frame) (done bool) {
	if d == '{' || d == '[' {
		if top != nil && top.object {
			top.key = true
		}
		k.stack = append(k.stack, &frame{object: d == '{', key: true, seen: map[string]bool{}})
		return false
	}
	k.stack = k.stack[:len(k.stack)-1]
	return len(k.stack) == 0
}

// key records key s of object top, refusing a repeated or, at the top
// level, an unknown one.
func (k *keyCheck) key(s string, top *frame) error {
	if top.seen[s] {
		return fmt.Errorf("key %q is given twice", s)
	}
	if len(k.stack) == 1 && k.allowed != nil && !k.allowed[s] {
		return fmt.Errorf("key %q is not one of the API's", s)
	}
	top.seen[s] = true
	top.key = false
	return nil
}
