//go:build !unix

package outdir

import "os"

// lock is not available here: Stage writes no owner file, and a folder
// left by a killed process stays until removed by hand.
func lock(*os.File) error { return errLockUnsupported }
