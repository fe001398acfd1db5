package main

import (
	"os"
	"path/filepath"
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
	// A command group's help (grants -h, catalog help) is a help request too.
	for _, args := range [][]string{{"grants", "-h"}, {"catalog", "-help"}, {"rank", "--help"}, {"grants", "help"}} {
		r := cli(t, args...)
		if r.code != 0 || !strings.HasPrefix(r.stdout, "usage:") || r.stderr != "" {
			t.Errorf("deferredtools %q = exit %d, stdout %q, stderr %q; want exit 0 and the usage on stdout", args, r.code, r.stdout, r.stderr)
		}
	}
}

// A file the command cannot read is refused with why (no such file, a directory, no
// permission) beside which file it is, never the file's content.
func TestFileReadReason(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.json")
	tools := writeFile(t, "tools.json", `[{"name": "a", "inputSchema": {"type": "object"}}]`)
	refused(t, "cannot read the catalog file: no such file", "catalog", "check", missing)
	refused(t, "cannot read the catalog file: it is a directory", "catalog", "check", dir)
	refused(t, "cannot read the meta tools file: no such file", "catalog", "check", tools, "-meta-tools", missing)
	refused(t, "cannot read the catalog file: no such file", "rank", "eval", "-catalog", missing, "-queries", tools)
	refused(t, "cannot read the queries file: no such file", "rank", "eval", "-catalog", tools, "-queries", missing)
	refused(t, "the catalog file is empty", "catalog", "check", writeFile(t, "empty.json", " \n"))
	if os.Geteuid() != 0 { // root reads any file
		locked := writeFile(t, "locked.json", "[]")
		if err := os.Chmod(locked, 0); err != nil {
			t.Fatal(err)
		}
		refused(t, "cannot read the catalog file: permission denied", "catalog", "check", locked)
	}
}

// rank eval says which of its two files is malformed, and a -meta-tools refusal says
// it is the meta tools file's; neither quotes content.
func TestWhichFileMalformed(t *testing.T) {
	cat := writeFile(t, "tools.json", `[{"name": "a", "description": "x"}]`)
	qs := writeFile(t, "queries.json", `[{"query": "a", "relevant": ["a"]}]`)
	refused(t, "the catalog file is not the JSON rank eval reads", "rank", "eval", "-catalog", writeFile(t, "c.json", `{"name": "SECRET"}`), "-queries", qs)
	refused(t, "the queries file is not the JSON rank eval reads", "rank", "eval", "-catalog", cat, "-queries", writeFile(t, "q.json", `[{"query": 1}]`))
	tools := writeFile(t, "t.json", `[{"name": "a", "inputSchema": {"type": "object"}}]`)
	refused(t, "the meta tools file: metatool: declarations refused: member", "catalog", "check", tools, "-meta-tools", writeFile(t, "m.json", `{"SECRET": 1}`))
	for _, args := range [][]string{
		{"rank", "eval", "-catalog", writeFile(t, "c2.json", `{"name": "SECRET"}`), "-queries", qs},
		{"catalog", "check", tools, "-meta-tools", writeFile(t, "m2.json", `{"SECRET": 1}`)},
	} {
		if r := cli(t, args...); strings.Contains(r.stderr+r.stdout, "SECRET") {
			t.Errorf("deferredtools %q quoted the file: %q", args, r.stderr)
		}
	}
}

// A -db sqlite:PATH naming a file that is not a SQLite database is refused as such,
// by every subcommand, and left unchanged; it answered "storage unavailable".
func TestNotSQLite(t *testing.T) {
	const text = "SECRET, not a database\n"
	path := writeFile(t, "notes.txt", text)
	for _, args := range [][]string{
		{"migrate", "-db", "sqlite:" + path},
		{"grants", "list", "-db", "sqlite:" + path},
		{"grants", "allow", "-db", "sqlite:" + path, "-principal", "p", "-tool", "t"},
	} {
		refused(t, "deferredtools: the -db file is not a SQLite database", args...)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != text {
		t.Errorf("the file now holds %q (%v), want it unchanged", b, err)
	}
}

// SPEC CALL-4: catalog check -validator checks the catalog under the Compiler the host
// will give CatalogOptions: strict (the default Compiler), annotations
// (validate.AnnotationKeywords accepted) or full (validate.NewFull); another value is
// a usage error.
func TestCatalogCheckValidator(t *testing.T) {
	path := writeFile(t, "tools.json", `[
		{"name": "annotated", "inputSchema": {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "properties": {"q": {"type": "string", "title": "Q"}}}},
		{"name": "refs", "inputSchema": {"type": "object", "$defs": {"s": {"type": "string"}}, "properties": {"q": {"$ref": "#/$defs/s"}}}}]`)
	for _, c := range []struct{ validator, want string }{
		{"", "annotated\t503: stopped by $schema\t|refs\t503: stopped by $defs\t|2 not enforced"},
		{"strict", "annotated\t503: stopped by $schema\t|refs\t503: stopped by $defs\t|2 not enforced"},
		{"annotations", "annotated\tenforced\t|refs\t503: stopped by $defs\t|1 not enforced"},
		{"full", "annotated\tenforced\t|refs\tenforced\t|0 not enforced"},
	} {
		args := []string{"catalog", "check", path}
		if c.validator != "" {
			args = append(args, "-validator", c.validator)
		}
		r := cli(t, args...)
		for _, w := range strings.Split(c.want, "|") {
			if !strings.Contains(r.stdout, w) {
				t.Errorf("deferredtools %q printed %q, want it to hold %q", args, r.stdout, w)
			}
		}
	}
	if r := cli(t, "catalog", "check", path, "-validator", "loose"); r.code != 2 || !strings.Contains(r.stderr, "-validator") {
		t.Errorf("-validator loose = exit %d, stderr %q; want exit 2 naming -validator", r.code, r.stderr)
	}
}
