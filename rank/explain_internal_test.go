package rank

import "testing"

// Explain names each of a query's lists from where queryTerms found it (termNames),
// without walking the index's terms: words, words as written, pairs, the whole query,
// abbreviations, synonyms, phrasal verbs, related words, verb phrases, hints, quoted
// text and lists of parameters alone.
func TestExplainTermNames(t *testing.T) {
	docs := []Doc{
		{Name: "create_issue", Title: "Create issue", Description: "Create a new issue in a repository."},
		{Name: "list_pull_requests", Title: "List pull requests", Description: "List pull requests."},
		{Name: "delete_branch", Description: "Delete a branch.", Params: "branch: the branch name"},
		{Name: "get_file_contents", Description: "Get the contents of a file or URL.", Params: "path: code to run"},
		{Name: "update_issue", Description: "Update the state of an issue.", Params: "state: open or closed"},
		{Name: "append_block_children", Description: "Append block children: a to-do list."},
		{Name: "list_vms", Description: "List virtual machines."},
	}
	ix := NewIndex(docs)
	for _, query := range []string{
		"list pull requests", "list_pull_requests", "erase the branches", "tear down the branch",
		"open an issue for the crash", "file a ticket", "close issue 12", "read docs/README.md",
		"fetch https://example.com/x", "run `a = b; c()`", "title 'still open'", "list my VMs and PRs",
		"add a to-do list to the page", "Create a page, open an issue about it, then close the issue and delete the branch.",
	} {
		s := ix.getScratch()
		if _, ok := s.prepare(ix, query, allOf(len(docs))); !ok {
			ix.putScratch(s)
			t.Errorf("%q matches nothing: the test proves nothing", query)
			continue
		}
		names, left := s.termNames(ix, query)
		if left != 0 {
			t.Errorf("termNames(%q) left %d lists unnamed: %v", query, left, names)
		}
		for id, name := range names {
			if got, ok := ix.terms[name]; !ok || got != id {
				t.Errorf("termNames(%q) names list %d %q, which is term %d", query, id, name, got)
			}
		}
		ix.putScratch(s)
	}
}

// allOf returns the set of n docs.
func allOf(n int) Set {
	s := make(Set, (n+63)/64)
	for i := range n {
		s[i/64] |= 1 << (i % 64)
	}
	return s
}
