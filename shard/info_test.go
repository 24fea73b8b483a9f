package shard

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadRefuses: a shard.json that is missing, not JSON, of another
// format, whose configuration lost its hash, or that is not a consistent
// shard is ErrShards naming why; Check then refuses sets that are not one
// whole, naming the folders.
func TestReadRefuses(t *testing.T) {
	t.Parallel()
	good := &Info{Format: Format, Command: "run", Shard: 1, Of: 2, Total: 4, Units: []int{0, 2}, Config: []byte(`{"a":1}`), ConfigSHA256: Hash([]byte(`{"a":1}`))}
	for _, c := range []struct {
		name string
		edit func(in *Info) []byte
		want string
	}{
		{"good", nil, ""},
		{"missing", func(*Info) []byte { return nil }, "not a shard folder"},
		{"not json", func(*Info) []byte { return []byte("{") }, "unexpected end"},
		{"format", func(in *Info) []byte { in.Format = 9; return nil }, "format 9"},
		{"hash", func(in *Info) []byte { in.ConfigSHA256 = Hash([]byte("x")); return nil }, "does not have the SHA-256"},
		{"shard beyond n", func(in *Info) []byte { in.Shard = 3; return nil }, "not a consistent shard"},
		{"units unsorted", func(in *Info) []byte { in.Units = []int{2, 0}; return nil }, "not a consistent shard"},
		{"unit beyond total", func(in *Info) []byte { in.Units = []int{0, 4}; return nil }, "not a consistent shard"},
	} {
		dir := t.TempDir()
		in := *good
		var raw []byte
		if c.edit != nil {
			raw = c.edit(&in)
		}
		switch {
		case c.name == "missing":
		case raw != nil:
			if err := os.WriteFile(filepath.Join(dir, File), raw, 0o644); err != nil {
				t.Fatal(err)
			}
		default:
			if err := Write(dir, &in); err != nil {
				t.Fatal(err)
			}
		}
		got, err := Read(dir)
		switch {
		case c.want == "" && (err != nil || string(got.Config) != `{"a":1}`):
			t.Errorf("%s: %+v, %v", c.name, got, err)
		case c.want != "" && (!errors.Is(err, ErrShards) || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want ErrShards saying %q", c.name, err, c.want)
		}
	}

	// Check: the two shards of one whole, and the sets that are not.
	write := func(in Info) string {
		dir := t.TempDir()
		if err := Write(dir, &in); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	one := write(*good)
	two := *good
	two.Shard, two.Units = 2, []int{1, 3}
	other := *good
	other.Command = "sweep"
	overlap := *good
	overlap.Shard, overlap.Units = 2, []int{1, 2}
	short := *good
	short.Shard, short.Units = 2, []int{1}
	band := two
	band.Band = "std"
	named := two
	named.Name = "other"
	config := two
	config.Config = []byte(`{"a":2}`)
	config.ConfigSHA256 = Hash(config.Config)
	ofThree := two
	ofThree.Of = 3
	if infos, owner, err := Check([]string{write(two), one}); err != nil || len(infos) != 2 || owner[0] != 1 || owner[1] != 0 {
		t.Errorf("a whole: %v %v", owner, err)
	}
	for _, c := range []struct {
		name string
		dirs []string
		want string
	}{
		{"none", nil, "no shard folders"},
		{"commands", []string{one, write(other)}, "`safegp sweep`"},
		{"the same twice", []string{one, one}, "both shard 1/2"},
		{"missing", []string{one}, "missing shard 2/2"},
		{"overlap", []string{one, write(overlap)}, "unit 2 is in both"},
		{"short", []string{one, write(short)}, "unit 3 is in none"},
		{"bands", []string{one, write(band)}, `runs with --band "" and "std"`},
		{"names", []string{one, write(named)}, `configurations named "" and "other"`},
		{"configurations", []string{one, write(config)}, "shards of different configurations"},
		{"n", []string{one, write(ofThree)}, "shards of different n"},
	} {
		if _, _, err := Check(c.dirs); !errors.Is(err, ErrShards) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want ErrShards saying %q", c.name, err, c.want)
		}
	}
}
