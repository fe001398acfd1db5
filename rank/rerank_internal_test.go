package rank

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// A query of stepMinWords words or more is cut into clauses at punctuation before a
// space and before "and" and "then"; a shorter one, or one of one clause, is not split.
func TestSplitSteps(t *testing.T) {
	tests := []struct {
		query string
		want  []string
	}{
		{"Create a branch fix/login off main, push the files src/a.go and src/b.go to it, then open a pull request against main.",
			[]string{"Create a branch fix/login off main", " push the files src/a.go", "src/b.go to it", "open a pull request against main"}},
		{"Tag v1.8.0 on commit a1b2c3d; create a release from that tag: attach evidence for our auditors!",
			[]string{"Tag v1.8.0 on commit a1b2c3d", " create a release from that tag", " attach evidence for our auditors"}},
		{"Open https://example.com/a:b and wait for the text to appear in the page header now", // 16 words
			[]string{"Open https://example.com/a:b", "wait for the text to appear in the page header now"}},
		{"In acme/roadmap, issue #40 is the epic for SSO. Make #45 and #46 children of it and put #46 first.",
			[]string{"In acme/roadmap", " issue #40 is the epic for SSO", " Make #45 and #46 children of it", "put #46 first"}},
		{"list issues, then close them", nil},                                            // too short
		{"show me every open issue in the api repository with the bug label on it", nil}, // one clause
		{"a, b, c, d, e, f, g, h, i, j, k, l, m", []string{"a", " b", " c", " d", " e", " f", " g", " h, i, j, k, l, m"}},
	}
	for _, tt := range tests {
		var st stepScratch
		ok := st.splitSteps(tt.query)
		var got []string
		if ok {
			for _, sp := range st.spans[:st.n] {
				got = append(got, tt.query[sp[0]:sp[1]])
			}
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("splitSteps(%q) = %q, want %q", tt.query, got, tt.want)
		}
	}
}

// A word ending in a dot and a short extension holding a letter names a file; URLs,
// e-mail addresses, domains, versions and dates do not.
func TestNamesFile(t *testing.T) {
	tests := []struct {
		query string
		want  bool
	}{
		{"read docs/CONTRIBUTING.md from the fork", true},
		{"upload ./fixtures/avatar.png, then save", true},
		{"load the state from 'auth.json'.", true},
		{"fix session_test.go", true},
		{"open https://shop.example.com/login", false},
		{"mail jane@acme.com", false},
		{"visit example.com", false},
		{"tag v1.8.0 on 2025-07-01", false},
		{"the end.", false},
		{"run analysis.ipynb", true},       // an extension of 5
		{"restore db.backup", false},       // of 6
		{"sign in at claude.ai", false},    // a domain
		{"visit Example.COM", false},       // in capitals
		{"version 2.5 of the spec", false}, // digits alone
	}
	for _, tt := range tests {
		if got := namesFile(tt.query); got != tt.want {
			t.Errorf("namesFile(%q) = %v, want %v", tt.query, got, tt.want)
		}
	}
}

// A quoted title right before or after a noun of titled things names a thing by its
// title; backquoted code, other nouns and apostrophes do not.
func TestNamesTitled(t *testing.T) {
	tests := []struct {
		query string
		want  bool
	}{
		{"post a reply on the 'Pricing FAQ' page", true},
		{"close the \"3.2\" milestone", true},
		{"open page 'Release notes', then read it", true},
		{"create a page titled 'Weekly sync'", false},
		{"click the 'Sync now' button", false},
		{"run `Events | take 10` on the database", false},
		{"the user's page", false},
		{"the 'Archive'page", false},
		{"set the title to 'Plans', page by page", false}, // punctuation between
		// A thing made, after an indefinite article, needs no finding; one that exists does.
		{"create a wiki page 'Postmortem 2025-03-04' in project sre/runbooks", false},
		{"Set up a 'Reading List' database", false},
		{"Set up a 'Reading List' database under my 'Personal' page", true},
		{"add a row to the 'Reading List' database", true},
	}
	for _, tt := range tests {
		s := &scratch{an: newAnalyzer(0)}
		s.addLiterals(tt.query)
		if got := s.steps.namesTitled(tt.query); got != tt.want {
			t.Errorf("namesTitled(%q) = %v, want %v", tt.query, got, tt.want)
		}
	}
}

