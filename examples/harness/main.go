// Command harness shows per-request tool plans (the PLAN requirements) as an LLM harness
// or gateway would use them: two consecutive requests of one session, the first to a
// model with provider-native tool search and the next to one without, each plan's size
// in bytes next to sending every tool in full; then every provider path of
// Planner.Request (any model, Anthropic tool search or host search, OpenAI hosted or
// client tool search) with its request size and what the model sees up front, on the
// demo catalog and, when the real catalogs of ../shared/data/catalogs are present (or
// -catalogs DIR names them), on gitlab's; and the bytes deferral saves on each real
// catalog.
//
//	go run ./examples/harness [-catalogs DIR]
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/examples/internal/demo"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/plan"
)

func main() {
	dir := flag.String("catalogs", "", "folder of real catalogs (default: ../shared/data/catalogs from the module root, when present)")
	flag.Parse()
	if *dir == "" {
		*dir = defaultCatalogs()
	}
	if err := run(os.Stdout, *dir); err != nil {
		log.Fatal(err)
	}
}

// defaultCatalogs returns ../shared/data/catalogs relative to the module root (the
// nearest folder above the working directory holding go.mod), or "" when there is none.
func defaultCatalogs() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "..", "shared", "data", "catalogs")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// model is what the harness knows of the model serving one request.
type model struct {
	name string
	caps plan.ModelCapabilities
}

func run(w io.Writer, catalogsDir string) error {
	ctx := context.Background()
	cat, err := discovery.NewCatalog(demo.Tools(), nil)
	if err != nil {
		return err
	}
	store := grants.NewMemory()
	for _, r := range demo.Rows() {
		if _, err := store.Put(ctx, r); err != nil {
			return err
		}
	}
	d := discovery.New(&discovery.Options{Enabled: true, Catalog: cat, Grants: store})
	// Deferral from the default thresholds; the inference tools stay loaded, since
	// nearly every conversation of this platform ends with a prediction.
	pl := plan.New(d, &plan.Policy{
		Servers: map[string]plan.Loading{"inference_": plan.LoadEager},
	})

	fmt.Fprintf(w, "== One session of %s, two consecutive requests\n", demo.Alice.ID)
	for i, m := range []model{
		{"a model with native tool search", plan.ModelCapabilities{NativeToolSearch: true}},
		{"a model without it", plan.ModelCapabilities{}},
	} {
		tp, err := pl.Plan(ctx, demo.Alice, m.caps)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "\nrequest %d, %s: %s plan\n", i+1, m.name, tp.Mode)
		printPlan(w, tp)
	}

	// The model without native search calls the discovery tool; the harness answers the
	// call's arguments with DiscoverTool (grants reread, the page sized for a tools/call
	// result), and the next request sends what it found in full.
	const query = "roll out a new model version"
	page, err := d.DiscoverTool(ctx, demo.Alice, json.RawMessage(`{"query":"`+query+`","limit":2}`))
	if err != nil {
		return err
	}
	var found []string
	for _, def := range page.Tools {
		found = append(found, toolName(def))
	}
	fmt.Fprintf(w, "\nthe model calls %s {\"query\": %q, \"limit\": 2}: %s\n",
		discovery.DefaultToolName, query, strings.Join(found, ", "))
	tp, err := pl.Plan(ctx, demo.Alice, plan.ModelCapabilities{}, found...)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "request 3, the same model: %s plan, %d deferred, %d bytes (catalog %d); full %d\n",
		tp.Mode, len(tp.Deferred), tp.Bytes(), tp.CatalogBytes, tp.FullBytes)
	fmt.Fprintf(w, "  sent in full: %s\n", strings.Join(eagerNames(tp), ", "))

	fmt.Fprintf(w, "\n== Every provider path, %s on the demo catalog\n", demo.Alice.ID)
	// Namespaces by area: the first word of a demo tool's name (models, datasets, ...).
	area := func(tool string) (string, string) {
		ns, _, _ := strings.Cut(tool, "_")
		return ns, "Machine-learning platform: " + ns + " tools."
	}
	if err := printPaths(ctx, w, d, demo.Alice, &plan.Policy{Servers: map[string]plan.Loading{"inference_": plan.LoadEager}}, area); err != nil {
		return err
	}

	if catalogsDir == "" {
		return nil
	}
	files, err := catalogFiles(catalogsDir)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		fmt.Fprintf(w, "\n(no real catalogs: %s is absent or empty)\n", catalogsDir)
		return nil
	}
	if one := pathsCatalog(files); one != "" {
		d, err := grantAll(ctx, one)
		if err != nil {
			return fmt.Errorf("%s: %w", filepath.Base(one), err)
		}
		fmt.Fprintf(w, "\n== Every provider path, real catalog %s, every tool granted, default policy\n", catalogName(one))
		// One namespace for the whole server, as an MCP server deferred at once.
		name := catalogName(one)
		server := func(string) (string, string) {
			return name, "The " + name + " MCP server's tools."
		}
		if err := printPaths(ctx, w, d, grants.Principal{ID: "harness"}, nil, server); err != nil {
			return err
		}
	}

	fmt.Fprintf(w, "\n== Real catalogs, every tool granted, default policy (%s)\n", catalogsDir)
	fmt.Fprintf(w, "bytes of tool definitions; native loaded: what the model sees before its provider's search loads a tool\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "catalog\ttools\tin full\tnative sent\tnative loaded\tclient-side\tclient-side saves\t")
	for _, file := range files {
		row, err := realCatalog(ctx, file)
		if err != nil {
			return fmt.Errorf("%s: %w", filepath.Base(file), err)
		}
		fmt.Fprintln(tw, row)
	}
	return tw.Flush()
}

