package main

import (
	"strings"
	"testing"
)

// -h, -help, --help and help print the usage on stdout and exit 0, as a help request
// is no usage error; a subcommand's -h prints its flags and the usage, exit 0.
func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"-help"}, {"--help"}, {"help"}} {
		r := cli(t, args...)
		if r.code != 0 || !strings.HasPrefix(r.stdout, "usage:") || r.stderr != "" {
			t.Errorf("deferredtools %q = exit %d, stdout %q, stderr %q; want exit 0 and the usage on stdout", args, r.code, r.stdout, r.stderr)
		}
	}
	for _, args := range [][]string{{"catalog", "check", "-h"}, {"grants", "list", "-h"}, {"rank", "eval", "-help"}, {"migrate", "-h"}} {
		r := cli(t, args...)
		if r.code != 0 || !strings.Contains(r.stderr, "usage:") || strings.Contains(r.stderr, "deferredtools: usage") {
			t.Errorf("deferredtools %q = exit %d, stderr %q; want exit 0, the flags and the usage", args, r.code, r.stderr)
		}
	}
}
