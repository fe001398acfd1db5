// Command rankeval measures package rank on a labelled query set.
//
// Usage:
//
//	go run ./rank/cmd/rankeval -catalog FILE -queries FILE [-json]
//
// FILE for -catalog is a JSON array of tools {name, title?, description, inputSchema?,
// ...} (the schema's parameter text is ranked too, as discovery does); FILE for
// -queries is a JSON array of {"query": ..., "relevant": [tool names], "kind"?: ...}.
// Every query runs through rank with limit 16 (discovery's largest page) and every tool
// allowed; the command prints Recall@1, @5, @10, MRR@10 and nDCG@10 of the first 10
// results (binary relevance), for queries with an empty relevant list the mean number of
// results and the share answered with none, the mean tools and bytes of text of a first
// page, and the same for each kind of query. Queries naming an unknown tool are reported
// and skipped. -json
// prints the same as one JSON object; -params=false ranks names, titles and
// descriptions alone (discovery.CatalogOptions.IgnoreParamText). -explain N prints instead
// each query's best N hits, relevant ones starred, each with the query terms it matches:
// where the term comes from (word, synonym, related...), the fields holding it and what
// it adds to the score.
//
// For example, on the MetaTool development set:
//
//	go run ./rank/cmd/rankeval -catalog ../shared/data/retrieval/metatool/tools.json \
//		-queries ../shared/data/retrieval/metatool/queries.json
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/deferredtools/deferredtools/rank/rankeval"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, message(err))
		}
		os.Exit(2)
	}
}

// message is err as main prints it: led by "rankeval:" once, rankeval's own errors
// (rankeval.ErrFormat) saying it already.
func message(err error) string {
	if msg := err.Error(); strings.HasPrefix(msg, "rankeval:") {
		return msg
	}
	return "rankeval: " + err.Error()
}

var errUsage = errors.New("-catalog and -queries are required")

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("rankeval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	catalog := fs.String("catalog", "", "JSON array of tools {name, title?, description, ...}")
	queries := fs.String("queries", "", `JSON array of {"query": ..., "relevant": [tool names]}`)
	asJSON := fs.Bool("json", false, "print the report as one JSON object")
	params := fs.Bool("params", true, "rank the text of each tool's parameters too, as discovery does by default")
	explain := fs.Int("explain", 0, "instead of the metrics, print each query's best `N` hits and the terms each matches")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *catalog == "" || *queries == "" || fs.NArg() > 0 {
		fs.Usage()
		return errUsage
	}
	if *explain > 0 {
		return rankeval.RunExplain(stdout, *catalog, *queries, *params, *explain)
	}
	return rankeval.Run(stdout, *catalog, *queries, *params, *asJSON)
}