// printPlan prints what a plan sends and its size next to the full tool set.
func printPlan(w io.Writer, tp *plan.ToolPlan) {
	eager := eagerBytes(tp)
	switch tp.Mode {
	case plan.Native:
		fmt.Fprintf(w, "  %d definitions sent, %d of them with defer_loading: %d bytes\n",
			len(tp.Tools), len(tp.Deferred), tp.ToolsBytes)
		fmt.Fprintf(w, "  in the model's context up front: the %d eager tools, %d bytes; no catalog text\n",
			len(tp.Tools)-len(tp.Deferred), eager)
		fmt.Fprintf(w, "  every tool in full: %d bytes; up front saves %s\n", tp.FullBytes, saving(tp.FullBytes, eager))
	default:
		fmt.Fprintf(w, "  %d definitions sent (the eager tools and the discovery tool): %d bytes\n", len(tp.Tools), tp.ToolsBytes)
		fmt.Fprintf(w, "  catalog segment, %d deferred tools: %d bytes\n", len(tp.Deferred), tp.CatalogBytes)
		fmt.Fprintf(w, "  plan: %d bytes; every tool in full: %d bytes; saves %s\n", tp.Bytes(), tp.FullBytes, saving(tp.FullBytes, tp.Bytes()))
		fmt.Fprintf(w, "  catalog segment:\n")
		for line := range strings.Lines(tp.Catalog) {
			fmt.Fprintf(w, "    %s", line)
		}
	}
	fmt.Fprintf(w, "  sent in full: %s\n", strings.Join(eagerNames(tp), ", "))
}

// toolName reads a tool definition's name.
func toolName(def json.RawMessage) string {
	var f struct {
		Name string `json:"name"`
	}
	json.Unmarshal(def, &f)
	return f.Name
}

// eagerNames are the names of the tools a plan sends in full.
func eagerNames(tp *plan.ToolPlan) []string {
	var names []string
	for _, def := range tp.Tools {
		if name := toolName(def); !slices.Contains(tp.Deferred, name) {
			names = append(names, name)
		}
	}
	return names
}

// eagerBytes is the size, as one JSON array, of the tools a plan sends in full.
func eagerBytes(tp *plan.ToolPlan) int {
	n, count := 2, 0
	for _, def := range tp.Tools {
		if slices.Contains(tp.Deferred, toolName(def)) {
			continue
		}
		if count > 0 {
			n++
		}
		n += len(def)
		count++
	}
	return n
}

func saving(full, sent int) string {
	if full <= 0 {
		return "nothing"
	}
	return fmt.Sprintf("%d bytes (%.0f%%)", full-sent, 100*float64(full-sent)/float64(full))
}

// catalogFiles lists the real catalogs under dir: the complete tool objects of raw/
// when present, else the catalogs of dir itself. A missing dir lists nothing.
func catalogFiles(dir string) ([]string, error) {
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	files, err := filepath.Glob(filepath.Join(dir, "raw", "*.raw-tools.json"))
	if err != nil || len(files) > 0 {
		return files, err
	}
	return filepath.Glob(filepath.Join(dir, "*.json"))
}

// pathsCatalog picks the real catalog whose every path the harness prints: gitlab,
// about 200 tools, when present, else the first.
func pathsCatalog(files []string) string {
	for _, f := range files {
		if catalogName(f) == "gitlab" {
			return f
		}
	}
	if len(files) > 0 {
		return files[0]
	}
	return ""
}

func catalogName(file string) string {
	return strings.TrimSuffix(strings.TrimSuffix(filepath.Base(file), ".json"), ".raw-tools")
}

// grantAll returns an enabled Discoverer over the catalog in file, every tool granted
// to every principal.
func grantAll(ctx context.Context, file string) (*discovery.Discoverer, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var tools []json.RawMessage
	if err := json.Unmarshal(data, &tools); err != nil {
		return nil, err
	}
	cat, err := discovery.NewCatalog(tools, nil)
	if err != nil {
		return nil, err
	}
	store := grants.NewMemory()
	for _, name := range cat.Names() {
		if _, err := store.Put(ctx, grants.Row{Principal: grants.AnyPrincipal, Tool: name, Effect: grants.Allow}); err != nil {
			return nil, err
		}
	}
	return discovery.New(&discovery.Options{Enabled: true, Catalog: cat, Grants: store}), nil
}