// Quoted and backquoted spans are literals; apostrophes inside words and lone quotes
// are not.
func TestAddLiterals(t *testing.T) {
	tests := []struct {
		query string
		want  []string // the words of each literal span, as analysed
	}{
		{"retitle it 'fix login timeout' and post", []string{"fix login timeout"}},
		{"run `npm install` then \"deploy now\"", []string{"npm install", "deploy"}}, // "now" is a stop word
		{"we're done, it's the user's page", nil},
		{"a lone ' quote and 'unclosed text", nil},
	}
	for _, tt := range tests {
		s := &scratch{an: newAnalyzer(0)}
		s.an.reset()
		s.addLiterals(tt.query)
		var got []string
		for _, l := range s.steps.lits[:s.steps.nlit] {
			w := ""
			for i := l[0]; i < l[1]; i++ {
				if s.an.kind[i] == termWord {
					if w != "" {
						w += " "
					}
					w += string(s.an.term(int(i)))
				}
			}
			got = append(got, w)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("addLiterals(%q) literals = %q, want %q", tt.query, got, tt.want)
		}
	}
}

// A clause that starts inside quoted text is a value the task passes on, not a step led
// by its verb: in "change its title to 'feat: add billing export'", "add billing
// export'" is cut off at the colon but leads no step.
func TestStepsQuotedVerb(t *testing.T) {
	docs := []Doc{
		{Name: "add_issue_comment", Description: "Add a comment to an issue."},
		{Name: "update_pull_request_title", Description: "Change the title of a pull request."},
	}
	q := "Turn draft PR 51 into ready for review, change its title to 'feat: add billing export', and request a review from Copilot."
	_, s := stepsOf(t, docs, q)
	for c := range s.steps.n {
		clause := q[s.steps.spans[c][0]:s.steps.spans[c][1]]
		want := verbLed(clause) && clause != " add billing export'"
		if clause == " add billing export'" && !verbLed(clause) {
			t.Fatalf("verbLed(%q) = false: the test proves nothing", clause)
		}
		if s.steps.led[c] != want {
			t.Errorf("clause %q: led %v, want %v", clause, s.steps.led[c], want)
		}
	}
	for _, tt := range []struct {
		pos  int
		want bool
	}{{strings.Index(q, "add billing"), true}, {strings.Index(q, "change its"), false}, {strings.Index(q, "request a"), false}} {
		if got := quotedAt(q, tt.pos); got != tt.want {
			t.Errorf("quotedAt(%q, %d) = %v, want %v", q, tt.pos, got, tt.want)
		}
	}
}

// A verb phrase counts in the step of its verb, though its words cross a clause cut:
// "ask @lee and @kim to review" adds "reviewer" to the step "ask @lee" alone, "pops up"
// adds "dialog" to the last step (which says "dialog" too).
func TestStepsPhraseAcrossClauses(t *testing.T) {
	docs := []Doc{
		{Name: "create_issue", Description: "Create a new issue in a repository."},
		{Name: "request_pull_request_reviewers", Description: "Request reviewers for a pull request."},
		{Name: "handle_dialog", Description: "Accept or dismiss a dialog."},
	}
	q := "Open an issue about the crash, ask @lee and @kim to review the fix, and close the dialog when it pops up."
	ix, s := stepsOf(t, docs, q)
	for _, tt := range []struct{ term, verb string }{{"creat", "Open"}, {"reviewer", "ask"}, {"dialog", "pops"}} {
		at := strings.Index(q, tt.verb)
		want := 0
		for want+1 < s.steps.n && int(s.steps.spans[want][1]) <= at {
			want++
		}
		id, ok := ix.terms[tt.term]
		if !ok {
			t.Fatalf("the index lacks %q", tt.term)
		}
		var steps []int
		for _, st := range s.steps.terms {
			if st.id == id && !slices.Contains(steps, st.step) {
				steps = append(steps, st.step)
			}
		}
		if !slices.Equal(steps, []int{want}) {
			t.Errorf("%q (the phrase of %q) in steps %v, want [%d] (clause %q)", tt.term, tt.verb, steps, want,
				q[s.steps.spans[want][0]:s.steps.spans[want][1]])
		}
	}
	if s.steps.n < 4 {
		t.Errorf("%d clauses: the test proves nothing", s.steps.n)
	}
}

