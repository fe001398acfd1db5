package rank

import (
	"encoding/binary"
	"fmt"
	"slices"
	"testing"
)

// memoDocs are docs whose descriptions and parameters share words with each other and
// with the names and titles, in every order: a word first met where words as written
// are not kept (parameters), then where they are; abbreviations, stop words, words kept
// unstemmed, camelCase words, CJK runs and accents.
func memoDocs() []Doc {
	docs := []Doc{
		{Name: "list_repos", Title: "List repositories", Description: "Lists the repos of a user", Params: "owner Owner of the repos listing pages"},
		{Name: "get_pr", Description: "Gets a PR's reviews; listing pages", Params: "pr_number PR number reviews kubernetes windows"},
		{Name: "create_issue", Title: "Create issue", Description: "Creates an issue with labels", Params: "labels Labels to add creating getFileContents"},
		{Name: "search_code", Description: "getFileContents JavaScript searches code", Params: "query 创建代码仓库 Crème brûlée"},
		{Name: "misc", Description: "创建代码仓库 crème the of a", Params: "the of a I"},
	}
	for i, s := range trickyTexts {
		n := len(trickyTexts)
		docs = append(docs, Doc{Name: fmt.Sprint("t", i), Title: trickyTexts[(i+1)%n], Description: s, Params: trickyTexts[(i+3)%n]})
	}
	return docs
}

// TestWordMemoSameTerms checks that the word memo changes nothing an inverter emits:
// each doc's terms, numbered in the same order, with the same postings, in every
// variant of the parameters the golden digests cover, building from scratch and
// updating an index.
func TestWordMemoSameTerms(t *testing.T) {
	type emitted struct {
		id   uint32
		e    posting
		only bool
	}
	run := func(p params, base map[string]uint32, memo bool) ([]emitted, map[string]uint32) {
		v := newInverter(p, base, map[string]uint32{})
		if !memo {
			v.memo = nil
		}
		var out []emitted
		for i, d := range memoDocs() {
			v.doc(i, d, func(id uint32, e posting, only bool) { out = append(out, emitted{id, e, only}) })
		}
		return out, v.terms
	}
	for _, p := range indexVariants() {
		for _, base := range []map[string]uint32{nil, {"list": 0, "repositori": 1, "review": 2}} {
			want, wantTerms := run(p, base, false)
			got, gotTerms := run(p, base, true)
			if !slices.Equal(got, want) {
				t.Errorf("params %+v, base %v: with the memo the inverter emits\n%v\nwithout\n%v", p, base, got, want)
			}
			if fmt.Sprint(gotTerms) != fmt.Sprint(wantTerms) {
				t.Errorf("params %+v, base %v: terms with the memo %v, without %v", p, base, gotTerms, wantTerms)
			}
		}
	}
}

// TestLoad checks load, which reads a word's first 8 bytes for the memo: zero padded
// whatever follows the word in its array, and whether or not its array has 8 bytes.
func TestLoad(t *testing.T) {
	text := []byte("abcdefghijklmnop")
	for n := range 10 {
		want := make([]byte, 8)
		copy(want, text[:n])
		for _, w := range [][]byte{text[:n], slices.Clip(text[:n]), slices.Clone(text[:n])} {
			var got [8]byte
			binary.LittleEndian.PutUint64(got[:], load(w))
			if string(got[:]) != string(want) {
				t.Errorf("load(%q) (cap %d) = %q, want %q", w, cap(w), got, want)
			}
		}
	}
}
