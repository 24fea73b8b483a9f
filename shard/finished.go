package shard

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/safegp/safegp/internal/outdir"
)

// CopyFinished copies into dir (which it creates) the folder among dirs —
// one configuration's folder in each shard — that one shard wrote
// finished (Info.Finished: every unit, and the output the unsharded
// command writes), after Check has checked the set; it returns that
// folder's Info, or nil when no shard holds the configuration whole.
// needs are the files a finished folder must hold, not empty, and lines
// the one of them that must hold a line per unit: a folder that lost one
// (an interrupted copy from a cluster node, a quota) is refused, as the
// line merge it replaces would refuse it. What is copied is what the
// unsharded command writes: its regular files and outdir's marker, not
// shard.json nor what a file browser or a copy left there.
func CopyFinished(dir string, dirs []string, needs []string, lines string) (*Info, error) {
	infos, _, err := Check(dirs)
	if err != nil {
		return nil, err
	}
	k := slices.IndexFunc(infos, func(in *Info) bool { return in.Finished })
	if k < 0 {
		return nil, nil
	}
	if len(infos[k].Units) != infos[k].Total {
		return nil, fmt.Errorf("%w: %s is marked finished but holds %d of the configuration's %d units", ErrShards, filepath.Join(dirs[k], File), len(infos[k].Units), infos[k].Total)
	}
	if err := checkFinished(dirs[k], needs, lines, infos[k].Total); err != nil {
		return nil, err
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, fmt.Errorf("write output: %w", err)
	}
	entries, err := os.ReadDir(dirs[k])
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrShards, err)
	}
	for _, e := range entries {
		name := e.Name()
		if name == File || !e.Type().IsRegular() || (strings.HasPrefix(name, ".") && name != outdir.Marker) {
			continue
		}
		if err := copyFile(filepath.Join(dir, name), filepath.Join(dirs[k], name)); err != nil {
			return nil, fmt.Errorf("write output: %w", err)
		}
	}
	return infos[k], nil
}

// checkFinished refuses a finished folder without one of needs (or with
// an empty one), or whose file lines does not hold total complete lines.
func checkFinished(dir string, needs []string, lines string, total int) error {
	for _, name := range needs {
		if st, err := os.Stat(filepath.Join(dir, name)); err != nil || st.Size() == 0 {
			return fmt.Errorf("%w: %s: the finished folder has no %s (or an empty one)", ErrShards, dir, name)
		}
	}
	f, err := os.Open(filepath.Join(dir, lines))
	if err != nil {
		return fmt.Errorf("%w: %w", ErrShards, err)
	}
	defer f.Close()
	// Counted in blocks: the runs may be larger than memory.
	buf := make([]byte, BufSize)
	n, last := 0, byte(0)
	for {
		k, err := f.Read(buf)
		n += bytes.Count(buf[:k], []byte{'\n'})
		if k > 0 {
			last = buf[k-1]
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("%w: %w", ErrShards, err)
		}
	}
	if n != total || last != '\n' {
		return fmt.Errorf("%w: %s holds %d complete lines, its %s %d runs", ErrShards, filepath.Join(dir, lines), n, File, total)
	}
	return nil
}

// copyFile copies the file src to dst (a new file).
func copyFile(dst, src string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
