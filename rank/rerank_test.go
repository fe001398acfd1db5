package rank_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/rank"
)

// TestStepGrid prints, for RANK_STEPS=1, the pooled figures of the tuning sets for a
// grid of the step bonus and spread (rerank.go); for RANK_STEPS=literal and hint, for a
// grid of the weight of quoted words and of the word "file" a file name adds (hints.go);
// for RANK_STEPS=topic and anaphora, for grids of the share of the topic, and of the
// clause before, that a verb-led step gains; for RANK_STEPS=part, for a grid of the
// weight of each word of an abbreviation of two words (query.go's partWeight).
func TestStepGrid(t *testing.T) {
	mode := os.Getenv("RANK_STEPS")
	if mode == "" {
		t.Skip("set RANK_STEPS=1, literal, hint, topic, anaphora or part")
	}
	sets := loadKindSets(t, false)
	run := func(label string, set func() (restore func())) {
		restore := set()
		pools := evalPools(sets, false)
		restore()
		fmt.Print(label)
		printPools(pools)
	}
	switch mode {
	case "literal":
		for _, w := range []float64{1, 0.5, 0.3, 0.15, 0} {
			run(fmt.Sprintf("literal %.2f", w), func() func() { return rank.SetLiteralWeight(w) })
		}
	case "hint":
		for _, w := range []float64{0, 0.25, 0.5, 1} {
			run(fmt.Sprintf("hint %.2f", w), func() func() { return rank.SetHintWeight(w) })
		}
	case "topic":
		for _, w := range []float64{0, 0.1, 0.2, 0.3, 0.5, 1} {
			run(fmt.Sprintf("topic %.2f", w), func() func() { return rank.SetStepTopic(w) })
		}
	case "anaphora":
		for _, w := range []float64{0, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1} {
			run(fmt.Sprintf("anaphora %.2f", w), func() func() { return rank.SetStepAnaphora(w) })
		}
	case "part":
		for _, w := range []float64{0.5, 0.6, 0.7, 0.8, 1} {
			run(fmt.Sprintf("part %.2f", w), func() func() { return rank.SetPartWeight(w) })
		}
	default:
		for _, spread := range []float64{0, 0.25, 0.5, 0.75} {
			for _, bonus := range []float64{0, 0.25, 0.5, 1} {
				for _, words := range []int{2} {
					run(fmt.Sprintf("spread %.2f bonus %.2f words %d", spread, bonus, words), func() func() {
						r1 := rank.SetStepSpread(spread)
						r2 := rank.SetStepBonus(bonus, words)
						return func() { r2(); r1() }
					})
				}
			}
		}
	}
}

// stepCatalog holds one tool per step of stepQuery and a dashboard matching words of
// every step, which the plain sum of BM25F ranks above two of them.
func stepCatalog() []rank.Doc {
	docs := withWidgets("a repository", []rank.Doc{
		{Name: "list_issues", Description: "List the issues of a repository."},
		{Name: "add_issue_label", Description: "Add a label to an issue."},
		{Name: "set_issue_milestone", Description: "Set the milestone of an issue."},
		{Name: "issue_dashboard", Description: "Show the issues of a repository with their labels and milestones, in one view."},
	})
	return docs
}

const stepQuery = "List the open issues of the repository acme/web, add the label bug to issue 12, and set the milestone of issue 12 to v2."

// A long query of several steps finds the tool of each step first, ahead of a tool
// matching words of every step (the step bonus and spread, rerank.go); without them the
// dashboard crowds one out of the best three.
func TestSearchSteps(t *testing.T) {
	docs := stepCatalog()
	ix := rank.NewIndex(docs)
	all := allOf(len(docs))
	want := []string{"add_issue_label", "list_issues", "set_issue_milestone"}
	got := names(docs, ix.Search(nil, stepQuery, all, 3))
	if s := slices.Sorted(slices.Values(got)); !slices.Equal(s, want) {
		t.Errorf("Search(%q, 3) = %v, want %v in any order", stepQuery, got, want)
	}
	r1, r2, r3 := rank.SetStepSpread(0), rank.SetStepBonus(0, 2), rank.SetStepLead(0)
	defer r1()
	defer r2()
	defer r3()
	if got := names(docs, ix.Search(nil, stepQuery, all, 3)); !slices.Contains(got, "issue_dashboard") {
		t.Errorf("without the step reordering Search(%q, 3) = %v: the test proves nothing", stepQuery, got)
	}
}

