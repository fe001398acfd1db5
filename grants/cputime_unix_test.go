//go:build unix

package grants

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time the process has used (user and system): a benchmark
// reports it per operation as well, since on a loaded machine the wall time also counts
// the time other processes held the CPU.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
