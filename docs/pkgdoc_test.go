package docs

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// docBlocks returns the code blocks of the package doc in the Go source src (of the
// package in directory dir, relative to the root) that a note names a function for:
// "(this is `Name` in file_test.go, run by `Example`" in the paragraph before the
// block, the file relative to the package.
func docBlocks(dir, src string) []readmeBlock {
	var out []readmeBlock
	lines := strings.Split(src, "\n")
	para, last := "", "" // the paragraph being read, the last one read
	for i := 0; i < len(lines) && strings.HasPrefix(lines[i], "//"); i++ {
		text := strings.TrimPrefix(lines[i], "//")
		switch {
		case strings.HasPrefix(text, "\t"):
			para = last
			b := readmeBlock{line: i + 1, marker: para}
			for ; i < len(lines); i++ {
				if lines[i] == "//" && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "//\t") {
					b.code = append(b.code, "") // a blank line inside the block
					continue
				}
				if !strings.HasPrefix(lines[i], "//\t") {
					break
				}
				b.code = append(b.code, strings.TrimPrefix(lines[i], "//\t"))
			}
			i--
			if m := regexp.MustCompile("\\(this is `([A-Za-z0-9_]+)` in ([A-Za-z0-9_./-]+\\.go)").FindStringSubmatch(para); m != nil {
				b.fn, b.path = m[1], dir+"/"+m[2]
				out = append(out, b)
			}
			para, last = "", ""
		case strings.TrimSpace(text) == "":
			if para != "" {
				last = para
			}
			para = ""
		default:
			para += " " + strings.TrimSpace(text)
		}
	}
	return out
}

// quickStarts are the package docs whose quick start must be a checked snippet.
var quickStarts = []string{"mcpsdk/doc.go", "mcpgo/doc.go"}

// docSnippetProblems checks the snippets of the package doc file (a path relative to
// the root) as snippetProblems does the README's.
func docSnippetProblems(file, src string, read func(path string) ([]byte, error)) []string {
	var problems []string
	blocks := docBlocks(filepath.ToSlash(filepath.Dir(file)), lf(src))
	if slices.Contains(quickStarts, file) && !slices.ContainsFunc(blocks, func(b readmeBlock) bool {
		return strings.Contains(b.marker, "Quick start")
	}) {
		problems = append(problems, file+": the quick start is not followed by a note naming its function")
	}
	for _, b := range blocks {
		problems = append(problems, blockProblems(b, fmt.Sprintf("%s:%d: ", file, b.line), read)...)
	}
	return problems
}

// Every package doc's code block that names its function (the quick starts of mcpsdk
// and mcpgo must) is that function's body exactly as shown, but where "// ..." stands,
// and the function is an Example or run by the one named (docSnippetProblems).
func TestPackageDocSnippets(t *testing.T) {
	checked := 0
	err := filepath.WalkDir("..", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel("..", path)
		if d.IsDir() && (rel == "bench" || strings.HasPrefix(d.Name(), ".")) && rel != "." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if !strings.HasPrefix(string(src), "// Package ") {
			return nil
		}
		file := filepath.ToSlash(rel)
		checked += len(docBlocks(filepath.Dir(file), lf(string(src))))
		for _, p := range docSnippetProblems(file, string(src), readRepo) {
			t.Error(p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < len(quickStarts) {
		t.Fatalf("checked %d package doc snippets; the walk lost them", checked)
	}
	for _, file := range quickStarts {
		src, err := os.ReadFile(filepath.Join("..", file))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(lf(string(src)), "\n")
		for _, b := range docBlocks(filepath.Dir(file), lf(string(src))) {
			for n := range b.code {
				at := b.line - 1 + n
				changed := slices.Clone(lines)
				changed[at] += "x"
				deleted := slices.Delete(slices.Clone(lines), at, at+1)
				for what, edited := range map[string][]string{"changed": changed, "deleted": deleted} {
					if len(docSnippetProblems(file, strings.Join(edited, "\n"), readRepo)) == 0 {
						t.Errorf("%s:%d: line %d of the snippet %s: no problem reported", file, b.line, n+1, what)
					}
				}
			}
		}
	}
}

// A package doc's code block goes on over a blank line ("//" as gofmt writes it):
// docBlocks returns it whole, so the lines after the blank are checked too.
func TestDocBlocksBlankLine(t *testing.T) {
	src := "// Package x does.\n//\n// Quick start (this is `f` in f_test.go, run by `Example`):\n//\n//\ta := 1\n//\n//\tb := 2\n//\n// More.\npackage x\n"
	blocks := docBlocks("x", src)
	if len(blocks) != 1 || !slices.Equal(blocks[0].code, []string{"a := 1", "", "b := 2"}) || blocks[0].fn != "f" {
		t.Errorf("docBlocks: %+v, want one block of f: a := 1, a blank line, b := 2", blocks)
	}
}
