package rank

import (
	"slices"
	"strings"
	"testing"
)

// TestPhraseMatches checks that a verb phrase of curatedPhrases adds its words only
// where its verb is one: "open an issue", not "the open issues" or "open issue 12";
// and that reading a file named in the next words asks for its content.
func TestPhraseMatches(t *testing.T) {
	cases := []struct {
		query string
		want  string // the stems added, joined by spaces, in order
	}{
		{"Open an issue for the crash", "creat"},
		{"can you file a bug about it", "creat"},
		{"open a new ticket and raise an issue", "creat creat"},
		{"open a pull request against main", "creat"},
		{"ask @lee and @kim to review it", "reviewer"},
		{"assign it to @maria", "assigne"},
		{"reassign it to @ops-oncall", "assigne"},
		{"assign it to @ once done", ""},
		{"assign it to @- or @@", ""},
		{"assign the bug to the team lead, @ops-oncall", ""},
		{"assign it to maria", ""},
		{"when the box pops up, say yes", "dialog"},
		{"turn issue 64 into a task", "convert"},
		{"who is in the workspace", "member user"},
		{"who has access to this subscription", "member user collaborator rol permission"},
		{"add a paragraph at the end of a page", "append"},
		{"list the open issues", ""},
		{"open the file README.md", "content"},
		{"read docs/CONTRIBUTING.md from the fork", "content"},
		{"read the contributing guide of the docs", ""},
		{"push README.md and read the logs", ""},
		{"open a new tab", ""},
		{"open issue 12", ""},
		{"ask for a summary", ""},
		{"add a to-do list to the page", "todo block"},
		{"add a To-Dos block", "todo block"},
		{"what to do next", ""},
		{"to -do", ""},
		{"to-", ""},
		{"leave a comment on issue 42", "creat"},
		{"drop a note on the MR", "creat"},
		{"leave the page", ""},
		{"add a 'Priority' select property to the database", "updat"},
		{"add columns to it", "updat"},
		{"add a row", ""},
		{"try the failed build again", "retry"},
		{"Cut release/2.4 from main, then bump it", "creat branch"},
		{"cut a new branch off main", "creat branch"},
		{"cut the video to ten seconds", ""},
		{"go through the open alerts", "list"},
		{"look over the draft notes", "list"},
		{"go to the page", ""},
		{"Go to https://shop.example.com/login, sign in", "navigat login"},
		{"open http://localhost:3000/checkout and visit www.example.org", "navigat navigat"},
		{"open the tab for https://example.com", ""},
		{"visit the https://example.com page", "navigat"}, // the URL within reach (2) of the verb
		{"visit the site https://example.com", ""},        // one word past it
		{"assign the bug to @maria", "assigne"},           // the handle at reach (4)
		{"assign the bug to team @maria", ""},
		{"load the file from https://example.com", ""},
		{"turn on dark mode", "enabl"},
		{"log in as admin, then sign into the portal", "login login"},
		{"the turn of the page", ""},
		{"who", ""},
		{"who am I logged in as", "whoami self current login"},
		{"what do 17 and 25 add up to", "sum"},
		{"add up the totals", "sum"},
		{"add the totals up", ""},
		{"stick a paragraph onto the end of the page", "append"},
		{"write the az command line that creates it", "cli"},
		{"click Sync and check the banner 'You are offline' appears", "verify visibl"},
		{"confirm the site is showing the login page", "verify visibl"},
		{"verify the banner appears", ""},
		{"wait until the dashboard text shows up", ""},
		{"check the logs of the job that appears first", ""},
		{"", ""},
	}
	for _, c := range cases {
		var got []string
		phraseMatchesAt(c.query, func(_ int, _ string, to [][]byte) {
			for _, s := range to {
				got = append(got, string(s))
			}
		})
		if g := strings.Join(got, " "); g != c.want {
			t.Errorf("phraseMatchesAt(%q) added %q, want %q", c.query, g, c.want)
		}
	}
	var verbs []string
	phraseMatchesAt("File a bug, then raise an issue", func(_ int, verb string, _ [][]byte) { verbs = append(verbs, verb) })
	if g := strings.Join(verbs, " "); g != "fil rais" {
		t.Errorf("phraseMatchesAt(File a bug, then raise an issue) verbs %q, want the stems of file and raise", g)
	}
	// A verb reading a file keeps its weight: no verb to demote.
	verbs = verbs[:0]
	phraseMatchesAt("read docs/CONTRIBUTING.md", func(_ int, verb string, _ [][]byte) { verbs = append(verbs, verb) })
	if !slices.Equal(verbs, []string{""}) {
		t.Errorf("phraseMatchesAt(read docs/CONTRIBUTING.md) verbs %q, want one empty verb", verbs)
	}
}