// For long queries of several steps, Search keeps its guarantees: hits for k are a
// prefix of the unlimited ranking, best first with ties by name; and a doc outside
// allowed changes nothing (SPEC DISC-5): the hits and scores over (catalog, allowed)
// equal those over a catalog of the allowed docs alone.
func TestSearchStepsGuarantees(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 4))
	words := strings.Fields("list get create delete branch pull request merge issue comment file repository user page screenshot browser cookie virtual machine database query search run logs")
	clause := func() string {
		w := make([]string, 3+r.IntN(3))
		for i := range w {
			w[i] = words[r.IntN(len(words))]
		}
		return strings.Join(w, " ")
	}
	checked := 0
	for trial := range 100 {
		n := 20 + r.IntN(150)
		docs := randomCatalog(r, n, "d")
		allowed := rank.NewSet(n)
		var sub []rank.Doc
		var subIndex []int
		for i := range docs {
			if r.IntN(3) != 0 {
				allowed.Add(i)
				sub = append(sub, docs[i])
				subIndex = append(subIndex, i)
			}
		}
		ix, six := rank.NewIndex(docs), rank.NewIndex(sub)
		q := clause() + ", " + clause() + " and then " + clause() + "; " + clause()
		every := ix.Search(nil, q, allowed, 0)
		for i := 1; i < len(every); i++ {
			p, h := every[i-1], every[i]
			if p.Score < h.Score || p.Score == h.Score && docs[p.Doc].Name > docs[h.Doc].Name {
				t.Fatalf("trial %d: Search(%q) = %v: not best first, ties by name", trial, q, every)
			}
		}
		for _, k := range []int{1, 3, 10, 20, 21, 22, 45} {
			got := ix.Search(nil, q, allowed, k)
			if want := every[:min(k, len(every))]; !slices.Equal(got, want) {
				t.Fatalf("trial %d: Search(%q, %d) = %v, not a prefix of %v", trial, q, k, got, every)
			}
		}
		subHits := six.Search(nil, q, allOf(len(sub)), 0)
		if len(subHits) != len(every) {
			t.Fatalf("trial %d: %d hits over allowed, %d over the allowed docs alone", trial, len(every), len(subHits))
		}
		for i, h := range subHits {
			if subIndex[h.Doc] != every[i].Doc || h.Score != every[i].Score {
				t.Fatalf("trial %d: hit %d: %v over the allowed docs alone, %v over allowed", trial, i, h, every[i])
			}
		}
		if len(every) > 1 {
			checked++
		}
	}
	if checked < 30 {
		t.Fatalf("only %d trials had two hits or more: the test proves little", checked)
	}
}

// A long query of several steps allocates nothing when dst has room.
func TestSearchStepsAllocs(t *testing.T) {
	docs := stepCatalog()
	ix := rank.NewIndex(docs)
	all := allOf(len(docs))
	dst := make([]rank.Hit, 0, 64)
	q := stepQuery + " Then post 'done' in `docs/CHANGELOG.md`."
	ix.Search(dst, q, all, 10) // warm the pooled scratch
	if n := testing.AllocsPerRun(50, func() { dst = ix.Search(dst[:0], q, all, 10) }); n != 0 {
		t.Errorf("Search of a long query allocated %.1f times per run, want 0", n)
	}
}

