//go:build !unix

package fit

import "time"

// cpuTime is not measured here.
func cpuTime() time.Duration { return 0 }
