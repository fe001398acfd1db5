//go:build !unix

package cputime

import "time"

// Process reports no CPU time where getrusage is missing.
func Process() (d time.Duration, ok bool) { return 0, false }
