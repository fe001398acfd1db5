package catalogtest

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Catalogs are the real catalogs Load reads, by file name without ".json" (698 tools;
// see ../shared/data/PROVENANCE.md). The "-default" and "-namespace" files are subsets
// of these and are not read.
var Catalogs = []string{"github", "gitlab", "azure", "playwright", "notion", "mcp-reference"}

// A Source is the material catalogs are generated from: template tools and the
// vocabulary of their names, parameters and text. It is immutable and safe for
// concurrent use.
type Source struct {
	real      bool
	origin    string
	templates []template
	words     []string      // content-word occurrences of all text, lower case (frequency-weighted pool)
	distinct  []string      // distinct content words, sorted
	nameSegs  [][3][]string // per catalog: segment occurrences at the first, a middle, the last position
	paramSegs []string      // parameter-name segment occurrences, lower case
}

// template is one tool of the source, parsed once.
type template struct {
	catalog     int
	segs, seps  []string
	title       any  // string or nil
	hasTitle    bool // the template has a title member (null included)
	description string
	schema      any
	params      map[string]bool // every property name in schema, lower case
	rest        *obj            // other members of the tool, kept as they are
}

// Real reports whether s was loaded from the real catalogs (not Builtin).
func (s *Source) Real() bool { return s.real }

// String says where s came from, for benchmark logs.
func (s *Source) String() string { return s.origin }

// Templates returns the number of template tools in s.
func (s *Source) Templates() int { return len(s.templates) }

// ErrNoData reports that the real catalogs are not where DataDir looked.
var ErrNoData = errors.New("catalogtest: real catalogs not found")

// DataDir returns the folder of the real catalogs, ../shared/data/catalogs beside the
// module root (the first folder above the working directory that holds go.mod), or ""
// when it does not hold every file of Catalogs.
func DataDir() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
	data := filepath.Join(dir, "..", "shared", "data", "catalogs")
	for _, c := range Catalogs {
		if _, err := os.Stat(filepath.Join(data, c+".json")); err != nil {
			return ""
		}
	}
	return data
}

// Default returns the real source (Load of DataDir) when DataDir finds the catalogs,
// else Builtin, so the module tests itself without the shared data; Source.Real says
// which. An error means the catalogs are there but unreadable.
func Default() (*Source, error) {
	dir := DataDir()
	if dir == "" {
		return Builtin(), nil
	}
	return Load(dir)
}

// Load reads the catalogs of Catalogs from dir (ReadCatalogs) into a Source.
func Load(dir string) (*Source, error) {
	cats, err := ReadCatalogs(dir)
	if err != nil {
		return nil, err
	}
	s, err := newSource(cats)
	if err != nil {
		return nil, err
	}
	s.real = true
	s.origin = fmt.Sprintf("%d tools of the real catalogs in %s", len(s.templates), dir)
	return s, nil
}

// ReadCatalogs reads the catalogs of Catalogs from dir, each a JSON array of tool
// definitions, in the order of Catalogs. A missing file gives ErrNoData.
func ReadCatalogs(dir string) ([][]json.RawMessage, error) {
	cats := make([][]json.RawMessage, len(Catalogs))
	for i, c := range Catalogs {
		data, err := os.ReadFile(filepath.Join(dir, c+".json"))
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil, ErrNoData
			}
			return nil, err
		}
		if err := json.Unmarshal(data, &cats[i]); err != nil {
			return nil, fmt.Errorf("catalogtest: %s: %w", c, errJSON)
		}
	}
	return cats, nil
}

// RealTools returns every tool of the real catalogs in DataDir's folder, concatenated in
// the order of Catalogs, or skips tb when they are absent.
func RealTools(tb testing.TB) []json.RawMessage {
	tb.Helper()
	dir := DataDir()
	if dir == "" {
		tb.Skip("real catalogs absent (../shared/data/catalogs beside the module)")
	}
	cats, err := ReadCatalogs(dir)
	if err != nil {
		tb.Fatal(err)
	}
	return slices.Concat(cats...)
}