// Words of a query's quoted text weigh less than the task's own words: "rename the
// issue" finds the tool that renames, not the one whose words the new title repeats.
func TestSearchQuotedWords(t *testing.T) {
	docs := []rank.Doc{
		{Name: "update_issue_title", Description: "Change the title of an issue."},
		{Name: "merge_pull_request", Description: "Merge a pull request into a branch."},
		{Name: "get_issue", Description: "Get an issue."},
	}
	ix := rank.NewIndex(docs)
	all := allOf(len(docs))
	q := "change the title of issue 7 to 'merge pull request branch'"
	if got := names(docs, ix.Search(nil, q, all, 3)); len(got) == 0 || got[0] != "update_issue_title" {
		t.Errorf("Search(%q) = %v, want update_issue_title first", q, got)
	}
	restore := rank.SetLiteralWeight(1)
	defer restore()
	if got := names(docs, ix.Search(nil, q, all, 3)); len(got) > 0 && got[0] == "update_issue_title" {
		t.Errorf("with quoted words at full weight Search(%q) = %v: the test proves nothing", q, got)
	}
	restore()
	// Only the quoted words weigh less: the word right after the quote keeps its weight.
	termScore := func(q, term string) float64 {
		for _, m := range ix.Explain(q, all, 2, docs[2]) {
			if m.Term == term && m.From == "word" {
				return m.Score
			}
		}
		return 0
	}
	if after, before := termScore("get 'merge' issue", "issu"), termScore("get issue 'merge'", "issu"); after == 0 || after != before {
		t.Errorf("issue right after a quote adds %v to get_issue, before it %v: want the same", after, before)
	}
}

// A query naming a file, a URL or JavaScript code without the word finds the tools of
// files, of URLs or of JavaScript; one naming a page by its quoted title, the tool
// that searches.
func TestSearchHints(t *testing.T) {
	docs := []rank.Doc{
		{Name: "get_file_contents", Description: "Get the contents of a file."},
		{Name: "navigate", Description: "Navigate to a URL."},
		{Name: "evaluate", Description: "Evaluate a JavaScript expression."},
		{Name: "archive_mail", Description: "Archive a mail."},
		{Name: "check_links", Description: "Check the links of a page."},
		{Name: "search", Description: "Search pages by title."},
		{Name: "add_comment", Description: "Add a comment to a page."},
		{Name: "list_comments", Description: "List the comments of a page."},
	}
	ix := rank.NewIndex(docs)
	all := allOf(len(docs))
	for q, want := range map[string]string{
		"archive ./notes/todo.txt":                                "get_file_contents",
		"check www.example.com/login":                             "navigate",
		"check `document.querySelectorAll('a').length` in a page": "evaluate",
		"add a comment to the 'Pricing FAQ' page":                 "search",
	} {
		if got := names(docs, ix.Search(nil, q, all, 3)); !slices.Contains(got, want) {
			t.Errorf("Search(%q) = %v, want %s among them", q, got, want)
		}
		restore := rank.SetHintWeight(0)
		if got := names(docs, ix.Search(nil, q, all, 3)); slices.Contains(got, want) {
			t.Errorf("without the hints Search(%q) = %v: the test proves nothing", q, got)
		}
		restore()
	}
}

// The words of a URL or path that the query holds outside it count once: "pipelines"
// in the failing pipeline's URL does not make the request twice about pipelines, so a
// URL or path whose other words no tool holds leaves the hits and their scores as they
// were.
func TestSearchPathEcho(t *testing.T) {
	docs := []rank.Doc{
		{Name: "retry_pipeline", Description: "Retry a failed pipeline."},
		{Name: "create_note", Description: "Add a comment to an issue."},
		{Name: "list_pipelines", Description: "List the pipelines of a project."},
	}
	ix := rank.NewIndex(docs)
	all := allOf(len(docs))
	q := "comment on the issue with a link to the failing pipeline"
	want := ix.Search(nil, q, all, 3)
	for _, path := range []string{" https://gitlab.example/qa7/-/pipelines/99812", " of qa7/pipeline"} {
		if got := ix.Search(nil, q+path, all, 3); len(want) == 0 || !slices.Equal(got, want) {
			t.Errorf("Search with %q = %v, without it %v: want the same hits and scores", path, got, want)
		}
	}
}

