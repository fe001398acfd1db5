package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// readmeBlock is one ```go block of the README and the Example or test it names.
type readmeBlock struct {
	line       int      // 1-based line of the opening fence
	code       []string // the block's lines
	fn, path   string   // the function named beside it and its file, relative to the root
	marker     string
	standalone bool // a whole program, built and run by the named test itself
}

// snippetMarker is the note after each Go block: "(this is `Name` in path/file_test.go".
var snippetMarker = regexp.MustCompile("^\\(this is (the program )?`([A-Za-z0-9_]+)` in ([A-Za-z0-9_./-]+\\.go)")

// readmeBlocks returns every ```go block of README.md with the function its note names,
// failing the test for a block without a note.
func readmeBlocks(t *testing.T) []readmeBlock {
	t.Helper()
	data, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	var out []readmeBlock
	for i := 0; i < len(lines); i++ {
		if lines[i] != "```go" {
			continue
		}
		b := readmeBlock{line: i + 1}
		for i++; i < len(lines) && lines[i] != "```"; i++ {
			b.code = append(b.code, lines[i])
		}
		j := i + 1
		for j < len(lines) && strings.TrimSpace(lines[j]) == "" {
			j++
		}
		if j >= len(lines) {
			t.Errorf("README.md:%d: a Go block without a note naming its Example or test", b.line)
			continue
		}
		m := snippetMarker.FindStringSubmatch(lines[j])
		if m == nil {
			t.Errorf("README.md:%d: the Go block is not followed by \"(this is `Name` in file_test.go ...)\", but by %q", b.line, lines[j])
			continue
		}
		para := lines[j]
		for k := j + 1; k < len(lines) && strings.TrimSpace(lines[k]) != ""; k++ {
			para += " " + lines[k]
		}
		b.standalone, b.fn, b.path, b.marker = m[1] != "", m[2], m[3], para
		out = append(out, b)
	}
	return out
}

// funcBody returns the lines of function name in the Go file at path, or nil.
func funcBody(src, name string) []string {
	lines := strings.Split(src, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "func "+name+"(") {
			for j := i + 1; j < len(lines); j++ {
				if lines[j] == "}" {
					return lines[i+1 : j]
				}
			}
		}
	}
	return nil
}

// Every Go snippet of the README is part of a compiled, run Example or test: its
// lines (trimmed; "// ..." marks an elision) appear in that order in the function its
// note names, and that function is an Example or Test, or is called by the one the
// note names after "run by". A whole program is built and run by its named test, which
// must exist.
func TestREADMESnippets(t *testing.T) {
	blocks := readmeBlocks(t)
	if len(blocks) < 5 {
		t.Fatalf("found %d Go blocks in README.md; the parser lost them", len(blocks))
	}
	for _, b := range blocks {
		src, err := os.ReadFile(filepath.Join("..", b.path))
		if err != nil {
			t.Errorf("README.md:%d names %s: %v", b.line, b.path, err)
			continue
		}
		if !strings.HasSuffix(b.path, "_test.go") {
			t.Errorf("README.md:%d names %s, which is not a test file", b.line, b.path)
		}
		body := funcBody(string(src), b.fn)
		if body == nil {
			t.Errorf("README.md:%d names %s in %s, which has no such function", b.line, b.fn, b.path)
			continue
		}
		if b.standalone {
			if !strings.HasPrefix(b.fn, "Test") || len(b.code) == 0 || b.code[0] != "package main" {
				t.Errorf("README.md:%d: a program block must start with package main and name the test that builds it", b.line)
			}
			continue
		}
		if !strings.HasPrefix(b.fn, "Example") && !strings.HasPrefix(b.fn, "Test") {
			runner := regexp.MustCompile("run by `([A-Za-z0-9_]+)`").FindStringSubmatch(b.marker)
			if runner == nil || funcBody(string(src), runner[1]) == nil ||
				!strings.Contains(strings.Join(funcBody(string(src), runner[1]), "\n"), b.fn+"(") {
				t.Errorf("README.md:%d: %s is no Example or test, and its note names none in %s that calls it", b.line, b.fn, b.path)
			}
		}
		var have []string
		for _, l := range body {
			have = append(have, strings.TrimSpace(l))
		}
		k := 0
		for n, l := range b.code {
			want := strings.TrimSpace(l)
			if want == "" || want == "// ..." {
				continue
			}
			at := slices.Index(have[k:], want)
			if at < 0 {
				t.Errorf("README.md:%d: line %d of the snippet, %q, is not in %s (%s) after the lines before it", b.line, n+1, want, b.fn, b.path)
				break
			}
			k += at + 1
		}
	}
}

// The README's list of runnable examples names every Example function of the
// repository (bench/ aside) on the line of its file.
func TestREADMEListsExamples(t *testing.T) {
	data, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]string{} // file -> its item in the list, continuation lines joined
	last := ""
	for _, l := range strings.Split(string(data), "\n") {
		if path, _, ok := strings.Cut(strings.TrimPrefix(l, "- "), ": `"); ok && strings.HasPrefix(l, "- ") && strings.HasSuffix(path, "_test.go") {
			listed[path], last = l, path
		} else if last != "" && strings.HasPrefix(l, "  ") {
			listed[last] += " " + l
		} else {
			last = ""
		}
	}
	exampleFunc := regexp.MustCompile(`(?m)^func (Example[A-Za-z0-9_]*)\(`)
	found := 0
	err = filepath.WalkDir("..", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel("..", path)
		if d.IsDir() && (rel == "bench" || strings.HasPrefix(d.Name(), ".")) && rel != "." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range exampleFunc.FindAllStringSubmatch(string(src), -1) {
			found++
			if !strings.Contains(listed[filepath.ToSlash(rel)], "`"+m[1]+"`") {
				t.Errorf("README.md's Runnable examples lacks %s of %s", m[1], rel)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found < 20 {
		t.Fatalf("found %d Example functions; the walk lost them", found)
	}
}