// Two capitalized words or more right before a noun of titled things name a thing by
// its title without quotes; the first word of a sentence, one capitalized word, or
// words apart from the noun do not.
func TestNamesTitledCaps(t *testing.T) {
	tests := []struct {
		query string
		want  bool
	}{
		{"In our Bug Tracker database, pull every entry", true},
		{"What templates does the Meeting Notes database have?", true},
		{"add a row to the Q3 Hiring Plan page", true},
		{"Roadmap page: add a paragraph", false},      // the first word of the query
		{"done. Roadmap page next", false},            // the first of a sentence
		{"Team Roadmap page: add a paragraph", false}, // one word past the sentence's first
		{"paste it into our GitHub wiki", false},      // one word
		{"the Bug Tracker, a database", false},        // punctuation between
		{"the bug tracker database", false},
		{"the Bug  Tracker database", false},         // two spaces
		{"then make a new Team Roadmap page", false}, // made, not found
		{"", false},
	}
	for _, tt := range tests {
		if got := namesTitledCaps(tt.query); got != tt.want {
			t.Errorf("namesTitledCaps(%q) = %v, want %v", tt.query, got, tt.want)
		}
	}
	// The query then asks for the step of finding the thing, as a quoted title does.
	ix := NewIndex([]Doc{{Name: "search", Description: "Search pages and databases by title."}})
	id := ix.terms[string(stem([]byte("search")))]
	for q, want := range map[string]bool{
		"In our Bug Tracker database, pull every entry where Status is Open": true,
		"In our bug tracker database, pull every entry where Status is Open": false,
	} {
		s := ix.getScratch()
		s.queryTerms(ix, q)
		got := slices.ContainsFunc(s.qterms, func(x qterm) bool { return x.id == id })
		ix.putScratch(s)
		if got != want {
			t.Errorf("%q asks for search: %v, want %v", q, got, want)
		}
	}
}

// A thing named by its title implies a step of its own, finding it (the hint word
// "search", after the clauses); a thing the task makes ("create a page 'Notes'") does
// not.
func TestStepsTitled(t *testing.T) {
	docs := []Doc{
		{Name: "post_search", Description: "Search pages and databases by title."},
		{Name: "retrieve_comments", Description: "Retrieve the comments of a page."},
		{Name: "create_comment", Description: "Create a comment on a page."},
	}
	for q, want := range map[string]bool{
		"People left comments on the 'Pricing FAQ' page all week. Read them out to me and then post a reply saying 'Fixed'.": true,
		"People left comments on our pages all week. Read them out to me and then create a page 'Pricing FAQ' for them.":     false,
	} {
		ix, s := stepsOf(t, docs, q)
		id := ix.terms[hintStems[hintTitle]]
		var steps []int
		for _, st := range s.steps.terms {
			if st.id == id {
				steps = append(steps, st.step)
			}
		}
		clauses := s.steps.n
		if want {
			clauses-- // the step of finding the page
		}
		if got := slices.Contains(steps, clauses) && clauses < s.steps.n; got != want {
			t.Errorf("%q: the step of finding a titled thing: %v (search in steps %v of %d), want %v", q, got, steps, s.steps.n, want)
		}
	}
}

