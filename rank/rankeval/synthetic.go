package rankeval

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/deferredtools/deferredtools/rank"
)

// CatalogFiles are the complete real catalogs of the shared data folder that Synthetic
// repeats (the "-default" and "-namespace" files are subsets of these and left out).
var CatalogFiles = []string{"github.json", "gitlab.json", "azure.json", "playwright.json", "notion.json", "mcp-reference.json"}

// Synthetic returns a catalog of n tools for benchmarks. When dir holds the real catalogs
// (CatalogFiles), it repeats them in order, the k-th repetition's names suffixed with
// "~k" (and a name two servers share suffixed with "~server"), and real is true. When dir has none of them, it generates tools from a fixed
// vocabulary with a fixed seed, and real is false. A present but unreadable catalog is an
// error. An n below 1 gives no tools.
func Synthetic(dir string, n int) (docs []rank.Doc, real bool, err error) {
	n = max(n, 0)
	var base []rank.Doc
	seen := make(map[string]bool)
	for _, f := range CatalogFiles {
		path := filepath.Join(dir, f)
		if _, err := os.Stat(path); err != nil {
			continue
		}
		d, err := LoadCatalog(path)
		if err != nil {
			return nil, false, err
		}
		for _, t := range d {
			if seen[t.Name] { // several servers have a create_or_update_file
				t.Name += "~" + strings.TrimSuffix(f, ".json")
			}
			seen[t.Name] = true
			base = append(base, t)
		}
	}
	if len(base) == 0 {
		return generated(n), false, nil
	}
	docs = make([]rank.Doc, 0, n)
	for k := 0; len(docs) < n; k++ {
		for _, d := range base {
			if len(docs) == n {
				break
			}
			if k > 0 {
				d.Name = fmt.Sprintf("%s~%d", d.Name, k)
			}
			docs = append(docs, d)
		}
	}
	return docs, true, nil
}

var (
	genVerbs   = strings.Fields("list get create update delete search find merge approve close open run cancel retry download upload export import sync archive restore assign review comment tag deploy scale restart stop start")
	genObjects = strings.Fields("issue pull_request branch commit repository file directory release tag label milestone pipeline job artifact workflow secret variable user team project member cluster node pod deployment service database table index backup snapshot bucket object queue topic subscription key vault certificate page block comment browser tab cookie screenshot network request dataset model registry invoice payment customer order")
	genWords   = strings.Fields("the a of to for in with by from and or this that given specific resource resources details current state status optional filter filters result results returns return owner name id identifier scope default paginated page size limit account project group region location subscription tenant version content data body title description message user users item items list values value field fields query search match matching")
)

// generated builds n tools from fixed vocabularies with a fixed seed.
func generated(n int) []rank.Doc {
	r := rand.New(rand.NewPCG(1, 2))
	docs := make([]rank.Doc, n)
	for i := range docs {
		v := genVerbs[r.IntN(len(genVerbs))]
		o := genObjects[r.IntN(len(genObjects))]
		var desc strings.Builder
		fmt.Fprintf(&desc, "%s %s", strings.ToUpper(v[:1])+v[1:], strings.ReplaceAll(o, "_", " "))
		for j, m := 0, 8+r.IntN(40); j < m; j++ {
			desc.WriteByte(' ')
			if r.IntN(4) == 0 {
				desc.WriteString(genObjects[r.IntN(len(genObjects))])
			} else {
				desc.WriteString(genWords[r.IntN(len(genWords))])
			}
		}
		docs[i] = rank.Doc{
			Name:        fmt.Sprintf("%s_%s_%d", v, o, i),
			Title:       v + " " + strings.ReplaceAll(o, "_", " "),
			Description: desc.String(),
		}
	}
	return docs
}

// BenchQueries are 100 queries of the kind an agent sends to find a tool in the real
// catalogs (GitHub, GitLab, Azure, Playwright, Notion, the MCP reference servers), for
// benchmarks.
var BenchQueries = []string{
	"list open pull requests", "create a new branch", "merge a pull request", "add a comment to an issue",
	"search code in repositories", "get file contents", "list commits on a branch", "create a release",
	"request a review on my PR", "close an issue", "list workflow runs", "rerun failed GitHub Actions job",
	"download job logs", "list dependabot alerts", "secret scanning alerts", "star a repository",
	"fork a repo", "list notifications", "mark notifications as read", "create a gist",
	"update issue labels", "assign copilot to an issue", "list tags", "get the latest release",
	"search users by name", "list team members", "create merge request", "approve merge request",
	"list pipeline jobs", "retry a failed pipeline", "get merge request diffs", "list project milestones",
	"create a wiki page", "list group projects", "get gitlab issue", "list merge request discussions",
	"create a new label", "list environments and deployments", "upload a file to the repository", "search gitlab projects",
	"list storage accounts", "get key vault secret", "list virtual machines", "create cosmos db container",
	"list resource groups in a subscription", "query azure monitor logs", "list AKS clusters", "get app service details",
	"list sql databases", "create a storage blob container", "list service bus queues", "get redis cache",
	"list container registries", "deploy an azure function app", "show cost recommendations", "list event hubs",
	"get postgres server configuration", "list role assignments", "search azure ai index", "check resource health",
	"take a screenshot of the page", "navigate to a url", "click a button", "fill in a form",
	"type text into an input", "press a key", "upload a file in the browser", "list console messages",
	"get network requests", "close the browser", "resize browser window", "hover over an element",
	"select an option from dropdown", "wait for text to appear", "save page as pdf", "set a cookie",
	"clear local storage", "start recording a video", "handle a dialog", "drag and drop",
	"search notion pages", "create a page in notion", "update a block", "append block children",
	"query a database", "list users", "add a comment to a page", "retrieve page properties",
	"move a page", "get page markdown", "read a text file", "write a file",
	"list directory with sizes", "search files by pattern", "create a directory", "move or rename a file",
	"create entities in the knowledge graph", "add observations", "search nodes in memory graph", "think step by step",
}
