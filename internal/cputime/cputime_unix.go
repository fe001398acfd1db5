//go:build unix

package cputime

import (
	"syscall"
	"time"
)

// Process answers the CPU time (user + system) the process has used so far; ok is false
// when getrusage fails.
func Process() (d time.Duration, ok bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
