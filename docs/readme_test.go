package docs

import (
	"bytes"
	"fmt"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// elision is the line that marks, in a README Go snippet, where lines of the function
// it is part of are left out; no other line may be left out.
const elision = "// ..."

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

// readmeBlocks returns every ```go block of the README text with the function its note
// names, and a problem for each block without a note.
func readmeBlocks(readme string) (out []readmeBlock, problems []string) {
	lines := strings.Split(readme, "\n")
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
			problems = append(problems, fmt.Sprintf("README.md:%d: a Go block without a note naming its Example or test", b.line))
			continue
		}
		m := snippetMarker.FindStringSubmatch(lines[j])
		if m == nil {
			problems = append(problems, fmt.Sprintf("README.md:%d: the Go block is not followed by \"(this is `Name` in file_test.go ...)\", but by %q", b.line, lines[j]))
			continue
		}
		para := lines[j]
		for k := j + 1; k < len(lines) && strings.TrimSpace(lines[k]) != ""; k++ {
			para += " " + lines[k]
		}
		b.standalone, b.fn, b.path, b.marker = m[1] != "", m[2], m[3], para
		out = append(out, b)
	}
	return out, problems
}

// funcBody returns the lines of function name in the Go source src, after its
// signature (which may span lines), or nil.
func funcBody(src, name string) []string {
	lines := strings.Split(src, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "func "+name+"(") {
			for i < len(lines) && !strings.HasSuffix(lines[i], "{") {
				i++
			}
			for j := i + 1; j < len(lines); j++ {
				if lines[j] == "}" {
					return lines[i+1 : j]
				}
			}
		}
	}
	return nil
}

// dedent returns lines without the leading tabs all its non-blank lines share, blank
// lines as "".
func dedent(lines []string) []string {
	common := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if n := len(l) - len(strings.TrimLeft(l, "\t")); common < 0 || n < common {
			common = n
		}
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		if strings.TrimSpace(l) != "" {
			out[i] = l[common:]
		}
	}
	return out
}

