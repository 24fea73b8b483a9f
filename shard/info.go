package shard

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/safegp/safegp/internal/readlimit"
)

// File is the file a shard folder holds beside its runs.
const File = "shard.json"

// Format is the version of File's format.
const Format = 1

// ErrShards reports shard folders that cannot be merged.
var ErrShards = errors.New("cannot merge shards")

// Info is the content of shard.json.
type Info struct {
	Format int `json:"format"`
	// Command is the command that wrote the shard: run, reproduce, sweep.
	Command string `json:"command"`
	// ConfigSHA256 is the SHA-256 of the canonical configuration (the
	// JSON of results.json's config for one configuration, ConfigHash);
	// shards merge only with the same.
	ConfigSHA256 string `json:"config_sha256"`
	Shard        int    `json:"shard"`
	Of           int    `json:"of"`
	// Total is the number of units of the whole work this folder holds a
	// share of, Units the 0-based units it holds, ascending: for one
	// configuration, a·R + r; for a command's top folder, the command's
	// numbering.
	Total int   `json:"total"`
	Units []int `json:"units"`
	// Name is the configuration's name (its file's base name), for the
	// figure's title.
	Name string `json:"name,omitempty"`
	// Band is the figure's band (run --band: std, se or none; "" for se),
	// so that the merge draws the figure the unsharded run would.
	Band string `json:"band,omitempty"`
	// Config is the configuration as results.json holds it (one
	// configuration's folder).
	Config json.RawMessage `json:"config,omitempty"`
	// Seconds is the wall time the shard took.
	Seconds float64 `json:"seconds,omitempty"`
	// Finished marks a folder that holds every unit (Units lists 0 …
	// Total−1) and, beside runs.jsonl, the output the unsharded command
	// writes for the configuration — results.json, summary.csv, the
	// figures — written by that command's own code: a merge copies it
	// (a sweep's cell that one shard held whole). Its runs.jsonl is a
	// full shard's, so a merge that does not copy reads it as any other.
	Finished bool `json:"finished,omitempty"`
	// Table is what the command's merge needs of a finished folder
	// besides its files, in the command's own encoding (a sweep cell's
	// rows of the sweep's table), so that it need not read the runs.
	Table json.RawMessage `json:"table,omitempty"`
}

// Hash is the SHA-256, in hex, of data: of a configuration's JSON
// (json.Marshal(c), results.json's config) for one configuration.
func Hash(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

// maxShardFile bounds a shard.json: a configuration (at most
// readlimit.MaxDocument) and the list of the shard's units.
const maxShardFile = 64 << 20

// Read reads dir's shard.json; a folder without one is not a shard.
func Read(dir string) (*Info, error) {
	b, err := readlimit.ReadFile(filepath.Join(dir, File), maxShardFile, "a shard.json may hold")
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s is not a shard folder (it has no %s; write shards with --shard i/n)", ErrShards, dir, File)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrShards, err)
	}
	var s Info
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrShards, filepath.Join(dir, File), err)
	}
	if len(s.Config) > 0 {
		// shard.json is indented; results.json holds the configuration as
		// json.Marshal writes it, which Compact restores (it removes only
		// the whitespace Indent added), and whose hash it must have.
		var b bytes.Buffer
		if err := json.Compact(&b, s.Config); err != nil {
			return nil, fmt.Errorf("%w: %s: config: %w", ErrShards, filepath.Join(dir, File), err)
		}
		s.Config = b.Bytes()
		if Hash(s.Config) != s.ConfigSHA256 {
			return nil, fmt.Errorf("%w: %s: the configuration does not have the SHA-256 it states (edited?)", ErrShards, filepath.Join(dir, File))
		}
	}
	if s.Format != Format {
		return nil, fmt.Errorf("%w: %s: format %d, this safegp reads %d", ErrShards, filepath.Join(dir, File), s.Format, Format)
	}
	if s.Of < 1 || s.Shard < 1 || s.Shard > s.Of || s.Total < 0 || !sort.IntsAreSorted(s.Units) ||
		(len(s.Units) > 0 && (s.Units[0] < 0 || s.Units[len(s.Units)-1] >= s.Total)) {
		return nil, fmt.Errorf("%w: %s: not a consistent shard (shard %d/%d, %d of %d units)", ErrShards, filepath.Join(dir, File), s.Shard, s.Of, len(s.Units), s.Total)
	}
	return &s, nil
}

