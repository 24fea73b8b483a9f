package study_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/safegp/safegp/internal/testjson"
	"github.com/safegp/safegp/study"
)

// keysOnce fails t when data, accepted by a decoder, has a key twice
// (encoding/json lets the last win) or a top key other than exact, as
// encoding/json matches {"INDEX": 3} to index (issue 24, item 5).
func keysOnce(t *testing.T, data []byte, exact ...string) {
	t.Helper()
	if err := testjson.KeysOnce(data, exact...); err != nil {
		t.Fatalf("accepted %q: %v", data, err)
	}
}

var jsonSeeds = []string{`{}`, `[]`, ``, `{"a": 1, "a": 2}`, `{"A": 1}`, "{\"x\": \"\xff\"}", `{"context": {"t": 1, "t": 2}}`}

// FuzzDecodeRetract: errors are ErrBadRetract; what is accepted has its
// one key, once and exactly.
func FuzzDecodeRetract(f *testing.F) {
	for _, s := range append(jsonSeeds, `{"observation": 3}`, `{"observation": 3, "observation": 4}`, `{"OBSERVATION": 3}`, `{"observation": 3.0}`) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := study.DecodeRetract(data); err != nil {
			if !errors.Is(err, study.ErrBadRetract) {
				t.Fatalf("error %v is not ErrBadRetract", err)
			}
			return
		}
		keysOnce(t, data, "observation")
	})
}

// FuzzDecodeAsk: errors are ErrBadAsk or ErrBadContext; what is accepted
// has its keys once and exactly, its context's names once.
func FuzzDecodeAsk(f *testing.F) {
	for _, s := range append(jsonSeeds, `{"count": 2, "lease_seconds": 60}`, `{"count": 2, "count": 3}`, `{"Count": 2}`, `{"context": {"t": 1.5}}`) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := study.DecodeAsk(data); err != nil {
			if !errors.Is(err, study.ErrBadAsk) && !errors.Is(err, study.ErrBadContext) {
				t.Fatalf("error %v is neither ErrBadAsk nor ErrBadContext", err)
			}
			return
		}
		if len(bytes.TrimSpace(data)) > 0 {
			keysOnce(t, data, "count", "lease_seconds", "context")
		}
	})
}

// FuzzDecodePosterior: errors are ErrBadPoints or ErrBadContext; what is
// accepted has its keys once and exactly.
func FuzzDecodePosterior(f *testing.F) {
	for _, s := range append(jsonSeeds, `{"points": [[1, 2]]}`, `{"points": [[1]], "points": [[2]]}`, `{"Points": [[1]]}`, `{"points": [[1]], "context": {"t": 1}}`) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := study.DecodePosterior(data); err != nil {
			if !errors.Is(err, study.ErrBadPoints) && !errors.Is(err, study.ErrBadContext) {
				t.Fatalf("error %v is neither ErrBadPoints nor ErrBadContext", err)
			}
			return
		}
		keysOnce(t, data, "points", "context")
	})
}

// FuzzDecodeImport: errors are ErrBadImport; every element accepted has
// its keys once and exactly.
func FuzzDecodeImport(f *testing.F) {
	for _, s := range append(jsonSeeds, `[{"x": [1], "f": 1, "g": [1]}]`, `[{"index": 1, "f": 1, "f": 2, "g": [1]}]`, `[{"INDEX": 1, "F": 1, "g": [1]}]`, `[{"x": [1], "f": 1, "g": [1]}] x`) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rows, err := study.DecodeImport(data)
		if err != nil {
			if !errors.Is(err, study.ErrBadImport) {
				t.Fatalf("error %v is not ErrBadImport", err)
			}
			return
		}
		var elems []json.RawMessage
		if err := json.Unmarshal(data, &elems); err != nil || len(elems) != len(rows) {
			t.Fatalf("accepted %q: %d rows, %d elements (%v)", data, len(rows), len(elems), err)
		}
		for _, e := range elems {
			keysOnce(t, e, "index", "x", "f", "g", "noise_std", "context")
		}
	})
}