// In a task of three steps or more, the best tool of a step led by a verb gains
// stepLead: "edit the draft note" finds update_draft_note, which the tools matching
// "draft notes" in several steps would otherwise push out of the best four.
func TestSearchStepLead(t *testing.T) {
	docs := []rank.Doc{
		{Name: "list_draft_notes", Description: "List the draft notes of a merge request."},
		{Name: "delete_draft_note", Description: "Delete a draft note of a merge request."},
		{Name: "publish_draft_notes", Description: "Publish all draft notes of a merge request."},
		{Name: "get_draft_note", Description: "Get one draft note of a merge request."},
		{Name: "create_draft_note", Description: "Create a draft note on a merge request."},
		{Name: "update_draft_note", Description: "Update a draft note."},
	}
	ix := rank.NewIndex(docs)
	all := allOf(len(docs))
	q := "For merge request 19: list the draft notes of the merge request, edit its text about naming, delete the duplicate draft note, and publish all the draft notes of the merge request."
	if got := names(docs, ix.Search(nil, q, all, 4)); !slices.Contains(got, "update_draft_note") {
		t.Errorf("Search(%q, 4) = %v, want update_draft_note among them", q, got)
	}
	restore := rank.SetStepLead(0)
	defer restore()
	if got := names(docs, ix.Search(nil, q, all, 4)); slices.Contains(got, "update_draft_note") {
		t.Errorf("without the step lead Search(%q, 4) = %v: the test proves nothing", q, got)
	}
}

// In a task of two steps, the best tool of a step led by a verb gains stepLead when it
// scores stepLeadMargin times the step's second best in the window: "so restart the
// payments worker" puts restart_worker first, above the tools of the failed deploy
// (third without the lead); a step whose two tools score alike (restart_worker and
// restart_worker_pool) gives the lead to neither.
func TestSearchStepLeadTwoSteps(t *testing.T) {
	docs := []rank.Doc{
		{Name: "list_deploy_logs", Description: "List the logs of a nightly deploy of a service."},
		{Name: "get_deploy_errors", Description: "Get the errors of a failed deploy of a service."},
		{Name: "get_service_logs", Description: "Get the logs of a service."},
		{Name: "retry_deploy", Description: "Retry a failed deploy of a service."},
		{Name: "list_services", Description: "List the services."},
		{Name: "restart_worker", Description: "Restart a worker."},
		{Name: "scale_worker", Description: "Scale the workers of a service."},
	}
	q := "The nightly deploy of the payments service failed again with errors in its logs, so restart the payments worker now."
	ix := rank.NewIndex(docs)
	all := allOf(len(docs))
	if got := names(docs, ix.Search(nil, q, all, 3)); len(got) == 0 || got[0] != "restart_worker" {
		t.Errorf("Search(%q, 3) = %v, want restart_worker first", q, got)
	}
	restore := rank.SetStepLead(0)
	noLead := names(docs, ix.Search(nil, q, all, 3))
	restore()
	if len(noLead) > 0 && noLead[0] == "restart_worker" {
		t.Errorf("without the step lead Search(%q, 3) = %v: the test proves nothing", q, noLead)
	}

	// Two tools of the step score alike: no clear best, no lead.
	docs = append(docs, rank.Doc{Name: "restart_worker_pool", Description: "Restart a pool of workers."})
	ix = rank.NewIndex(docs)
	all = allOf(len(docs))
	got := ix.Search(nil, q, all, 0)
	restore = rank.SetStepLead(0)
	want := ix.Search(nil, q, all, 0)
	restore()
	if !slices.Equal(got, want) {
		t.Errorf("Search(%q) = %v, want %v as without the lead: the step has no clear best", q, names(docs, got), names(docs, want))
	}
	restore = rank.SetStepLeadMargin(1)
	defer restore()
	if led := ix.Search(nil, q, all, 0); slices.Equal(led, want) {
		t.Errorf("with any best leading, Search(%q) = %v: the test proves nothing", q, names(docs, led))
	}
}

