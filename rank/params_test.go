package rank_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/deferredtools/deferredtools/rank"
)

func TestParamText(t *testing.T) {
	tests := []struct {
		name, schema, want string
	}{
		{"not an object", `[1,2]`, ""},
		{"malformed", `{"properties":`, ""},
		{"no properties", `{"type":"object","description":"the tool's own words"}`, ""},
		{
			"properties in name order, own title and description left out",
			`{"title":"T","description":"tool","properties":{"state":{"description":"Filter by state","enum":["open","closed",3]},"owner":{"title":"Owner","type":"string"}}}`,
			"owner Owner state Filter by state open closed",
		},
		{
			"nested objects, items, combinators and const",
			`{"properties":{"review":{"properties":{"event":{"const":"APPROVE"}}},"files":{"items":{"properties":{"path":{"description":"file path"}}}},"target":{"anyOf":[{"properties":{"url":{}}},{"properties":{"ref":{}}}]}}}`,
			"files path file path review event APPROVE target url ref",
		},
		{
			"additionalProperties",
			`{"properties":{"labels":{"additionalProperties":{"properties":{"color":{"description":"hex colour"}}}}}}`,
			"labels color hex colour",
		},
		{
			"shared $defs and enums of array items left out",
			`{"$defs":{"rich":{"properties":{"annotations":{}}}},"properties":{"kinds":{"items":{"enum":["a","b"]}}}}`,
			"kinds",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := rank.ParamText([]byte(tt.schema)); got != tt.want {
				t.Errorf("ParamText(%s) = %q, want %q", tt.schema, got, tt.want)
			}
		})
	}
}

func TestParamTextDepthBound(t *testing.T) {
	// A schema nested deeper than the bound still gives its shallow parameters, and
	// no more than the bound's worth of nesting.
	schema := `{"properties":{"top":` + deep(40) + `}}`
	got := rank.ParamText([]byte(schema))
	if len(got) == 0 || got[:3] != "top" {
		t.Fatalf("ParamText = %q, want it to start with top", got)
	}
	if n := countWord(strings.Fields(got), "p"); n == 0 || n >= 40 {
		t.Fatalf("ParamText kept %d nested names of 40, want some but not all", n)
	}
}

func countWord(words []string, w string) int {
	n := 0
	for _, f := range words {
		if f == w {
			n++
		}
	}
	return n
}

func deep(n int) string {
	if n == 0 {
		return `{}`
	}
	return `{"properties":{"p":` + deep(n-1) + `}}`
}

// A word only a tool's parameters hold finds it, below a tool whose name holds the word;
// without Params, it finds nothing.
func TestSearchParams(t *testing.T) {
	docs := []rank.Doc{
		{Name: "pull_request_review_write", Description: "Create, submit or delete a review.", Params: "event The review action APPROVE REQUEST_CHANGES COMMENT"},
		{Name: "approve_deployment", Description: "Approve a pending deployment.", Params: "run_id The workflow run"},
		{Name: "list_branches", Description: "List branches.", Params: "owner repo page perPage"},
	}
	ix := rank.NewIndex(docs)
	got := names(docs, ix.Search(nil, "approve", allOf(len(docs)), 0))
	if want := []string{"approve_deployment", "pull_request_review_write"}; !slices.Equal(got, want) {
		t.Errorf(`Search("approve") = %v, want %v`, got, want)
	}
	noParams := make([]rank.Doc, len(docs))
	copy(noParams, docs)
	for i := range noParams {
		noParams[i].Params = ""
	}
	if got := names(docs, ix.Search(nil, "workflow", allOf(len(docs)), 0)); !slices.Equal(got, []string{"approve_deployment"}) {
		t.Errorf(`Search("workflow") = %v, want [approve_deployment]`, got)
	}
	ix = rank.NewIndex(noParams)
	if got := names(noParams, ix.Search(nil, "workflow", allOf(len(docs)), 0)); len(got) != 0 {
		t.Errorf(`without Params, Search("workflow") = %v, want nothing`, got)
	}
}