// equalRun reports whether seg is body[at:at+len(seg)], line for line and byte for
// byte once each is dedented (a run inside a loop may be shown at the left margin).
func equalRun(seg, body []string, at int) bool {
	if at < 0 || at+len(seg) > len(body) {
		return false
	}
	a, b := dedent(seg), dedent(body[at:at+len(seg)])
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// matched is how many of seg's first lines are, together, a run of body at or after
// from: the lines before the first that drifted.
func matched(seg, body []string, from int) int {
	best := 0
	for p := from; p < len(body); p++ {
		for best < len(seg) && equalRun(seg[:best+1], body, p) {
			best++
		}
	}
	return best
}

// fragmentProblem says where snippet code is not function body shown exactly: code
// split at its elision lines must be runs of body, in order, with nothing left out
// between, before or after them but where an elision line stands. It returns "" when
// the snippet is the body.
func fragmentProblem(code, body []string) string {
	var segs [][]string
	var starts []int // each run's line in the snippet, 1-based
	open := true     // a new run begins at the next code line
	for n, l := range code {
		if strings.TrimSpace(l) == elision {
			open = true
			continue
		}
		if open {
			segs, starts, open = append(segs, nil), append(starts, n+1), false
		}
		segs[len(segs)-1] = append(segs[len(segs)-1], l)
	}
	if len(segs) == 0 {
		return "the snippet shows no code"
	}
	headOpen := strings.TrimSpace(code[0]) == elision
	tailOpen := strings.TrimSpace(code[len(code)-1]) == elision
	k := 0
	for i, seg := range segs {
		at := -1
		switch {
		case i == 0 && !headOpen:
			if equalRun(seg, body, 0) {
				at = 0
			}
		case i == len(segs)-1 && !tailOpen:
			if end := len(body) - len(seg); end >= k && equalRun(seg, body, end) {
				at = end
			}
		default:
			for p := k; p+len(seg) <= len(body); p++ {
				if equalRun(seg, body, p) {
					at = p
					break
				}
			}
		}
		if at < 0 {
			where := "after the lines before it"
			switch {
			case i == 0 && !headOpen:
				where = "at the function's start (begin the block with \"" + elision + "\" if lines are left out before it)"
			case i == len(segs)-1 && !tailOpen:
				where = "at the function's end (end the block with \"" + elision + "\" if lines are left out after it)"
			}
			return fmt.Sprintf("lines %d-%d of the snippet are not, exactly and without a line left out, the function's lines %s; line %d is the first that matches nowhere",
				starts[i], starts[i]+len(seg)-1, where, starts[i]+matched(seg, body, k))
		}
		if i == len(segs)-1 && !tailOpen && at+len(seg) != len(body) {
			return "the function goes on after the snippet's last line"
		}
		k = at + len(seg)
	}
	return ""
}

// programProblem says what is wrong with a README block shown as a whole program that
// test fn in the file src builds: it must be one gofmt'ed main package without an
// elision, and fn must take it from the README (adaptertest.READMEProgram with this
// block's note), so that what is built is what is shown.
func programProblem(b readmeBlock, src string) string {
	if !strings.HasPrefix(b.fn, "Test") || len(b.code) == 0 || b.code[0] != "package main" {
		return "a program block must start with package main and name the test that builds it"
	}
	for n, l := range b.code {
		if strings.TrimSpace(l) == elision {
			return fmt.Sprintf("line %d of the program leaves lines out; a program is shown whole", n+1)
		}
	}
	text := []byte(strings.Join(b.code, "\n") + "\n")
	if _, err := parser.ParseFile(token.NewFileSet(), "main.go", text, parser.AllErrors); err != nil {
		return "the program does not parse: " + err.Error()
	}
	if formatted, err := format.Source(text); err != nil || !bytes.Equal(formatted, text) {
		return "the program is not gofmt'ed"
	}
	note := "\"(this is the program `" + b.fn + "` in " + b.path + "\""
	if !strings.Contains(strings.Join(funcBody(src, b.fn), "\n"), "adaptertest.READMEProgram(") || !strings.Contains(src, note) {
		return fmt.Sprintf("%s does not build the README's program: it must call adaptertest.READMEProgram with the note %s", b.fn, note)
	}
	return ""
}

// snippetProblems checks every Go block of the README text against the files it names,
// read by read (a path relative to the repository's root). A block is either a whole
// program its named test builds from the README itself, or the named function's body
// exactly as written, but where an elision line ("// ...") stands: no line can be left
// out, added or changed unnoticed. That function is an Example or test, or is called by
// the one the note names after "run by", so it is compiled and run.
func snippetProblems(readme string, read func(path string) ([]byte, error)) []string {
	blocks, problems := readmeBlocks(lf(readme))
	if len(blocks) < 5 {
		problems = append(problems, fmt.Sprintf("found %d Go blocks in README.md; the parser lost them", len(blocks)))
	}
	for _, b := range blocks {
		problems = append(problems, blockProblems(b, fmt.Sprintf("README.md:%d: ", b.line), read)...)
	}
	return problems
}

// blockProblems checks one snippet b (see snippetProblems), each problem prefixed with
// where b is.
func blockProblems(b readmeBlock, where string, read func(path string) ([]byte, error)) (problems []string) {
	bad := func(format string, args ...any) {
		problems = append(problems, where+fmt.Sprintf(format, args...))
	}
	data, err := read(b.path)
	if err != nil {
		bad("names %s: %v", b.path, err)
		return problems
	}
	src := lf(string(data))
	if !strings.HasSuffix(b.path, "_test.go") {
		bad("names %s, which is not a test file", b.path)
	}
	body := funcBody(src, b.fn)
	if body == nil {
		bad("names %s in %s, which has no such function", b.fn, b.path)
		return problems
	}
	if b.standalone {
		if p := programProblem(b, src); p != "" {
			bad("%s", p)
		}
		return problems
	}
	if !strings.HasPrefix(b.fn, "Example") && !strings.HasPrefix(b.fn, "Test") {
		runner := regexp.MustCompile("run by `([A-Za-z0-9_]+)`").FindStringSubmatch(b.marker)
		if runner == nil || funcBody(src, runner[1]) == nil ||
			!strings.Contains(strings.Join(funcBody(src, runner[1]), "\n"), b.fn+"(") {
			bad("%s is no Example or test, and its note names none in %s that calls it", b.fn, b.path)
		}
	}
	if p := fragmentProblem(b.code, body); p != "" {
		bad("%s (%s in %s)", p, b.fn, b.path)
	}
	return problems
}

// readRepo reads a file of the repository from the docs directory.
func readRepo(path string) ([]byte, error) { return os.ReadFile(filepath.Join("..", path)) }

// lf returns text with Windows line endings (a checkout with core.autocrlf) as \n:
// the checks compare lines.
func lf(text string) string { return strings.ReplaceAll(text, "\r\n", "\n") }

// Every Go snippet of the README is a compiled, run Example or test exactly as shown,
// or shows where it leaves lines out with "// ..." (snippetProblems).
func TestREADMESnippets(t *testing.T) {
	data, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range snippetProblems(string(data), readRepo) {
		t.Error(p)
	}
}

// TestREADMESnippetsCatchDrift edits copies of the README the way a snippet drifts
// from its code, and snippetProblems must name the block every time: any one line of a
// snippet changed, or deleted (an elision line included: none stands for nothing) but
// beside an elision, and a program's closing brace deleted.
func TestREADMESnippetsCatchDrift(t *testing.T) {
	data, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	read := func(path string) ([]byte, error) {
		if b, ok := files[path]; ok {
			return b, nil
		}
		b, err := readRepo(path)
		files[path] = b
		return b, err
	}
	readme := lf(string(data))
	if p := snippetProblems(readme, read); len(p) > 0 {
		t.Fatalf("the README itself has problems: %v", p)
	}
	lines := strings.Split(readme, "\n")
	blocks, _ := readmeBlocks(readme)
	edits := 0
	for _, b := range blocks {
		named := fmt.Sprintf("README.md:%d: ", b.line)
		check := func(what string, edited []string) {
			t.Helper()
			edits++
			for _, p := range snippetProblems(strings.Join(edited, "\n"), read) {
				if strings.HasPrefix(p, named) {
					return
				}
			}
			t.Errorf("%s%s: no problem reported", named, what)
		}
		if b.standalone {
			last := b.line + len(b.code) - 1 // the program's last line, 0-based index
			if lines[last] != "}" {
				t.Fatalf("%sthe program does not end with \"}\"", named)
			}
			check("the program's closing brace deleted", slices.Delete(slices.Clone(lines), last, last+1))
			continue
		}
		isElision := func(n int) bool { return n >= 0 && n < len(b.code) && strings.TrimSpace(b.code[n]) == elision }
		for n := range b.code {
			at := b.line + n // the line's index in lines
			// Beside an elision, a line deleted is one more left out there.
			if !isElision(n-1) && !isElision(n+1) {
				check(fmt.Sprintf("line %d deleted", n+1), slices.Delete(slices.Clone(lines), at, at+1))
			}
			changed := slices.Clone(lines)
			changed[at] += "x"
			if strings.TrimSpace(lines[at]) == "" {
				changed[at] = "\tx := 1"
			}
			check(fmt.Sprintf("line %d changed", n+1), changed)
		}
	}
	if edits < 100 {
		t.Fatalf("made %d edits; the README's blocks were lost", edits)
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

// The snippet checks read text with Windows line endings (a checkout with
// core.autocrlf) as they read it with \n: the README, the files it names and the
// package docs, each with \r\n, report no problem, and a drifted line still does.
func TestSnippetsCRLF(t *testing.T) {
	crlf := func(b []byte) string { return strings.ReplaceAll(string(b), "\n", "\r\n") }
	read := func(path string) ([]byte, error) {
		b, err := readRepo(path)
		return []byte(crlf(b)), err
	}
	data, err := readRepo("README.md")
	if err != nil {
		t.Fatal(err)
	}
	if p := snippetProblems(crlf(data), read); len(p) > 0 {
		t.Errorf("the README with \\r\\n: %v", p)
	}
	drifted := strings.Replace(crlf(data), "\tlog.Fatal(err)\r\n", "\tlog.Fatal(err) \r\n", 1)
	if len(snippetProblems(drifted, read)) == 0 {
		t.Error("the README with \\r\\n and a line changed: no problem reported")
	}
	for _, file := range quickStarts {
		src, err := readRepo(file)
		if err != nil {
			t.Fatal(err)
		}
		if p := docSnippetProblems(file, crlf(src), read); len(p) > 0 {
			t.Errorf("%s with \\r\\n: %v", file, p)
		}
	}
}

// A drifted snippet's problem names the first line that drifted, so that it is found
// without comparing the block by eye.
func TestFragmentProblemNamesLine(t *testing.T) {
	body := []string{"\ta := 1", "\tb := 2", "\tc := 3", "\td := 4"}
	for _, c := range []struct {
		code []string
		line int
	}{
		{[]string{"a := 1", "b := 2", "c := 30", "d := 4"}, 3},
		{[]string{elision, "b := 2", "c := 3", "e := 4"}, 4},
		{[]string{"a := 1", elision, "c := 3", "x", "d := 4"}, 4},
	} {
		want := fmt.Sprintf("line %d is the first that matches nowhere", c.line)
		if p := fragmentProblem(c.code, body); !strings.Contains(p, want) {
			t.Errorf("%q: %q, want it to say %q", c.code, p, want)
		}
	}
}
