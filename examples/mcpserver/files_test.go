package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A -catalog, -grants or -tokens file that is not JSON, or holds a value of the wrong
// type, is refused naming the flag and the byte where the fault is (counted from 1),
// never a character of the file: encoding/json's syntax errors quote the offending
// character, its type errors the path to the value, and a -tokens file holds bearer
// tokens (SPEC ERR-2 in spirit: a secret of the operator's is not echoed to logs).
func TestFileSyntaxErrorQuotesNothing(t *testing.T) {
	write := tempFiles(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-catalog", write("c.json", `[{"name": "a"}, Zsecret]`)}, "-catalog: not a JSON array of tool definitions: syntax error at byte 17"},
		{[]string{"-grants", write("g.json", `[Zsecret]`)}, "-grants: not a JSON array of grant rows: syntax error at byte 2"},
		{[]string{"-http", "127.0.0.1:0", "-tokens", write("t.json", `{"tok": Zsecret}`)}, "-tokens: not a JSON object of token entries: syntax error at byte 9"},
		{[]string{"-http", "127.0.0.1:0", "-tokens", write("t2.json", "{\"Zsecret\n\": {}}")}, "-tokens: not a JSON object of token entries: syntax error at byte 10"},
		// A value of the wrong type: encoding/json names the field by its path, whose map
		// keys are the bearer tokens (with GOEXPERIMENT=jsonv2: "Go struct field
		// .tok-Zsecret.principal"), so only the kind of fault and its byte are given.
		{[]string{"-http", "127.0.0.1:0", "-tokens", write("t3.json", `{"tok-Zsecret": "x"}`)}, "-tokens: not a JSON object of token entries: a value of the wrong type near byte 19"},
		{[]string{"-http", "127.0.0.1:0", "-tokens", write("t4.json", `{"tok-Zsecret": {"principal": 5}}`)}, "-tokens: not a JSON object of token entries: a value of the wrong type near byte 31"},
		{[]string{"-grants", write("g2.json", `[{"principal": "Zsecret", "tool": 5}]`)}, "-grants: not a JSON array of grant rows: a value of the wrong type near byte 35"},
	} {
		var stderr bytes.Buffer
		err := run(context.Background(), c.args, strings.NewReader(""), &bytes.Buffer{}, &stderr, func(string) (string, bool) { return "true", true })
		if err == nil || err.Error() != c.want {
			t.Errorf("mcpserver %q: err %v, want %q", c.args, err, c.want)
		}
		if err != nil && strings.ContainsAny(err.Error(), "Z\n") || strings.Contains(stderr.String(), "Zsecret") {
			t.Errorf("mcpserver %q quoted the file: err %v, stderr %q", c.args, err, stderr.String())
		}
	}
}

// -h prints the flags and exits 0; it printed "mcpserver: flag: help requested" and
// exited 1, as for a refusal.
func TestHelpFlag(t *testing.T) {
	for _, arg := range []string{"-h", "-help"} {
		var stderr bytes.Buffer
		cmd := command(t, false, arg)
		cmd.Stderr = &stderr
		err := cmd.Run()
		if err != nil || !strings.Contains(stderr.String(), "-catalog FILE") || strings.Contains(stderr.String(), "help requested") {
			t.Errorf("mcpserver %s: %v, stderr %q; want exit 0 and the flags", arg, err, stderr.String())
		}
	}
}

// tempFiles returns write, which writes text to the file name in a directory of the
// test's own and returns its path.
func tempFiles(t *testing.T) func(name, text string) string {
	dir := t.TempDir()
	return func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
}

// A -catalog tool the go-sdk will not register (an input schema whose type is not
// "object", which mcp.Server.AddTool answers with a panic) or cannot read (a member of
// another type than its Tool's, which discovery.NewCatalog does not check) is refused as
// any bad catalog: exit status 1 and one line on stderr naming the flag and the tool.
// The first was a panic, exit status 2 and a goroutine trace; the second named no flag
// and gave encoding/json's text, which names the go-sdk's Go types.
func TestCatalogToolSDKRefuses(t *testing.T) {
	write := tempFiles(t)
	const notObject = `mcpserver: -catalog: tool "odd": the go-sdk cannot serve it: its input schema is no object schema`
	for _, c := range []struct{ rest, want string }{
		{`"inputSchema":{"type":"string"}`, notObject},
		{`"inputSchema":{"properties":{}}`, notObject},
		{`"inputSchema":{"type":"object"},"annotations":{"title":5}`, `mcpserver: -catalog: tool "odd": the go-sdk cannot read it: a member of the wrong type`},
		{`"inputSchema":{"type":"object"},"icons":[{"src":5}]`, `mcpserver: -catalog: tool "odd": the go-sdk cannot read it: a member of the wrong type`},
	} {
		catalog := write("c.json", `[{"name":"ok","description":"Fine.","inputSchema":{"type":"object"}},{"name":"odd","description":"Odd.",`+c.rest+`}]`)
		var stderr bytes.Buffer
		cmd := command(t, true, "-catalog", catalog)
		cmd.Stdin, cmd.Stderr = strings.NewReader(""), &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 1 || strings.Contains(stderr.String(), "goroutine") ||
			strings.TrimSpace(stderr.String()) != c.want {
			t.Errorf("tool %s: %v, stderr %q; want exit status 1 and %q", c.rest, err, stderr.String(), c.want)
		}
	}
}
