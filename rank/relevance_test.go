package rank_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deferredtools/deferredtools/rank"
)

// A hit scoring under FloorTop times the best hit's score is not served, whatever k; the
// hits served are exactly those of the search without the floor that reach it (the tail
// rule off: TestSearchAnswerExact and TestSearchWeakTail cover it).
func TestSearchRelevanceFloor(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 8))
	defer rank.SetTail(0, rank.TailWord)()
	cut := 0
	for trial := range 40 {
		docs := randomCatalog(r, 50+r.IntN(300), "d")
		ix := rank.NewIndex(docs)
		allowed := allOf(len(docs))
		for range 10 {
			q := randomQuery(r)
			restore := rank.SetFloor(0, 0, 1)
			every := ix.Search(nil, q, allowed, 0)
			restore()
			var want []rank.Hit
			if len(every) > 0 {
				bar := int64(rank.FloorTop * every[0].Score * (1 << 32))
				for _, h := range every {
					if int64(h.Score*(1<<32)) >= bar {
						want = append(want, h)
					}
				}
				cut += len(every) - len(want)
			}
			for _, k := range []int{0, 3, 17} {
				got := ix.Search(nil, q, allowed, k)
				if len(got) == 0 && len(want) > 0 {
					continue // the query's informative weight gated it: TestSearchNoAnswer
				}
				w := want
				if k > 0 {
					w = want[:min(k, len(want))]
				}
				if diff := cmp.Diff(w, got); diff != "" {
					t.Fatalf("trial %d: Search(%q, max %d) with the floor (-want +got):\n%s", trial, q, k, diff)
				}
			}
		}
	}
	if cut == 0 {
		t.Fatal("the floor never cut a hit: the test proves nothing")
	}
}

// A query whose best hit covers less than FloorInfo of its informative weight (words no
// tool holds counting as the rarest) gets no hit (SPEC DISC-6): "order a pizza" is not
// answered by a tool whose parameters mention an order.
func TestSearchNoAnswer(t *testing.T) {
	docs := []rank.Doc{
		{Name: "list_issues", Description: "List issues in a repository.",
			Params: "owner repository owner name state open closed all labels filter by label names sort created updated comments order direction asc desc since timestamp page number per page results"},
		{Name: "create_issue", Description: "Create an issue in a repository."},
		{Name: "merge_pull_request", Description: "Merge a pull request."},
	}
	for i := range 20 {
		docs = append(docs, rank.Doc{Name: fmt.Sprintf("tool_%02d", i), Description: fmt.Sprintf("Manage widget %d.", i)})
	}
	ix := rank.NewIndex(docs)
	all := allOf(len(docs))
	// SPEC DISC-6
	if got := ix.Search(nil, "order a large pepperoni pizza tonight", all, 10); len(got) != 0 {
		t.Errorf("off-topic query got %v, want none", names(docs, got))
	}
	if got := names(docs, ix.Search(nil, "list issues in order", all, 10)); len(got) == 0 || got[0] != "list_issues" {
		t.Errorf("list issues in order = %v, want list_issues first", got)
	}
	restore := rank.SetFloor(rank.FloorTop, 0, 1)
	defer restore()
	if got := ix.Search(nil, "order a large pepperoni pizza tonight", all, 10); len(got) == 0 {
		t.Error("without the gate the off-topic query matched nothing: the test proves nothing")
	}
}

// A query word's related words (WordNet's and ours) find tools holding them, weighed
// below the word itself.
func TestSearchRelatedWords(t *testing.T) {
	docs := []rank.Doc{
		{Name: "branch_info", Description: "Show a branch."},
		{Name: "delete_branch", Description: "Delete a branch."},
		{Name: "erase_disk", Description: "Erase a disk."},
		{Name: "delete_disk", Description: "Delete a disk."},
		{Name: "star_repository", Description: "Star a repository."},
		{Name: "cancel_pipeline", Description: "Cancel a pipeline."},
		{Name: "hover", Description: "Hover over an element."},
		{Name: "list_dependencies", Description: "List the dependencies of an issue."},
	}
	ix := rank.NewIndex(docs)
	all := allOf(len(docs))
	tests := []struct{ query, want string }{
		{"erase a branch", "delete_branch"},                              // WordNet: erase -> delete
		{"erase the disk", "erase_disk"},                                 // the word itself outweighs a related word
		{"bookmark this repo", "star_repository"},                        // ours: bookmark -> star
		{"borrar la rama", "delete_branch"},                              // Spanish: borrar -> delete, rama -> branch
		{"halt the running pipeline", "cancel_pipeline"},                 // ours: halt -> cancel
		{"rest the pointer on the icon so its tooltip pops up", "hover"}, // ours: tooltip, pointer -> hover
		{"what blockers does this issue have", "list_dependencies"},      // ours: blocker -> dependency
	}
	for _, tt := range tests {
		if got := names(docs, ix.Search(nil, tt.query, all, 3)); len(got) == 0 || got[0] != tt.want {
			t.Errorf("Search(%q) = %v, want %s first", tt.query, got, tt.want)
		}
	}
	// The word itself outweighs its related word by score, not by name matches or doc
	// order: two docs alike but for erase and delete, the delete one first.
	alike := rank.NewIndex([]rank.Doc{
		{Name: "tool_a", Description: "Delete a disk."},
		{Name: "tool_b", Description: "Erase a disk."},
		{Name: "tool_c", Description: "Format a volume."},
	})
	hits := alike.Search(nil, "erase the disk", allOf(3), 2)
	if len(hits) != 2 || hits[0].Doc != 1 || hits[1].Doc != 0 || hits[0].Score <= hits[1].Score {
		t.Errorf("Search(erase the disk) = %v, want tool_b (erase) scoring above tool_a (delete)", hits)
	}
}
