package shard

import (
	"bytes"
	"io"
	"testing"
)

// BenchmarkLineReader reads 64 MiB of runs.jsonl-like lines: short ones
// (2 KiB, within the reader's buffer) and long ones (1 MiB, in pieces).
func BenchmarkLineReader(b *testing.B) {
	for _, c := range []struct {
		name string
		line int
	}{{"2KiB", 2 << 10}, {"1MiB", 1 << 20}} {
		line := append(bytes.Repeat([]byte("x"), c.line-1), '\n')
		data := bytes.Repeat(line, (64<<20)/c.line)
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				lr := NewLineReader(bytes.NewReader(data), 1<<30)
				for {
					if _, err := lr.Next(); err == io.EOF {
						break
					} else if err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
