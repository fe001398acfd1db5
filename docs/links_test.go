package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// linkedDocs are the prose files a new user reads, relative to the repository's root.
var linkedDocs = []string{
	"README.md", "DESIGN.md", "docs/requirements.md", "docs/scale.md",
	"docs/perf/issue17-before-after.md", "rank/TUNING.md", "bench/validate/README.md",
}

// mdLink is a Markdown inline link or image: its target is group 1.
var mdLink = regexp.MustCompile(`\]\(([^()\s]+)\)`)

// sectionRef is a reference by name to a section of a file: `docs/scale.md "Round 7"`,
// `docs/scale.md's "Validators at the first call"`, `README's "At scale"`.
// A name followed by "column" or "row" names part of a table, not a section.
var sectionRef = regexp.MustCompile(`(docs/scale\.md|README)(?:'s)?,? "([^"]+)"( column| row)?`)

// proseLines returns the lines of Markdown text, those of fenced code blocks (and
// their fences) as "", so that index i is line i+1.
func proseLines(text string) []string {
	var out []string
	fenced := false
	for _, line := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			line = ""
		}
		if fenced {
			line = ""
		}
		out = append(out, line)
	}
	return out
}

// anchors returns the GitHub anchors of text's headings: lower case, punctuation but
// '-' and '_' dropped, spaces as '-', a repeated one suffixed -1, -2, ...
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	for _, line := range proseLines(text) {
		h, ok := strings.CutPrefix(line, "#")
		if !ok {
			continue
		}
		h = strings.TrimSpace(strings.TrimLeft(h, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(h) {
			switch {
			case r == ' ':
				b.WriteByte('-')
			case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127:
				b.WriteRune(r)
			}
		}
		a := b.String()
		for n := 1; out[a]; n++ {
			a = b.String() + "-" + strconv.Itoa(n)
		}
		out[a] = true
	}
	return out
}

// sectionNames returns the names a section of text may be referred to by: its headings
// and the bold words that open a paragraph or list item ("**Round 9 (read path)**").
func sectionNames(text string) []string {
	var out []string
	for _, line := range proseLines(text) {
		line = strings.TrimPrefix(strings.TrimPrefix(line, "- "), "| ")
		if h, ok := strings.CutPrefix(line, "#"); ok {
			out = append(out, strings.TrimSpace(strings.TrimLeft(h, "#")))
		} else if b, ok := strings.CutPrefix(line, "**"); ok {
			if name, _, ok := strings.Cut(b, "**"); ok {
				out = append(out, name)
			}
		}
	}
	return out
}

// linkProblems checks the relative links and named section references of the Markdown
// file at path (relative to the root), read by read: every linked file or folder exists,
// every #anchor is a heading of the file it points into, every "section" named after
// docs/scale.md or README opens one of its sections.
func linkProblems(path string, read func(string) ([]byte, error)) (problems []string) {
	text, err := read(path)
	if err != nil {
		return []string{err.Error()}
	}
	for i, line := range proseLines(string(text)) {
		for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			linked := path
			if file != "" {
				linked = filepath.ToSlash(filepath.Join(filepath.Dir(path), file))
				if _, err := os.Stat(filepath.Join("..", linked)); err != nil {
					problems = append(problems, path+": line "+strconv.Itoa(i+1)+": "+target+": no such file or folder")
					continue
				}
			}
			if anchor == "" {
				continue
			}
			body, err := read(linked)
			if err != nil || !anchors(string(body))[anchor] {
				problems = append(problems, path+": line "+strconv.Itoa(i+1)+": "+target+": no heading with that anchor")
			}
		}
		for _, m := range sectionRef.FindAllStringSubmatch(line, -1) {
			if m[3] != "" {
				continue
			}
			file := "docs/scale.md"
			if m[1] == "README" {
				file = "README.md"
			}
			body, err := read(file)
			if err != nil {
				problems = append(problems, err.Error())
				continue
			}
			found := false
			for _, name := range sectionNames(string(body)) {
				found = found || strings.HasPrefix(name, m[2])
			}
			if !found {
				problems = append(problems, path+": line "+strconv.Itoa(i+1)+": "+m[1]+" has no section \""+m[2]+"\"")
			}
		}
	}
	return problems
}

// Every relative link of the README, DESIGN and docs/ points to a file or folder that
// exists, and every anchor or named section to a heading that does: a renamed file or
// section breaks this test, not a reader's click.
func TestRelativeLinksResolve(t *testing.T) {
	links := 0
	for _, path := range linkedDocs {
		text, err := readRepo(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range proseLines(string(text)) {
			links += len(mdLink.FindAllString(line, -1)) + len(sectionRef.FindAllString(line, -1))
		}
		for _, p := range linkProblems(path, readRepo) {
			t.Error(p)
		}
	}
	if links < 30 {
		t.Fatalf("found %d links and section references; the scan lost them", links)
	}
}

// The link check finds a missing file, a missing anchor and a missing named section,
// and accepts an anchor that exists.
func TestLinkProblemsFindsBreaks(t *testing.T) {
	files := map[string]string{
		"README.md": "# Title\n\n## At scale\n\nSee [d](./DESIGN.md#a-plan), [x](./nowhere.md), " +
			"[y](./DESIGN.md#no-such), [z](#at-scale) and docs/scale.md \"Round 99\".\n" +
			"```\n[in code](./nowhere-either.md)\n```\n",
		"DESIGN.md":     "# Design\n\n## A plan\n",
		"docs/scale.md": "## Scale\n\n**Round 9 (read path)** text\n",
	}
	read := func(p string) ([]byte, error) {
		if s, ok := files[p]; ok {
			return []byte(s), nil
		}
		return nil, os.ErrNotExist
	}
	got := strings.Join(linkProblems("README.md", read), "\n")
	for _, want := range []string{"./nowhere.md: no such file", "./DESIGN.md#no-such: no heading", `no section "Round 99"`} {
		if !strings.Contains(got, want) {
			t.Errorf("problems %q lack %q", got, want)
		}
	}
	for _, ok := range []string{"#a-plan", "#at-scale", "nowhere-either"} {
		if strings.Contains(got, ok) {
			t.Errorf("problems %q report %q, which resolves or is code", got, ok)
		}
	}
}
