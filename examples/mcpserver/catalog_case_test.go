package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The server refuses to start with a catalog whose tool holds two member names that
// differ only by case (inputSchema and inputschema: served strict, enforced loose):
// it exits non-zero and says on stderr which tool, by index and, when readable, by
// name, quoting nothing else of it (SPEC CALL-2, CONTRACT-1, ERR-2).
func TestCatalogCaseTwinRefused(t *testing.T) {
	const secret = "SECRET_CONTENT"
	for _, tc := range []struct {
		what, catalog string
		want, wantNot []string
	}{
		{
			what: "inputSchema twin",
			catalog: `[{"name":"ok_tool","description":"fine","inputSchema":{"type":"object"}},
				{"name":"twin_tool","description":"` + secret + `","inputSchema":{"type":"object","properties":{"` + secret + `":{"type":"integer"}},"additionalProperties":false},"inputschema":{"type":"object"}}]`,
			want:    []string{"tool 1: member names differing only by case", `(name "twin_tool")`},
			wantNot: []string{secret, "inputschema", "listening"},
		},
		{
			what:    "readOnlyHint twin, unreadable name",
			catalog: `[{"name":"` + secret + ` not a tool name","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":false,"readonlyhint":true}}]`,
			want:    []string{"tool 0: member names differing only by case"},
			wantNot: []string{secret, "readonlyhint", "name \""},
		},
		{
			what:    "lone InputSchema",
			catalog: `[{"name":"wrong_case","description":"` + secret + `","InputSchema":{"type":"object"}}]`,
			want:    []string{"tool 0: inputSchema", `(name "wrong_case")`},
			wantNot: []string{secret},
		},
	} {
		t.Run(tc.what, func(t *testing.T) {
			t.Run(tc.what, func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "catalog.json")
				if err := os.WriteFile(path, []byte(tc.catalog), 0o600); err != nil {
					t.Fatal(err)
				}
				cmd := command(t, true, "-catalog", path)
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				cmd.Stdin = strings.NewReader("") // a server that starts ends at EOF, exiting 0
				cmd.WaitDelay = 10 * time.Second
				err := cmd.Run()
				var exit *exec.ExitError
				if !errors.As(err, &exit) || exit.ExitCode() == 0 {
					t.Fatalf("mcpserver -catalog (%s) = %v, want a non-zero exit; stderr:\n%s", tc.what, err, stderr.String())
				}
				for _, w := range tc.want {
					if !strings.Contains(stderr.String(), w) {
						t.Errorf("stderr lacks %q:\n%s", w, stderr.String())
					}
				}
				for _, w := range tc.wantNot {
					if strings.Contains(stderr.String(), w) {
						t.Errorf("stderr holds %q:\n%s", w, stderr.String())
					}
				}
			})
		})
	}
}