// TestVerbLed checks which clauses start with an operation verb, fillers aside.
func TestVerbLed(t *testing.T) {
	for clause, want := range map[string]bool{
		"list the tables":                     true,
		" then Edit the one about naming":     true,
		"and also request a review":           true,
		"I want a hotel":                      false,
		"can you find me a flight":            true, // a polite request leads by its verb
		" Could you list the resource groups": true,
		"would you kindly merge it":           false, // kindly: no filler
		"I want to find a flight":             false,
		"the jobs of that pipeline":           false,
		"":                                    false,
	} {
		if got := verbLed(clause); got != want {
			t.Errorf("verbLed(%q) = %v, want %v", clause, got, want)
		}
	}
}

// TestSearchPhrase checks that "open an issue" finds the tool that creates one, though
// only the tool that changes an issue's state holds "open", and that "open the issue
// again" (no article after the verb: no phrase) still finds that one.
func TestSearchPhrase(t *testing.T) {
	docs := []Doc{
		{Name: "create_issue", Description: "Create a new issue in a repository."},
		{Name: "update_issue_state", Description: "Open or close an issue, with a reason."},
		{Name: "list_issues", Description: "List issues of a repository, by state."},
	}
	ix := NewIndex(docs)
	all := Set{1<<len(docs) - 1}
	first := func(q string) string {
		hits := ix.Search(nil, q, all, 3)
		if len(hits) == 0 {
			return ""
		}
		return docs[hits[0].Doc].Name
	}
	if got := first("open an issue"); got != "create_issue" {
		t.Errorf("open an issue: first hit %s, want create_issue", got)
	}
	if got := first("open the issue again"); got != "update_issue_state" {
		t.Errorf("open the issue again: first hit %s, want update_issue_state", got)
	}
	// The phrase demotes its verb: "open" weighs less in "open an issue" than alone.
	qtf := func(q string) float64 {
		for _, term := range ix.Diagnose(q, all, len(docs)).Terms {
			if term.Term == "open" && term.From == "word" && !term.Param {
				return term.QTF
			}
		}
		return 0
	}
	if phrase, plain := qtf("open an issue"), qtf("open the issue again"); phrase <= 0 || phrase >= plain {
		t.Errorf("weight of open: %v in open an issue, %v in open the issue again: want less, not nothing", phrase, plain)
	}
}

// TestSearchPhraseAllocs checks that verb phrases, in a short query and in the steps of a
// long one, cost Search no allocation.
func TestSearchPhraseAllocs(t *testing.T) {
	docs := []Doc{
		{Name: "create_issue", Description: "Create a new issue in a repository."},
		{Name: "update_issue_state", Description: "Open or close an issue, with a reason."},
		{Name: "request_pull_request_reviewers", Description: "Request reviewers for a pull request."},
		{Name: "handle_dialog", Description: "Accept or dismiss a dialog."},
	}
	ix := NewIndex(docs)
	all := Set{1<<len(docs) - 1}
	dst := make([]Hit, 0, 32)
	for _, q := range []string{
		"open an issue",
		"Open an issue about the crash, ask @lee and @kim to review the fix, and close the dialog when it pops up.",
	} {
		dst = ix.Search(dst[:0], q, all, 10) // warm the scratch space
		if n := testing.AllocsPerRun(50, func() { dst = ix.Search(dst[:0], q, all, 10) }); n != 0 {
			t.Errorf("Search(%q) allocates %v times, want 0", q, n)
		}
	}
}

// TestCuratedRelatedOnce checks that curatedRelated says each thing once: related is
// keyed by stem, so two keys of one stem ("bug", "bugs"), a word related to its own stem
// ("typing" -> "type") or one WordNet already relates to the key ("halt" -> "stop") are
// entries init drops or merges unseen; so is a foreign word of an English stem
// ("branche" -> "branch").
func TestCuratedRelatedOnce(t *testing.T) {
	st := func(w string) string { return string(stem([]byte(w))) }
	keyOf := map[string]string{}
	for w, to := range curatedRelated {
		k := st(w)
		if other, ok := keyOf[k]; ok {
			t.Errorf("curatedRelated holds %q and %q, of one stem %q", w, other, k)
		}
		keyOf[k] = w
		for _, r := range to {
			if st(r) == k {
				t.Errorf("curatedRelated[%q] holds %q, of its own stem", w, r)
			}
			for _, wn := range wordnetRelated[w] {
				if st(wn) == st(r) {
					t.Errorf("curatedRelated[%q] holds %q, which wordnetRelated gives it", w, r)
				}
			}
		}
	}
	for w, to := range foreignRelated {
		for _, r := range to {
			if st(r) == st(w) {
				t.Errorf("foreignRelated[%q] holds %q, of its own stem (the stemmer already reads it so)", w, r)
			}
		}
	}
}

