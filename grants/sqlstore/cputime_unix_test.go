//go:build unix

package sqlstore

import (
	"syscall"
	"time"
)

// processCPU answers the CPU time (user + system) the process has used so far, so a
// benchmark can report what an operation costs even on a machine shared with other
// work, where wall time per op also counts time spent waiting for a core.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
