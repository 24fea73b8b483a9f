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
	var allowed map[string]bool
	if exact != nil {
		allowed = map[string]bool{}
		for _, k := range exact {
			allowed[k] = true
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	type frame struct {
		object, key bool
		seen        map[string]bool
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if d, ok := tok.(json.Delim); ok {
			if d == '{' || d == '[' {
				if top != nil && top.object {
					top.key = true
				}
				stack = append(stack, &frame{object: d == '{', key: true, seen: map[string]bool{}})
			} else if stack = stack[:len(stack)-1]; len(stack) == 0 {
				return nil
			}
			continue
		}
		if s, ok := tok.(string); ok && top != nil && top.object && top.key {
			if top.seen[s] {
				return fmt.Errorf("key %q is given twice", s)
			}
			if len(stack) == 1 && allowed != nil && !allowed[s] {
				return fmt.Errorf("key %q is not one of the API's", s)
			}
			top.seen[s] = true
			top.key = false
			continue
		}
		if top != nil && top.object {
			top.key = true
		}
	}
}
