//go:build !unix

package discovery_test

import "time"

// catalogCPU reports no CPU time where getrusage is missing.
func catalogCPU() (time.Duration, bool) { return 0, false }
