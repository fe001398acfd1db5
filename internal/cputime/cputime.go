// Package cputime reads the CPU time the process has used, for benchmarks that report
// what an operation costs on a machine shared with other work, where wall time per
// operation also counts the time spent waiting for a core.
package cputime

import "testing"

// Report starts measuring the process's CPU time and returns a function that, called
// after b's loop, reports it per operation as the metric "cpu-ns/op". Where the
// platform has no CPU time, it reports nothing.
func Report(b *testing.B) func() {
	cpu0, ok := Process()
	return func() {
		if cpu1, _ := Process(); ok && b.N > 0 {
			b.ReportMetric(float64(cpu1-cpu0)/float64(b.N), "cpu-ns/op")
		}
	}
}