// Write writes s as dir's shard.json.
func Write(dir string, s *Info) error {
	b, err := json.MarshalIndent(s, "", " ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, File), append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", File, err)
	}
	return nil
}

// Check reads the shard.json of every folder and checks that they
// are the n shards, each once, of one command on one configuration, and
// that their units cover the work exactly once. It returns them in the
// order of dirs, and for each unit (0 … Total−1) the index into dirs of
// the shard holding it.
func Check(dirs []string) ([]*Info, []int, error) {
	if len(dirs) == 0 {
		return nil, nil, fmt.Errorf("%w: no shard folders given", ErrShards)
	}
	infos := make([]*Info, len(dirs))
	for k, d := range dirs {
		s, err := Read(d)
		if err != nil {
			return nil, nil, err
		}
		infos[k] = s
	}
	if err := checkSet(dirs, infos); err != nil {
		return nil, nil, err
	}
	owner, err := owners(dirs, infos)
	if err != nil {
		return nil, nil, err
	}
	return infos, owner, nil
}

// checkSet checks that infos (read from dirs) are the shards 1…n of one
// run, each once: the same command, configuration, name, band and n.
func checkSet(dirs []string, infos []*Info) error {
	f := infos[0]
	by := map[int]int{} // shard i → index into dirs
	for k, s := range infos {
		if err := sameRun(dirs[0], dirs[k], f, s); err != nil {
			return err
		}
		if j, ok := by[s.Shard]; ok {
			return fmt.Errorf("%w: %s and %s are both shard %d/%d (overlapping shards): give each shard's folder once", ErrShards, dirs[j], dirs[k], s.Shard, s.Of)
		}
		by[s.Shard] = k
	}
	var missing []string
	for i := 1; i <= f.Of; i++ {
		if _, ok := by[i]; !ok {
			missing = append(missing, fmt.Sprintf("%d/%d", i, f.Of))
		}
	}
	if len(missing) > 0 {
		noun := "shard"
		if len(missing) > 1 {
			noun = "shards"
		}
		return fmt.Errorf("%w: missing %s %s (given %s): run the same command with --shard for each and add their folders", ErrShards, noun, strings.Join(missing, ", "), strings.Join(dirs, ", "))
	}
	return nil
}

// sameRun refuses shard s (in folder dir) unless it is a shard of the
// same run as f (in first).
func sameRun(first, dir string, f, s *Info) error {
	switch {
	case s.Command != f.Command:
		return fmt.Errorf("%w: %s is a shard of `safegp %s` but %s of `safegp %s`", ErrShards, first, f.Command, dir, s.Command)
	case s.ConfigSHA256 != f.ConfigSHA256 || s.Total != f.Total:
		return fmt.Errorf("%w: %s and %s are shards of different configurations (SHA-256 %.12s… and %.12s…)", ErrShards, first, dir, f.ConfigSHA256, s.ConfigSHA256)
	case s.Name != f.Name:
		// The name titles the figures: one merge, one title.
		return fmt.Errorf("%w: %s and %s are shards of configurations named %q and %q", ErrShards, first, dir, f.Name, s.Name)
	case s.Band != f.Band:
		return fmt.Errorf("%w: %s and %s are shards of runs with --band %q and %q", ErrShards, first, dir, f.Band, s.Band)
	case s.Of != f.Of:
		return fmt.Errorf("%w: %s is shard %d/%d but %s is shard %d/%d: shards of different n", ErrShards, first, f.Shard, f.Of, dir, s.Shard, s.Of)
	}
	return nil
}

// owners returns, for each unit 0 … Total−1, the index into dirs of the
// shard holding it, refusing a unit held twice or by none.
func owners(dirs []string, infos []*Info) ([]int, error) {
	owner := make([]int, infos[0].Total)
	for u := range owner {
		owner[u] = -1
	}
	for k, s := range infos {
		for _, u := range s.Units {
			if owner[u] >= 0 {
				return nil, fmt.Errorf("%w: unit %d is in both %s and %s (overlapping shards)", ErrShards, u, dirs[owner[u]], dirs[k])
			}
			owner[u] = k
		}
	}
	for u, k := range owner {
		if k < 0 {
			return nil, fmt.Errorf("%w: unit %d is in none of %s (missing units)", ErrShards, u, strings.Join(dirs, ", "))
		}
	}
	return owner, nil
}