// stepsOf returns the index of docs and a scratch holding the steps of q and their
// terms, as a search reads them; the scratch goes back to the pool when t ends.
func stepsOf(t *testing.T, docs []Doc, q string) (*Index, *scratch) {
	t.Helper()
	ix := NewIndex(docs)
	s := ix.getScratch()
	t.Cleanup(func() { ix.putScratch(s) })
	if !s.steps.splitSteps(q) {
		t.Fatalf("splitSteps(%q) = false", q)
	}
	s.queryTerms(ix, q)
	s.stepTerms(ix, q)
	return ix, s
}

// A step counts a word of a URL or path once when its request says it outside the URL
// too, as the whole query does (pathEcho): "the failing pipeline
// https://gitlab.com/web/frontend/-/pipelines/99812" scores "pipeline" once in its
// step, as the same clause without the URL does, and the URL's own words (gitlab)
// still count.
func TestStepsPathEcho(t *testing.T) {
	docs := []Doc{
		{Name: "list_pipelines", Description: "List the pipelines of a project on gitlab."},
		{Name: "create_note", Description: "Add a note (a comment) to an issue."},
		{Name: "retry_job", Description: "Retry a failed job."},
	}
	const tail = ", then retry the failed job and post a note about it."
	with := "Comment with a link to the failing pipeline https://gitlab.com/web/frontend/-/pipelines/99812" + tail
	without := "Comment with a link to the failing pipeline on the gitlab server now" + tail
	lists := func(q, term string) int {
		ix, s := stepsOf(t, docs, q)
		id, ok := ix.terms[term]
		if !ok {
			t.Fatalf("the index lacks %q", term)
		}
		n := 0
		for _, st := range s.steps.terms {
			if st.id == id && st.step == 0 {
				n++
			}
		}
		return n
	}
	if got, want := lists(with, "pipelin"), lists(without, "pipelin"); got != want || want == 0 {
		t.Errorf("step 0 of %q scores pipeline %d times, want %d as without the URL", with, got, want)
	}
	if lists(with, "gitlab") == 0 {
		t.Errorf("step 0 of %q lost the URL's own word gitlab", with)
	}
}

// phrasePairs names the pair of words of the tool a verb phrase asks for: "open an
// issue" create_issue, "leave comments" none (no article), "drop a note" create_note.
func TestPhrasePairs(t *testing.T) {
	for q, want := range map[string]string{
		"Open an issue for the crash, then drop a note on it": "create issue|create note",
		"file a new ticket and raise two issues":              "create ticket",
		"list the open issues":                                "",
		"leave comments":                                      "",
	} {
		var got []string
		phrasePairs(q, func(_ int, pair []byte) { got = append(got, string(pair[1:])) })
		if g := strings.Join(got, "|"); g != want {
			t.Errorf("phrasePairs(%q) = %q, want %q", q, g, want)
		}
	}
}