// The tail rule (answer.go) is off for a query read as steps: a tool matching one
// step's words alone may be that step's tool, so Search answers as with no tail rule:
// the tools matching list or label alone, which the rule would cut, are served.
func TestSearchStepsNoTail(t *testing.T) {
	docs := stepCatalog()
	for i := range 5 {
		docs = append(docs, rank.Doc{Name: fmt.Sprintf("view_issue_%d", i), Description: "View an issue."},
			rank.Doc{Name: fmt.Sprintf("label_%d", i), Description: "A label."},
			rank.Doc{Name: fmt.Sprintf("list_%d", i), Description: "List things."})
	}
	ix := rank.NewIndex(docs)
	all := allOf(len(docs))
	got := names(docs, ix.Search(nil, stepQuery, all, 0))
	restore := rank.SetTail(0, rank.TailWord)
	want := names(docs, ix.Search(nil, stepQuery, all, 0))
	restore()
	if !slices.Equal(got, want) {
		t.Errorf("Search(%q) = %v, without the tail rule %v", stepQuery, got, want)
	}
}

// A verb phrase counts in its step's score too (rerank.go stepTerms): "open an issue",
// one step of a long query, makes the tool that creates issues that step's best, so it
// gains the whole step bonus, as the best tool of another step does.
func TestSearchStepsPhrase(t *testing.T) {
	docs := stepCatalog()
	docs = append(docs, rank.Doc{Name: "create_issue", Description: "Create an issue."},
		rank.Doc{Name: "update_issue_state", Description: "Open or close an issue, with a reason, in a repository."})
	ix := rank.NewIndex(docs)
	q := "Open an issue about the crash in the login page, add the label bug to the new issue, and set the milestone of the issue to v2."
	got := names(docs, ix.Search(nil, q, allOf(len(docs)), 0))
	c, u := slices.Index(got, "create_issue"), slices.Index(got, "update_issue_state")
	if c < 0 || u >= 0 && u < c {
		t.Errorf("Search(%q) = %v, want create_issue above update_issue_state", q, got)
	}
	scores := func(bonus float64) map[string]float64 {
		defer rank.SetStepBonus(bonus, 2)()
		m := map[string]float64{}
		for _, h := range ix.Search(nil, q, allOf(len(docs)), 0) {
			m[docs[h.Doc].Name] = h.Score
		}
		return m
	}
	lo, hi := scores(0.25), scores(0.5)
	gc, ga := hi["create_issue"]-lo["create_issue"], hi["add_issue_label"]-lo["add_issue_label"]
	if d := gc - ga; ga <= 0 || d > 1e-6*ga || d < -1e-6*ga {
		t.Errorf("step bonus gained by create_issue %v, by add_issue_label %v: want the same, both the best of a step", gc, ga)
	}
}

// A hit matching words of several steps loses part of what it gains from them (the
// step spread): the dashboard of stepCatalog scores less with the spread than without.
func TestSearchStepsSpread(t *testing.T) {
	docs := stepCatalog()
	ix := rank.NewIndex(docs)
	scores := func(spread float64) map[string]float64 {
		defer rank.SetStepSpread(spread)()
		m := map[string]float64{}
		for _, h := range ix.Search(nil, stepQuery, allOf(len(docs)), 0) {
			m[docs[h.Doc].Name] = h.Score
		}
		return m
	}
	with, without := scores(0.5), scores(0)
	if d, ok := with["issue_dashboard"]; !ok || d >= without["issue_dashboard"] {
		t.Errorf("issue_dashboard scores %v with the step spread, %v without: want less", d, without["issue_dashboard"])
	}
}

