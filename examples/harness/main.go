// Command harness shows per-request tool plans (the PLAN requirements) as an LLM harness
// or gateway would use them: two consecutive requests of one session, the first to a
// model with provider-native tool search and the next to one without, each plan's size
// in bytes next to sending every tool in full, and, when the real catalogs of
// ../shared/data/catalogs are present (or -catalogs DIR names them), the bytes deferral
// saves on each of them.
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

	// The model without native search calls the discovery tool; the harness answers it
	// with Discover, and the next request sends what it found in full.
	const query = "roll out a new model version"
	page, err := d.Discover(ctx, demo.Alice, discovery.Request{Query: query, Limit: 2})
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

// realCatalog plans one real catalog for both modes and returns its table row.
func realCatalog(ctx context.Context, file string) (string, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return "", err
	}
	var tools []json.RawMessage
	if err := json.Unmarshal(data, &tools); err != nil {
		return "", err
	}
	cat, err := discovery.NewCatalog(tools, nil)
	if err != nil {
		return "", err
	}
	store := grants.NewMemory()
	for _, name := range cat.Names() {
		if _, err := store.Put(ctx, grants.Row{Principal: grants.AnyPrincipal, Tool: name, Effect: grants.Allow}); err != nil {
			return "", err
		}
	}
	d := discovery.New(&discovery.Options{Enabled: true, Catalog: cat, Grants: store})
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
	name := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(file), ".json"), ".raw-tools")
	return fmt.Sprintf("%s\t%d\t%d\t%d\t%d\t%d\t%s\t", name, cat.Len(), client.FullBytes,
		native.ToolsBytes, eagerBytes(native), client.Bytes(), saving(client.FullBytes, client.Bytes())), nil
}