// A step's tool named by its phrase ("file an issue": create_issue) joins the window
// reordered by steps though the other steps' tools crowd it out of the whole query's
// best 16, and ranks in the first 10.
func TestStepsPairWindow(t *testing.T) {
	var docs []Doc
	docs = append(docs, Doc{Name: "list_dependabot_alerts", Description: "List the open dependabot alerts of a repository, critical first."},
		Doc{Name: "get_dependabot_alert", Description: "Get the full details of a dependabot alert."})
	for i := range 16 { // the tools of neither step, matching words of both
		docs = append(docs, Doc{Name: fmt.Sprintf("dependabot_tool_%02d", i),
			Description: "Dependabot alerts and their details for a team."})
	}
	for i := range 30 { // issue is a common word, create a less common one
		docs = append(docs, Doc{Name: fmt.Sprintf("issue_tool_%02d", i), Description: "Update, label or comment on an issue."})
	}
	for i := range 10 {
		docs = append(docs, Doc{Name: fmt.Sprintf("create_thing_%02d", i), Description: "Create a new thing."})
	}
	for i := range 40 {
		docs = append(docs, Doc{Name: fmt.Sprintf("misc_%02d", i), Description: "Manage widgets."})
	}
	docs = append(docs, Doc{Name: "create_issue", Description: "Create a new issue in a repository."})
	q := "list the open critical dependabot alerts on acme/storefront, give me the full details of the worst one, and file an issue summarising it for the team"
	ix := NewIndex(docs)
	all := NewSet(len(docs))
	for i := range docs {
		all.Add(i)
	}
	rank := func() int {
		hits := ix.Search(nil, q, all, 10)
		for i, h := range hits {
			if docs[h.Doc].Name == "create_issue" {
				return i + 1
			}
		}
		return 0
	}
	if r := rank(); r == 0 {
		t.Errorf("create_issue not in the first 10 of %q", q)
	}

	defer func(w float64) { phrasePairWeight = w }(phrasePairWeight)
	phrasePairWeight = 0
	if r := rank(); r != 0 {
		t.Errorf("without pairs create_issue is %dth: the test proves nothing", r)
	}
}

// The hits for k are a prefix of those for a larger k (the package doc's guarantee)
// when addPairs grows the window, wherever the tools it brings in ranked on the whole
// query: here one to four of them, with 10 to 26 other tools crowding them, for every
// k up to 30. Ranking stepWindow+1 hits, not stepWindow+1+maxPairDocs, fails it (two
// tools brought in, 18 crowding).
func TestStepsPairPrefix(t *testing.T) {
	q := "list the open critical dependabot alerts on acme/storefront, give me the full details of the worst one, and file an issue summarising it for the team"
	tails := []string{"", " now", " and more", " today"}
	for named := 1; named <= maxPairDocs; named++ {
		for crowd := 10; crowd <= 26; crowd++ {
			docs := []Doc{{Name: "list_dependabot_alerts", Description: "List the open dependabot alerts of a repository, critical first."},
				{Name: "get_dependabot_alert", Description: "Get the full details of a dependabot alert."}}
			for i := range named {
				docs = append(docs, Doc{Name: fmt.Sprintf("create_issue_%d", i), Description: "Create a new issue in a repository."})
			}
			for i := range crowd {
				docs = append(docs, Doc{Name: fmt.Sprintf("dependabot_tool_%02d", i),
					Description: "Dependabot alerts and their details for a team" + tails[i%len(tails)] + "."})
			}
			for i := range 30 {
				docs = append(docs, Doc{Name: fmt.Sprintf("issue_tool_%02d", i), Description: "Update, label or comment on an issue."})
			}
			ix := NewIndex(docs)
			all := NewSet(len(docs))
			for i := range docs {
				all.Add(i)
			}
			long := ix.Search(nil, q, all, 0)
			for k := 1; k <= 30; k++ {
				if got := ix.Search(nil, q, all, k); !slices.Equal(got, long[:min(k, len(long))]) {
					t.Errorf("%d tools named, crowd %d, k %d: hits not a prefix of those for k 0", named, crowd, k)
				}
			}
		}
	}
}

// stepWeights returns, for each step of q, the weight its terms give the list of term,
// as a share of that term's weight in the whole query (1: a word's own weight), the
// query prepared as Search prepares it.
func stepWeights(t *testing.T, docs []Doc, q, term string) []float64 {
	t.Helper()
	ix := NewIndex(docs)
	s := ix.getScratch()
	defer ix.putScratch(s)
	all := NewSet(len(docs))
	for i := range docs {
		all.Add(i)
	}
	if _, ok := s.prepare(ix, q, all); !ok || !s.steps.splitSteps(q) {
		t.Fatalf("%q: not a query of several steps over the docs", q)
	}
	s.stepTerms(ix, q)
	id, ok := ix.terms[string(stem([]byte(term)))]
	if !ok {
		t.Fatalf("the index lacks %q", term)
	}
	unit := 0.0
	for _, x := range s.qterms {
		if x.id == id && !x.param {
			unit = x.wt / x.qtf
		}
	}
	out := make([]float64, s.steps.n)
	for _, st := range s.steps.terms {
		if st.id == id && unit > 0 {
			out[st.step] += st.wt / unit
		}
	}
	return out
}