// FuzzParamText feeds arbitrary schemas to ParamText: it must not panic, must give the
// same text twice, nothing for what is not a JSON object, and, for valid UTF-8, never
// more text than the schema holds (every string it returns is a JSON string of the
// input, quotes and all, or one space between two of them; invalid bytes decode to
// the 3-byte U+FFFD).
func FuzzParamText(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, `{"properties":{"a":{"description":"x","enum":["b",1,null]}}}`,
		`{"properties":{"a":{"items":{"properties":{"b":{"const":"c"}}}}}}`, `{"anyOf":[{"properties":{"\u00e9":{}}}]}`,
		`{"properties":{"a":` + deep(30) + `}}`, `{"properties":null}`, "\xff", "{\"properties\":{\"\xff\xff\xff\xff\":{}}}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, schema []byte) {
		got := rank.ParamText(schema)
		if again := rank.ParamText(schema); again != got {
			t.Fatalf("ParamText(%q) gave %q, then %q", schema, got, again)
		}
		if utf8.Valid(schema) && len(got) > len(schema) {
			t.Fatalf("ParamText(%q) = %q, longer than the schema", schema, got)
		}
		var v any
		if json.Unmarshal(schema, &v) != nil {
			if got != "" {
				t.Fatalf("ParamText(%q) = %q for malformed JSON", schema, got)
			}
			return
		}
		if _, ok := v.(map[string]any); !ok && got != "" {
			t.Fatalf("ParamText(%q) = %q for a non-object", schema, got)
		}
	})
}

// A phrasal verb of a query means the tool verb it stands for, and its verb alone then
// weighs as a synonym: "set up a repository" is create_repository, not set_*.
func TestSearchPhrasalVerbs(t *testing.T) {
	docs := []rank.Doc{
		{Name: "set_repository_topics", Description: "Set the topics of a repository."},
		{Name: "create_repository", Description: "Create a new repository."},
		{Name: "get_repository", Description: "Get a repository."},
		{Name: "delete_environment", Description: "Delete a deployment environment."},
		{Name: "get_environment", Description: "Get a deployment environment."},
		{Name: "run_workflow", Description: "Run a workflow."},
		{Name: "get_workflow", Description: "Get a workflow by id."},
		{Name: "set_kick_threshold", Description: "Set the threshold."},
	}
	ix := rank.NewIndex(docs)
	all := allOf(len(docs))
	for _, tt := range []struct{ query, want string }{
		{"set up a repository", "create_repository"},
		{"set repository topics", "set_repository_topics"},
		{"tear down the staging environment", "delete_environment"},
		{"get rid of the environment", "delete_environment"},
		{"kick off the workflow", "run_workflow"},
		{"bump the threshold", "set_kick_threshold"},
	} {
		t.Run(tt.query, func(t *testing.T) {
			got := names(docs, ix.Search(nil, tt.query, all, 1))
			if len(got) == 0 || got[0] != tt.want {
				t.Errorf("Search(%q) = %v, want %s first", tt.query, got, tt.want)
			}
		})
	}
}

// Docs holding a term in their parameters alone are kept in a list of their own, scored
// last; the hits and scores are those of one list per term, bit for bit.
func TestSearchParamOnlyListsExact(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	joined := rank.DefaultParams
	joined.Joined = true
	lists := 0
	for trial := range 100 {
		n := 1 + r.IntN(300)
		docs := randomCatalog(r, n, "p")
		split, one := rank.NewIndex(docs), rank.NewIndexParams(docs, joined)
		lists += split.ParamOnlyLists()
		if one.ParamOnlyLists() != 0 {
			t.Fatalf("trial %d: an index with one list per term has lists of parameters alone", trial)
		}
		allowed := rank.NewSet(n)
		for i := range n {
			if r.IntN(3) > 0 {
				allowed.Add(i)
			}
		}
		for range 30 {
			q := randomQuery(r)
			for _, k := range []int{0, 1, 5, 17} {
				got, want := split.Search(nil, q, allowed, k), one.Search(nil, q, allowed, k)
				if !slices.Equal(got, want) {
					t.Fatalf("trial %d, %q, k=%d: split lists %v, one list %v", trial, q, k, got, want)
				}
			}
		}
	}
	if lists == 0 {
		t.Fatal("no doc held a word in its parameters alone: the split lists were never searched")
	}
}

func ExampleParamText() {
	schema := []byte(`{
		"type": "object",
		"properties": {
			"pull_number": {"type": "integer", "description": "The PR number"},
			"event": {"type": "string", "enum": ["APPROVE", "REQUEST_CHANGES", "COMMENT"]}
		}
	}`)
	fmt.Println(rank.ParamText(schema))

	docs := []rank.Doc{
		{Name: "pull_request_review_write", Description: "Create or submit a review.", Params: rank.ParamText(schema)},
		{Name: "merge_pull_request", Description: "Merge a pull request.", Params: "pull_number merge_method"},
	}
	ix := rank.NewIndex(docs)
	all := rank.NewSet(len(docs))
	all.Add(0)
	all.Add(1)
	for _, h := range ix.Search(nil, "approve the PR", all, 1) {
		fmt.Println(docs[h.Doc].Name) // found through its event parameter
	}
	// Output:
	// event APPROVE REQUEST_CHANGES COMMENT pull_number The PR number
	// pull_request_review_write
}
