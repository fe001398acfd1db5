// Package catalogtest generates large, realistic tool catalogs and queries,
// deterministically from a seed, by recombining the real catalogs of ../shared/data, or
// a small built-in vocabulary written for it when that data is absent.
package catalogtest

import (
	"encoding/json"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// Rates of the rewriting, per content word or parameter.
const (
	textRate   = 0.3  // a content word of a rewritten text is replaced
	titleRate  = 0.2  // the same in a title
	rareShare  = 0.15 // a replacement is a generated rare term rather than a real word
	nameRate   = 0.5  // a name segment is redrawn
	paramRate  = 0.5  // a parameter is renamed and its subschema rewritten
	zipfS      = 1.05 // exponent of the Zipf distribution of rare-term ranks
	zipfRanks  = 1 << 24
	maxRetries = 24 // draws of a unique name or description: past half, a rare term is added; past all, a number (names)
)

// A Catalog is a generated catalog: Tools[i] is the JSON text of the tool named Names[i].
type Catalog struct {
	Tools    []json.RawMessage
	Names    []string
	keywords [][]string // per tool: words a user looking for it might type
	src      *Source
}

// Generate returns n distinct tools generated from s: no two, and none of them and a
// template, share a name or a description. The same seed and n give the same bytes;
// a larger n is not an extension of a smaller one.
//
// Each tool is a template (drawn uniformly from s) rewritten: its name recombines name
// segments of the template's catalog at the same position (verbs stay where that
// catalog puts them); its description and title replace a fifth to a third of their
// content words by words of s drawn by their frequency (a Zipf-like distribution),
// 15% of those by generated rare terms of Zipf-distributed rank, so the vocabulary
// grows with n as in real text; words of the name that changed change in the text too.
// About half the parameters are renamed from parameter-name segments of s in the
// parameter's own style (snake, kebab, camel), their subschemas rewritten the same
// way, required lists following; the others are kept byte for byte, as common
// parameters (tenant, owner, repo) repeat in real catalogs. The schema's shape,
// keywords and $defs stay the template's, so sizes and the share of schemas the
// bounded validator compiles follow the source.
func (s *Source) Generate(seed uint64, n int) *Catalog {
	g := &generator{
		s:     s,
		r:     rand.New(rand.NewPCG(seed, 0x7001ca7a)),
		names: make(map[string]bool, n),
		descs: make(map[uint64]bool, n),
	}
	g.zipf = rand.NewZipf(g.r, zipfS, 1, zipfRanks-1)
	for _, t := range s.templates { // never a template's own name or description
		g.names[joinName(t.segs, t.seps)] = true
		g.descs[hash(t.description)] = true
	}
	c := &Catalog{Tools: make([]json.RawMessage, n), Names: make([]string, n), keywords: make([][]string, n), src: s}
	for i := range n {
		c.Tools[i], c.Names[i], c.keywords[i] = g.tool()
	}
	return c
}

// generator holds the state of one Generate call.
type generator struct {
	s     *Source
	r     *rand.Rand
	zipf  *rand.Zipf
	names map[string]bool
	descs map[uint64]bool

	// per tool
	nameMap map[string]string // lower-case name segment -> its replacement
	renames map[string]string // property name -> new name ("" until decided; itself if kept)
	newLow  map[string]bool   // lower-case new property names
	tpl     *template
}

// word returns a replacement content word: a real word drawn by its frequency, or now
// and then a rare term of Zipf-distributed rank.
func (g *generator) word() string {
	if g.r.Float64() < rareShare {
		return g.s.rareWord(g.zipf.Uint64())
	}
	return g.s.words[g.r.IntN(len(g.s.words))]
}

// text rewrites t: words of the template's name that changed are changed, and each
// other content word is replaced with probability rate.
func (g *generator) text(t string, rate float64) string {
	var b strings.Builder
	b.Grow(len(t) + 16)
	last := 0
	forWords(t, func(start int, w string) {
		low := strings.ToLower(w)
		rep := ""
		if m, ok := g.nameMap[low]; ok {
			rep = m
		} else if contentWord(low) && g.r.Float64() < rate {
			rep = g.word()
		}
		if rep == "" {
			return
		}
		b.WriteString(t[last:start])
		b.WriteString(matchCase(rep, w))
		last = start + len(w)
	})
	b.WriteString(t[last:])
	return b.String()
}

// tool generates the next tool: its JSON text, name and keywords.
func (g *generator) tool() (json.RawMessage, string, []string) {
	g.tpl = &g.s.templates[g.r.IntN(len(g.s.templates))]
	t := g.tpl
	g.nameMap = map[string]string{}
	name, segs := g.name()
	desc := g.description()
	g.renames = map[string]string{}
	g.newLow = map[string]bool{}
	schema := g.schema(t.schema)

	out := &obj{}
	out.keys = append(out.keys, "name")
	out.vals = append(out.vals, name)
	if str, ok := t.title.(string); ok {
		out.keys = append(out.keys, "title")
		out.vals = append(out.vals, g.text(str, titleRate))
	} else if t.hasTitle {
		out.keys = append(out.keys, "title")
		out.vals = append(out.vals, nil)
	}
	out.keys = append(out.keys, "description", "inputSchema")
	out.vals = append(out.vals, desc, schema)
	out.keys = append(out.keys, t.rest.keys...)
	out.vals = append(out.vals, t.rest.vals...)

	kw := make([]string, 0, 12)
	for _, seg := range segs {
		seg = strings.ToLower(strings.Trim(seg, "_-."))
		if len(seg) >= 3 && seg != "api" {
			kw = append(kw, seg)
		}
	}
	forWords(desc, func(_ int, w string) {
		if w = strings.ToLower(w); contentWord(w) && len(kw) < 12 && !slices.Contains(kw, w) {
			kw = append(kw, w)
		}
	})
	return appendValue(nil, out), name, kw
}

// name draws a name unique in the catalog from the template's, redrawing segments from
// its catalog's segments at the same position; after maxRetries/2 failed draws a rare
// term is inserted, and past maxRetries a number.
func (g *generator) name() (string, []string) {
	t := g.tpl
	pools := &g.s.nameSegs[t.catalog]
	for attempt := 0; ; attempt++ {
		clear(g.nameMap)
		segs := slices.Clone(t.segs)
		seps := slices.Clone(t.seps)
		for i, old := range t.segs {
			if g.r.Float64() >= nameRate {
				continue
			}
			pool := pools[position(i, len(segs))]
			if len(pool) == 0 {
				pool = pools[0]
			}
			seg := pool[g.r.IntN(len(pool))]
			if g.r.Float64() < rareShare {
				seg = matchCase(g.s.rareWord(g.zipf.Uint64()), strings.Trim(old, "_-."))
			}
			segs[i] = seg
			o, n := strings.ToLower(strings.Trim(old, "_-.")), strings.ToLower(strings.Trim(seg, "_-."))
			if len(o) >= 3 && o != n && isWord(o) && isWord(n) {
				g.nameMap[o] = n
			}
		}
		if attempt >= maxRetries/2 {
			at := 1 + g.r.IntN(len(segs))
			sep := "_"
			if len(seps) > 0 {
				sep = seps[0]
			}
			segs = slices.Insert(segs, at, g.s.rareWord(g.zipf.Uint64()))
			if at-1 < len(seps) {
				seps = slices.Insert(seps, at-1, sep)
			} else {
				seps = append(seps, sep)
			}
		}
		name := joinName(segs, seps)
		if attempt >= maxRetries {
			name += "_" + strconv.Itoa(len(g.names))
		}
		if len(name) <= 128 && !g.names[name] {
			g.names[name] = true
			return name, segs
		}
	}
}

// isWord reports whether w is letters only.
func isWord(w string) bool {
	for i := 0; i < len(w); i++ {
		if !isLetter(w[i]) {
			return false
		}
	}
	return w != ""
}

// description rewrites the template's description until it differs from every other
// description of the catalog, raising the rate on each retry.
func (g *generator) description() string {
	rate := textRate
	for attempt := 0; ; attempt++ {
		d := g.text(g.tpl.description, rate)
		if attempt >= maxRetries/2 {
			d += " " + matchCase(g.word(), "A") + " " + g.s.rareWord(g.zipf.Uint64()) + "."
		}
		if sum := hash(d); !g.descs[sum] {
			g.descs[sum] = true
			return d
		}
		rate = min(1, rate+0.1)
	}
}

// hash returns the FNV-1a hash of s.
func hash(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// schema rewrites a template schema: properties are renamed (or kept, subschema and
// all) per g.renames, required lists follow, descriptions and titles are rewritten;
// every other keyword and value is kept.
func (g *generator) schema(v any) any {
	switch x := v.(type) {
	case *obj:
		out := &obj{keys: make([]string, 0, len(x.keys)), vals: make([]any, 0, len(x.vals))}
		for i, k := range x.keys {
			val := x.vals[i]
			switch k {
			case "properties":
				if p, ok := val.(*obj); ok {
					np := &obj{keys: make([]string, len(p.keys)), vals: make([]any, len(p.vals))}
					for j, pk := range p.keys {
						nk := g.rename(pk)
						np.keys[j] = nk
						if nk == pk {
							np.vals[j] = p.vals[j] // kept byte for byte, as shared parameters are
						} else {
							np.vals[j] = g.schema(p.vals[j])
						}
					}
					val = np
				}
			case "required":
				if a, ok := val.([]any); ok {
					na := make([]any, len(a))
					for j, e := range a {
						if str, ok := e.(string); ok {
							na[j] = g.rename(str)
						} else {
							na[j] = e
						}
					}
					val = na
				}
			case "description", "title":
				if str, ok := val.(string); ok {
					val = g.text(str, textRate)
				} else {
					val = g.schema(val)
				}
			case "enum", "const", "default", "examples", "$schema", "$ref", "pattern", "format", "type":
				// values, not schemas: kept
			default:
				val = g.schema(val)
			}
			out.keys = append(out.keys, k)
			out.vals = append(out.vals, val)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = g.schema(e)
		}
		return out
	}
	return v
}

// rename returns the new name of property p, deciding it on first sight: kept with
// probability 1-paramRate, else segments drawn from the real parameter-name segments
// in p's style, never equal (ignoring case) to a name of the template or another new one.
func (g *generator) rename(p string) string {
	if n, ok := g.renames[p]; ok {
		return n
	}
	n := p
	if g.r.Float64() < paramRate {
		segs, seps := splitName(p)
		camel := len(segs) > 1 && slices.Contains(seps, "")
		for range 8 {
			ns := make([]string, len(segs))
			for i, old := range segs {
				w := g.s.paramSegs[g.r.IntN(len(g.s.paramSegs))]
				if g.r.Float64() < rareShare {
					w = g.s.rareWord(g.zipf.Uint64())
				}
				if w == "" {
					w = "value"
				}
				if camel && i > 0 || !camel {
					w = matchCase(w, strings.Trim(old, "_-.$"))
				}
				ns[i] = w
			}
			cand := joinName(ns, seps)
			low := strings.ToLower(cand)
			if !g.tpl.params[low] && !g.newLow[low] {
				g.newLow[low] = true
				n = cand
				break
			}
		}
	}
	g.renames[p] = n
	return n
}

// Queries returns n queries for c: each is one to three words a user looking for one
// of its tools (drawn uniformly) might type, from that tool's name and description,
// and now and then a word of the source's vocabulary that may match nothing.
func (c *Catalog) Queries(seed uint64, n int) []string {
	r := rand.New(rand.NewPCG(seed, 0x9e5175))
	qs := make([]string, n)
	for i := range qs {
		kw := c.keywords[r.IntN(len(c.keywords))]
		k := 1 + r.IntN(3)
		words := make([]string, 0, k)
		for try := 0; len(words) < k && try < 4*k; try++ {
			w := kw[r.IntN(len(kw))]
			if r.IntN(8) == 0 {
				w = c.src.words[r.IntN(len(c.src.words))]
			}
			if !slices.Contains(words, w) {
				words = append(words, w)
			}
		}
		if len(words) == 0 {
			words = append(words, c.src.words[r.IntN(len(c.src.words))])
		}
		qs[i] = strings.Join(words, " ")
	}
	return qs
}
