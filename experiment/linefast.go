package experiment

import (
	"strconv"
	"unicode/utf8"
)

// decodeLineFast decodes a line of runs.jsonl into l (whose Run must be a
// fresh &Run{}) exactly as json.Unmarshal would, when the line has the
// form appendLine writes for a finite problem's run: the unit's three
// fields and the run's keys up to exploration_rounds, each once, no
// whitespace, strings without escapes. It reports false for anything
// else (a benchmark function's points, fits, contexts, an escape, a
// duplicate or unknown key, a number Go would refuse), leaving l partly
// filled: the caller then decodes the line with json.Unmarshal into a
// fresh runLine.
//
// Why by hand: safegp merge decodes every run of every shard to make the
// summary, and encoding/json's reflection took ≈ 50 ms of the merge's
// ≈ 0.2 s CPU for the paper's 150 runs of T = 500 (2.3 MB), most of the
// sharding overhead that is not a process start (BENCHMARKS.md, "Issue
// 14: sharding"). The numbers go through strconv as encoding/json's do,
// so the floats are the same bits; FuzzDecodeLineFast checks every line
// this accepts against json.Unmarshal.
//
// spare, if not nil, lends its arrays to the line's: l's slices are
// written over spare's (the previous line's, which its reader is done
// with: lineDecoder) where they are long enough, so that a merge reading
// thousands of runs does not make garbage of 16 KB a run.
func decodeLineFast(line []byte, l *runLine, spare *runLine) bool {
	p := lineParser{b: line}
	var sp runLine
	var spr Run
	if spare != nil {
		sp = *spare
		if spare.Run != nil {
			spr = *spare.Run
		}
	}
	var seen uint16
	return p.members(func(key []byte) bool {
		switch string(key) {
		case "algorithm_index":
			return once(&seen, 1) && p.int(&l.Algorithm)
		case "realization":
			return once(&seen, 2) && p.int(&l.Realization)
		case "violation_rounds":
			return once(&seen, 4) && p.ints(&l.ViolationRounds, sp.ViolationRounds)
		case "run":
			return once(&seen, 8) && p.run(l.Run, &spr)
		}
		return false
	}) && p.i == len(p.b)
}

// once marks bit in seen and reports whether it was clear: encoding/json
// keeps the last of duplicate keys, which the fast path leaves to it.
func once(seen *uint16, bit uint16) bool {
	if *seen&bit != 0 {
		return false
	}
	*seen |= bit
	return true
}

// lineParser reads JSON of the restricted form decodeLineFast accepts.
type lineParser struct {
	b []byte
	i int
}

func (p *lineParser) eat(c byte) bool {
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

// members reads an object, calling member with each key after its colon;
// member reads the value.
func (p *lineParser) members(member func(key []byte) bool) bool {
	if !p.eat('{') {
		return false
	}
	if p.eat('}') {
		return true
	}
	for {
		key, ok := p.str()
		if !ok || !p.eat(':') || !member(key) {
			return false
		}
		if p.eat('}') {
			return true
		}
		if !p.eat(',') {
			return false
		}
	}
}

// run reads the run object of a finite problem (Run's fields up to
// ExplorationRounds) into r, its series over spare's arrays.
func (p *lineParser) run(r, spare *Run) bool {
	var seen uint16
	return p.members(func(key []byte) bool {
		switch string(key) {
		case "algorithm":
			return once(&seen, 1) && p.string(&r.Algorithm)
		case "label":
			return once(&seen, 2) && p.string(&r.Label)
		case "realization":
			return once(&seen, 4) && p.int(&r.Realization)
		case "actions":
			return once(&seen, 8) && p.ints(&r.Actions, spare.Actions)
		case "regret":
			return once(&seen, 16) && p.floats(&r.Regret, spare.Regret)
		case "reachable_regret":
			return once(&seen, 32) && p.floats(&r.ReachableRegret, spare.ReachableRegret)
		case "violations":
			return once(&seen, 64) && p.int(&r.Violations)
		case "safe_set_size":
			return once(&seen, 128) && p.ints(&r.SafeSetSize, spare.SafeSetSize)
		case "exploration_rounds":
			return once(&seen, 256) && p.int(&r.ExplorationRounds)
		}
		return false
	})
}

// str reads a string without escapes, of valid UTF-8 and no control
// characters: the strings encoding/json decodes to their bytes unchanged.
func (p *lineParser) str() ([]byte, bool) {
	if !p.eat('"') {
		return nil, false
	}
	start := p.i
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			s := p.b[start:p.i]
			p.i++
			return s, utf8.Valid(s)
		case c == '\\' || c < 0x20:
			return nil, false
		}
		p.i++
	}
	return nil, false
}