// providerPaths are the model declarations, one per path of Planner.Request.
var providerPaths = []struct {
	model  string
	search plan.Search
	caps   plan.ModelCapabilities
}{
	{"any model", plan.SearchAuto, plan.ModelCapabilities{}},
	{"Anthropic, tool search (BM25)", plan.SearchBM25, plan.ModelCapabilities{Provider: plan.ProviderAnthropic, NativeToolSearch: true}},
	{"Anthropic, tool search (regex)", plan.SearchRegex, plan.ModelCapabilities{Provider: plan.ProviderAnthropic, NativeToolSearch: true}},
	{"Anthropic, host search", plan.SearchClient, plan.ModelCapabilities{Provider: plan.ProviderAnthropic, NativeToolSearch: true, ClientToolSearch: true}},
	{"OpenAI Responses, hosted", plan.SearchAuto, plan.ModelCapabilities{Provider: plan.ProviderOpenAI, NativeToolSearch: true}},
	{"OpenAI Responses, client", plan.SearchClient, plan.ModelCapabilities{Provider: plan.ProviderOpenAI, NativeToolSearch: true, ClientToolSearch: true}},
	{"OpenAI Responses, hosted, namespaces", plan.SearchAuto, plan.ModelCapabilities{Provider: plan.ProviderOpenAI, NativeToolSearch: true}},
}

// printPaths prints, for principal p, one row per provider path: the request's size,
// what the model reads of it up front, and every tool in full.
func printPaths(ctx context.Context, w io.Writer, d *discovery.Discoverer, p grants.Principal, policy *plan.Policy, namespace func(string) (string, string)) error {
	fmt.Fprintln(w, "bytes of the request's tools and system text; up front: what the model reads before any search")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "model\tpath\trequest\tup front\tin full\tthe model sees up front\t")
	for _, m := range providerPaths {
		pol := plan.Policy{}
		if policy != nil {
			pol = *policy
		}
		pol.Search = m.search
		if strings.HasSuffix(m.model, "namespaces") {
			pol.OpenAINamespace = namespace
		}
		r, err := plan.New(d, &pol).Request(ctx, p, m.caps)
		if err != nil {
			return err
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%s\t\n", m.model, r.Path, r.RequestBytes, r.UpFrontBytes, r.FullBytes, upFront(r))
	}
	return tw.Flush()
}

// upFront says what the model reads of a rendering before it searches.
func upFront(r *plan.Rendering) string {
	full := len(r.Tools) // client-side: the tools in full, the discovery tool included
	if r.Path != plan.PathClientSide {
		full -= len(r.Deferred)
		if r.SearchTool != "" {
			full-- // the search tool, named apart
		}
	}
	switch r.Path {
	case plan.PathClientSide:
		return fmt.Sprintf("%d tools in full (%s included), catalog of %d lines", full, r.SearchTool, len(r.Deferred))
	case plan.PathAnthropicServer:
		return fmt.Sprintf("%d tools in full, %s", full, r.SearchTool)
	case plan.PathAnthropicClient:
		return fmt.Sprintf("%d tools in full, %s answered by the Discoverer", full, r.SearchTool)
	case plan.PathOpenAIHosted:
		if n := namespaces(r); n > 0 {
			return fmt.Sprintf("%d functions in full, name and description of %d namespaces holding %d deferred, tool_search", full-n+len(r.Deferred), n, len(r.Deferred))
		}
		return fmt.Sprintf("%d functions in full, name and description of %d deferred, tool_search", full, len(r.Deferred))
	default:
		return fmt.Sprintf("%d functions in full, name and description of %d deferred, tool_search (client)", full, len(r.Deferred))
	}
}

// namespaces counts the OpenAI namespaces of a rendering.
func namespaces(r *plan.Rendering) int {
	n := 0
	for _, v := range r.Tools {
		if _, ok := v.(plan.OpenAINamespace); ok {
			n++
		}
	}
	return n
}

// realCatalog plans one real catalog for both modes and returns its table row.
func realCatalog(ctx context.Context, file string) (string, error) {
	d, err := grantAll(ctx, file)
	if err != nil {
		return "", err
	}
	pl := plan.New(d, nil)
	p := grants.Principal{ID: "harness"}
	native, err := pl.Plan(ctx, p, plan.ModelCapabilities{NativeToolSearch: true})
	if err != nil {
		return "", err
	}
	client, err := pl.Plan(ctx, p, plan.ModelCapabilities{})
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s\t%d\t%d\t%d\t%d\t%d\t%s\t", catalogName(file), len(native.Tools), client.FullBytes,
		native.ToolsBytes, eagerBytes(native), client.Bytes(), saving(client.FullBytes, client.Bytes())), nil
}