// TestRelatedByStem checks that an inflected key of curatedRelated gives its related
// words to no other word of its stem: "blocked" (an issue blocked by another) stems to
// "block", so it gave a Notion block, and every query naming one, the word dependency.
func TestRelatedByStem(t *testing.T) {
	dep := string(stem([]byte("dependency")))
	for _, w := range []string{"block", "blocks", "blocked"} {
		for _, r := range related[string(stem([]byte(w)))] {
			if string(r) == dep {
				t.Errorf("%q is related to %q", w, dep)
			}
		}
	}
	if got := related[string(stem([]byte("blocker")))]; !slices.ContainsFunc(got, func(r []byte) bool { return string(r) == dep }) {
		t.Errorf("blocker's related words %q lack %q", got, dep)
	}
}

// TestPhraseRulesNotSelf checks that no verb phrase stands for its own verb: with keep
// the verb keeps its weight, so a rule whose words to hold it ("verify ... appears" ->
// verify) weighs the query's verb twice.
func TestPhraseRulesNotSelf(t *testing.T) {
	for i, r := range curatedPhrases {
		for _, v := range r.verbs {
			for _, to := range phraseTo[i] {
				if string(stem([]byte(v))) == string(to) {
					t.Errorf("curatedPhrases[%d]: verb %q stands for itself", i, v)
				}
			}
		}
	}
}

// TestRelatedAsWritten checks that a word whose stem is another word's gets its related
// words as written (writtenRelated) and gives them to no other word of its stem:
// "texting" asks for sms, "text" does not; "heading" for a block, "head to the page"
// not; "closed" (an issue's state) for state, not for update as "close" does.
func TestRelatedAsWritten(t *testing.T) {
	ix := NewIndex([]Doc{
		{Name: "send_sms", Description: "Send an SMS text message."},
		{Name: "append_block", Description: "Append a block to a page."},
		{Name: "update_issue", Description: "Update the state of an issue."},
		{Name: "navigate", Description: "Head to a page."},
	})
	cases := []struct {
		query string
		want  []string // the stems the query gains as related words, sorted
	}{
		{"texting the on-call engineer", []string{"sms"}},
		{"type the text into the box", nil},
		{"add a heading to the page", []string{"block"}},
		{"add two headings", []string{"block"}},
		{"head to the page", nil},
		{"list the closed issues", []string{"stat"}},
		{"close the issue", []string{"stat", "updat"}},
		{"closes the issue", []string{"stat", "updat"}},
	}
	names := map[uint32]string{}
	for t, id := range ix.terms {
		names[id] = t
	}
	for _, tt := range cases {
		s := ix.getScratch()
		s.queryTerms(ix, tt.query)
		var got []string
		for _, q := range s.qterms {
			if q.from == fromRelated && !q.param {
				got = append(got, names[q.id])
			}
		}
		ix.putScratch(s)
		slices.Sort(got)
		if !slices.Equal(got, tt.want) {
			t.Errorf("%q gains related words %q, want %q", tt.query, got, tt.want)
		}
	}
}

// TestBumpUpdates checks that "bump the version" asks for an update at more than a
// synonym's weight (stem.go's set, update): a related word adds to it, as "hit" and
// "wipe" do (curatedRelated), so that the step's update tools outrank the file's.
func TestBumpUpdates(t *testing.T) {
	ix := NewIndex([]Doc{{Name: "update_file", Description: "Update a file."}})
	s := ix.getScratch()
	defer ix.putScratch(s)
	s.queryTerms(ix, "bump the version in package.json")
	id := ix.terms[string(stem([]byte("update")))]
	for _, q := range s.qterms {
		if q.id == id && !q.param {
			if q.qtf <= synonymWeight {
				t.Errorf("update weighs %g in the query, want more than a synonym's %g", q.qtf, synonymWeight)
			}
			return
		}
	}
	t.Error("the query lacks update")
}

// TestTurnOnOff checks that "turn off" asks for disable as strongly as "turn on" asks
// for enable: the first goes through a phrasal verb (stem.go) and a phrase at a
// synonym's weight, the second through a phrase alone.
func TestTurnOnOff(t *testing.T) {
	ix := NewIndex([]Doc{{Name: "toggle_feature", Description: "Enable or disable a feature."}})
	weight := func(q, word string) float64 {
		s := ix.getScratch()
		defer ix.putScratch(s)
		s.queryTerms(ix, q)
		id := ix.terms[string(stem([]byte(word)))]
		for _, x := range s.qterms {
			if x.id == id && !x.param {
				return x.qtf
			}
		}
		return 0
	}
	for _, verb := range []string{"turn", "switch"} {
		on, off := weight(verb+" on dark mode", "enable"), weight(verb+" off dark mode", "disable")
		if on == 0 || on != off {
			t.Errorf("%s on -> enable weighs %g, %s off -> disable %g: want equal", verb, on, verb, off)
		}
	}
}