// A step reads its words as the whole query does: "closed" relates to state alone, as
// written, not to update as "close" does; "turn off" asks for disable as strongly as
// "turn on" for enable (a phrase at half and its phrasal verb at half).
func TestStepsAsWholeQuery(t *testing.T) {
	docs := []Doc{
		{Name: "update_issue", Description: "Update the state of an issue."},
		{Name: "list_issues", Description: "List issues."},
		{Name: "enable_feature", Description: "Enable a feature."},
		{Name: "disable_feature", Description: "Disable a feature."},
	}
	const closed = "list the closed issues of acme/api, then update the labels of each of them to triaged"
	if got := stepWeights(t, docs, closed, "update"); got[0] != 0 || got[1] == 0 {
		t.Errorf("%q: update weighs %v by step, want none in the first (closed: state alone)", closed, got)
	}
	const turn = "turn on dark mode for the web app, then turn off the beta banner for every user"
	on, off := stepWeights(t, docs, turn, "enable"), stepWeights(t, docs, turn, "disable")
	if on[0] == 0 || math.Abs(on[0]-off[1]) > 1e-9 {
		t.Errorf("%q: enable weighs %v by step, disable %v: want the same in their steps", turn, on, off)
	}
}

// nextQuotedEach is nextQuoted as first written: each opening quote looks for its
// closing one to the end of the query, which made a query of many unclosed quotes
// quadratic. TestNextQuotedLinear checks the linear one against it.
func nextQuotedEach(query string, from int) (open, end int) {
	for i := from; i < len(query); i++ {
		q := query[i]
		if q != '\'' && q != '"' && q != '`' {
			continue
		}
		if i+1 >= len(query) || isSpace(query[i+1]) || (q == '\'' && i > 0 && !isSpace(query[i-1]) && query[i-1] != '(') {
			continue
		}
		if end := closingQuote(query, i+1, q); end >= 0 {
			return i, end
		}
	}
	return -1, -1
}

// nextQuoted, which skips a quote once it found no closing one, finds the spans
// nextQuotedEach finds, from every start, in random text of quotes, spaces, letters
// and punctuation.
func TestNextQuotedLinear(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	const alphabet = "'\"` `'a( ,.)b\"'"
	for range 20000 {
		b := make([]byte, r.IntN(24))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		q := string(b)
		for from := 0; from <= len(q); from++ {
			o, e := nextQuoted(q, from)
			wo, we := nextQuotedEach(q, from)
			if o != wo || e != we {
				t.Fatalf("nextQuoted(%q, %d) = %d, %d; want %d, %d", q, from, o, e, wo, we)
			}
		}
	}
}

// nextQuoted reads a query of unclosed quotes in linear time: 1 MiB of them ("'ab 'ab
// ...", 262,144 quotes opening a span none closes) is read in about a millisecond,
// where looking for each opening's closing quote again would scan ~10^11 bytes (a
// minute or more); the 5 s bound leaves a thousandfold margin for a loaded machine.
func TestNextQuotedUnclosedInTime(t *testing.T) {
	q := strings.Repeat("'ab ", 1<<18)
	done := make(chan [2]int, 1)
	go func() {
		o, e := nextQuoted(q, 0)
		done <- [2]int{o, e}
	}()
	select {
	case got := <-done:
		if got != [2]int{-1, -1} {
			t.Fatalf("nextQuoted(1 MiB of unclosed quotes) = %d, %d; want -1, -1", got[0], got[1])
		}
	case <-time.After(5 * time.Second):
		t.Fatal("nextQuoted took over 5 s on 1 MiB of unclosed quotes: quadratic")
	}
}