// explorerTools are tools of a Data Explorer cluster and of a storage account, for
// explorerTask, a task on the cluster.
var explorerTools = []rank.Doc{
	{Name: "storage_table_list", Title: "List tables", Description: "List tables: the tables of a storage account."},
	{Name: "kusto_table_list", Title: "List tables", Description: "List the tables of a Data Explorer database."},
	{Name: "kusto_table_schema", Title: "Get table schema", Description: "Get the schema of a table of a Data Explorer cluster."},
	{Name: "kusto_query", Title: "Query", Description: "Run a query on a database of a Data Explorer cluster."},
}

const explorerTask = "On the Data Explorer cluster adx-analytics, database telemetry: list the tables, get the schema of the Events table, then run a query to sample some rows"

// The clauses before a task's first verb-led step set its topic, and each verb-led step
// is read with a share of it: "list the tables" of a task on a Data Explorer cluster
// prefers the cluster's tables to a storage account's, whose words match the step
// alone a little better (stepTopic, rerank.go).
func TestSearchStepTopic(t *testing.T) {
	docs := withWidgets("an account", slices.Clone(explorerTools))
	ix := rank.NewIndex(docs)
	q := explorerTask + "."
	if got, ok := ranksAbove(ix, docs, q, "kusto_table_list", "storage_table_list"); !ok {
		t.Errorf("Search(%q) = %v, want kusto_table_list above storage_table_list", q, got)
	}
	restore := rank.SetStepTopic(0)
	defer restore()
	if _, ok := ranksAbove(ix, docs, q, "kusto_table_list", "storage_table_list"); ok {
		t.Errorf("without the topic kusto_table_list ranks above storage_table_list: the test proves nothing")
	}
}

// A verb-led step whose own words no hit holds is no step, whatever the topic adds to
// it: "then archive the zorblax quux" leaves every hit and score of the task as they are
// without it (rerankSteps' own; with best, the hit best on the topic led that step).
func TestSearchStepWithoutOwnWords(t *testing.T) {
	docs := withWidgets("an account", append(slices.Clone(explorerTools),
		rank.Doc{Name: "kusto_cluster_show", Title: "Data Explorer cluster", Description: "Describe a Data Explorer cluster: its databases and telemetry."}))
	ix := rank.NewIndex(docs)
	all := allOf(len(docs))
	q := explorerTask
	want := ix.Search(nil, q+".", all, 0)
	got := ix.Search(nil, q+", then archive the zorblax quux.", all, 0)
	if !slices.Equal(got, want) {
		t.Errorf("Search(%q) with a step no tool holds = %v, without %v", q, got, want)
	}
}

// Words of a request's own grammar ("the one about naming") are no query terms: a tool
// whose description says "one" does not match them (queryStop, lexicon.go), unless the
// query holds no other word.
func TestSearchQueryStopWords(t *testing.T) {
	docs := withWidgets("an account", []rank.Doc{
		{Name: "get_note", Description: "Get one note of a merge request."},
		{Name: "update_draft_note", Description: "Update a draft note of a merge request."},
		{Name: "together_chat", Description: "Chat with a Together AI model."},
	})
	ix := rank.NewIndex(docs)
	all := allOf(len(docs))
	q := "edit the one about the naming of the draft"
	if got := names(docs, ix.Search(nil, q, all, 0)); !slices.Equal(got, []string{"update_draft_note"}) {
		t.Errorf("Search(%q) = %v, want [update_draft_note]", q, got)
	}
	// A query of such words alone has no other words to ask for: they are its words.
	// SPEC DISC-4
	for q, want := range map[string][]string{
		"one": {"get_note"}, `"one"`: {"get_note"}, "together": {"together_chat"},
		"still, together": {"together_chat"}, "one together": {"together_chat", "get_note"},
		"together chat": {"together_chat"}, "the": nil,
	} {
		if got := names(docs, ix.Search(nil, q, all, 0)); !slices.Equal(got, want) {
			t.Errorf("Search(%q) = %v, want %v", q, got, want)
		}
	}
	// In quotes such a word is part of a value the task passes on, and counts.
	matchesOne := func(q string) bool {
		for _, m := range ix.Explain(q, all, 0, docs[0]) {
			if m.Term == "one" {
				return true
			}
		}
		return false
	}
	if q := "find the note titled 'one draft'"; !matchesOne(q) {
		t.Errorf("Explain(%q, get_note) has no match of the quoted word one", q)
	}
	if q := "find the one note titled draft"; matchesOne(q) {
		t.Errorf("Explain(%q, get_note) matches one, a word of the request's grammar", q)
	}
	restore := rank.SetQueryStop(true)
	defer restore()
	if got := names(docs, ix.Search(nil, q, all, 0)); !slices.Contains(got, "get_note") {
		t.Errorf("with the query's stop words counted Search(%q) = %v: the test proves nothing", q, got)
	}
}