func (p *lineParser) string(dst *string) bool {
	s, ok := p.str()
	if ok {
		*dst = string(s)
	}
	return ok
}

// number reads a JSON number's literal (RFC 8259 §6); integer reports
// whether it has neither fraction nor exponent.
func (p *lineParser) number() (lit []byte, integer, ok bool) {
	start := p.i
	p.eat('-')
	if p.eat('0') {
		// a leading zero stands alone
	} else if !p.digits() {
		return nil, false, false
	}
	integer = true
	if p.eat('.') {
		integer = false
		if !p.digits() {
			return nil, false, false
		}
	}
	if p.eat('e') || p.eat('E') {
		integer = false
		if !p.eat('+') {
			p.eat('-')
		}
		if !p.digits() {
			return nil, false, false
		}
	}
	return p.b[start:p.i], integer, true
}

// digits reads one or more decimal digits.
func (p *lineParser) digits() bool {
	start := p.i
	for p.i < len(p.b) && '0' <= p.b[p.i] && p.b[p.i] <= '9' {
		p.i++
	}
	return p.i > start
}

// int reads an integer as encoding/json does into an int field
// (strconv.ParseInt of the literal; a fraction or exponent is its error).
func (p *lineParser) int(dst *int) bool {
	lit, integer, ok := p.number()
	if !ok || !integer {
		return false
	}
	n, err := strconv.ParseInt(string(lit), 10, strconv.IntSize)
	if err != nil {
		return false
	}
	*dst = int(n)
	return true
}

// float reads a number as encoding/json does into a float64 field
// (strconv.ParseFloat of the literal, 64 bits).
func (p *lineParser) float() (float64, bool) {
	lit, _, ok := p.number()
	if !ok {
		return 0, false
	}
	x, err := strconv.ParseFloat(string(lit), 64)
	return x, err == nil
}

// ints and floats read an array into buf's array, or a new one when buf
// has none: a slice empty but not nil for [], as encoding/json makes it.
func (p *lineParser) ints(dst *[]int, buf []int) bool {
	if !p.eat('[') {
		return false
	}
	s := buf[:0]
	if s == nil {
		s = make([]int, 0, p.count())
	}
	if !p.eat(']') {
		for {
			var n int
			if !p.int(&n) {
				return false
			}
			s = append(s, n)
			if p.eat(']') {
				break
			}
			if !p.eat(',') {
				return false
			}
		}
	}
	*dst = s
	return true
}

func (p *lineParser) floats(dst *[]float64, buf []float64) bool {
	if !p.eat('[') {
		return false
	}
	s := buf[:0]
	if s == nil {
		s = make([]float64, 0, p.count())
	}
	if !p.eat(']') {
		for {
			x, ok := p.float()
			if !ok {
				return false
			}
			s = append(s, x)
			if p.eat(']') {
				break
			}
			if !p.eat(',') {
				return false
			}
		}
	}
	*dst = s
	return true
}

// count estimates the elements of the flat array starting at p.i (one
// more than its commas before the first ']'), so that its slice is made
// once.
func (p *lineParser) count() int {
	n := 1
	for _, c := range p.b[p.i:] {
		switch c {
		case ',':
			n++
		case ']':
			return n
		}
	}
	return n
}