// Builtin returns the source written for this package (see builtinCatalogs): a small
// vocabulary, for runs without the shared data.
func Builtin() *Source {
	cats := make([][]json.RawMessage, len(builtinCatalogs))
	for i, c := range builtinCatalogs {
		if err := json.Unmarshal([]byte(c), &cats[i]); err != nil {
			panic("catalogtest: built-in catalog: " + err.Error())
		}
	}
	s, err := newSource(cats)
	if err != nil {
		panic(err)
	}
	s.origin = fmt.Sprintf("%d tools of the built-in vocabulary (no real catalogs found)", len(s.templates))
	return s
}

// newSource parses the template tools of each catalog and gathers their vocabulary.
func newSource(cats [][]json.RawMessage) (*Source, error) {
	s := &Source{nameSegs: make([][3][]string, len(cats))}
	seen := map[string]bool{}
	addText := func(t string) {
		forWords(t, func(_ int, w string) {
			w = strings.ToLower(w)
			if contentWord(w) {
				s.words = append(s.words, w)
				if !seen[w] {
					seen[w] = true
					s.distinct = append(s.distinct, w)
				}
			}
		})
	}
	for ci, tools := range cats {
		for _, raw := range tools {
			v, err := decode(raw)
			if err != nil {
				return nil, err
			}
			o, ok := v.(*obj)
			if !ok {
				return nil, errJSON
			}
			t := template{catalog: ci, params: map[string]bool{}, rest: &obj{}}
			for i, k := range o.keys {
				switch val := o.vals[i]; k {
				case "name":
					name, _ := val.(string)
					t.segs, t.seps = splitName(name)
				case "title":
					t.title, t.hasTitle = val, true
					if str, ok := val.(string); ok {
						addText(str)
					}
				case "description":
					t.description, _ = val.(string)
					addText(t.description)
				case "inputSchema":
					t.schema = val
				default:
					t.rest.keys = append(t.rest.keys, k)
					t.rest.vals = append(t.rest.vals, val)
				}
			}
			if len(t.segs) == 0 || t.schema == nil {
				return nil, errJSON
			}
			for i, seg := range t.segs {
				s.nameSegs[ci][position(i, len(t.segs))] = append(s.nameSegs[ci][position(i, len(t.segs))], seg)
			}
			walkSchema(t.schema, func(prop string) {
				t.params[strings.ToLower(prop)] = true
				segs, _ := splitName(prop)
				for _, seg := range segs {
					s.paramSegs = append(s.paramSegs, strings.ToLower(strings.Trim(seg, "_-.")))
				}
			}, addText)
			s.templates = append(s.templates, t)
		}
	}
	if len(s.templates) == 0 || len(s.distinct) == 0 || len(s.paramSegs) == 0 {
		return nil, errJSON
	}
	slices.Sort(s.distinct)
	return s, nil
}

// position classes a name segment: 0 first, 1 middle, 2 last.
func position(i, n int) int {
	switch {
	case i == 0:
		return 0
	case i == n-1:
		return 2
	}
	return 1
}

// walkSchema calls prop with every property name and text with every description and
// title string anywhere in v.
func walkSchema(v any, prop func(string), text func(string)) {
	switch x := v.(type) {
	case *obj:
		for i, k := range x.keys {
			switch val := x.vals[i]; {
			case k == "properties":
				if p, ok := val.(*obj); ok {
					for j, pk := range p.keys {
						prop(pk)
						walkSchema(p.vals[j], prop, text)
					}
					continue
				}
			case k == "description" || k == "title":
				if str, ok := val.(string); ok {
					text(str)
					continue
				}
			}
			walkSchema(x.vals[i], prop, text)
		}
	case []any:
		for _, e := range x {
			walkSchema(e, prop, text)
		}
	}
}