// A verb-led step holding a pronoun ("create a new one") reads the clause before it as
// naming what the pronoun stands for: create_project_variable is the step's tool, not
// create_pipeline, whose words match the clause alone better (stepAnaphora, rerank.go).
func TestSearchStepAnaphora(t *testing.T) {
	docs := withWidgets("an account", []rank.Doc{
		{Name: "delete_project_variable", Description: "Delete a variable of a project."},
		{Name: "create_project_variable", Description: "Create a variable of a project, with its value."},
		{Name: "create_pipeline", Description: "Create a new pipeline run, with the given values."},
		{Name: "cancel_pipeline", Description: "Cancel a running pipeline."},
	})
	ix := rank.NewIndex(docs)
	q := "Delete the CI variable DEPLOY_TOKEN from project ops/deployer, create a new one with the rotated value, and cancel the running pipeline."
	if got, ok := ranksAbove(ix, docs, q, "create_project_variable", "create_pipeline"); !ok {
		t.Errorf("Search(%q) = %v, want create_project_variable above create_pipeline", q, got)
	}
	restore := rank.SetStepAnaphora(0)
	defer restore()
	if _, ok := ranksAbove(ix, docs, q, "create_project_variable", "create_pipeline"); ok {
		t.Errorf("without the anaphora create_project_variable ranks above create_pipeline: the test proves nothing")
	}
}

// "assign it to @maria" asks for the assignees of an issue: a handle after "assign"
// stands for "assignee" (curatedPhrases, lexicon.go), where "assign" alone finds the
// tool named for assigning Copilot.
func TestSearchAssignMention(t *testing.T) {
	docs := withWidgets("an issue", []rank.Doc{
		{Name: "assign_copilot_to_issue", Description: "Assign Copilot to an issue."},
		{Name: "update_issue_assignees", Description: "Update the assignees of an issue."},
	})
	ix := rank.NewIndex(docs)
	all := allOf(len(docs))
	for q, want := range map[string]string{
		"assign the bug to @maria": "update_issue_assignees",
		"assign the bug to maria":  "assign_copilot_to_issue", // no handle: the test proves something
	} {
		if got := names(docs, ix.Search(nil, q, all, 0)); len(got) == 0 || got[0] != want {
			t.Errorf("Search(%q) = %v, want %s first", q, got, want)
		}
	}
}

// withWidgets returns docs followed by 30 tools managing widgets of of ("a repository"),
// which give the words of the docs under test their idf.
func withWidgets(of string, docs []rank.Doc) []rank.Doc {
	for i := range 30 {
		docs = append(docs, rank.Doc{Name: fmt.Sprintf("tool_%02d", i), Description: fmt.Sprintf("Manage widget %d of %s.", i, of)})
	}
	return docs
}

// ranksAbove returns the names of Search(q)'s hits over every doc, and whether hi is
// among them and above lo (or lo is not).
func ranksAbove(ix *rank.Index, docs []rank.Doc, q, hi, lo string) ([]string, bool) {
	got := names(docs, ix.Search(nil, q, allOf(len(docs)), 0))
	i, j := slices.Index(got, hi), slices.Index(got, lo)
	return got, i >= 0 && (j < 0 || i < j)
}
