package store

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math"
)

// ImportDigest is the SHA-256 of an import's rows as the study took them
// (its tell events), which AppendImport records: per row its action's index, or its point outside the
// decision set, its context values (in the spec's order), f, g and its own
// noise_std, each float by its bits (−0 is 0 by then). The same
// measurements give the same digest whether they came as CSV or JSON, by
// index or at the action's point.
func ImportDigest(evs []Event) string {
	h := sha256.New()
	var b []byte
	num := func(v float64) { b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v)) }
	for i := range evs {
		e := &evs[i]
		b = b[:0]
		if e.Index >= 0 {
			b = append(b, 'i')
			b = binary.LittleEndian.AppendUint64(b, uint64(e.Index))
		} else {
			b = append(b, 'x')
			b = binary.LittleEndian.AppendUint32(b, uint32(len(e.X)))
			for _, v := range e.X {
				num(v)
			}
		}
		b = binary.LittleEndian.AppendUint32(b, uint32(len(e.Context)))
		for _, v := range e.Context {
			num(v)
		}
		num(e.F)
		b = binary.LittleEndian.AppendUint32(b, uint32(len(e.G)))
		for _, v := range e.G {
			num(v)
		}
		if e.NoiseStd != nil {
			b = append(b, 'n')
			num(*e.NoiseStd)
		}
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))
}
