package main

import "github.com/deferredtools/deferredtools/discovery"

// switchState is the line the server prints to stderr at start: whether discovery is
// on, and what off means.
func switchState(on bool) string {
	if on {
		return "discovery on: tools/list narrowed to the caller's grants, tools/call gated, the " +
			discovery.DefaultMethod + " method answered"
	}
	return "discovery off: every tool listed and callable, grants not read, the " +
		discovery.DefaultMethod + " method unknown (set " + discovery.SwitchVariable + "=true to turn it on)"
}
