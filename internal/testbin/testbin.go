package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// Build runs `go build -o out [flags] pkg` in dir (the caller's package
// directory when empty), one such build at a time on this machine, and
// returns the command's output with any error.
func Build(dir, out, pkg string, flags ...string) ([]byte, error) {
	unlock, err := lock(filepath.Join(os.TempDir(), "safegp-testbin.lock"))
	if err != nil {
		return nil, fmt.Errorf("testbin: %w", err)
	}
	defer unlock()
	cmd := exec.Command("go", append(append([]string{"build", "-o", out}, flags...), pkg)...)
	cmd.Dir = dir
	return cmd.CombinedOutput()
}
