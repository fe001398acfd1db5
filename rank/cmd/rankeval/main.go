// Command rankeval measures package rank on a labelled query set.
//
// Usage:
//
//	go run ./rank/cmd/rankeval -catalog FILE -queries FILE [-json]
//
// FILE for -catalog is a JSON array of tools {name, title?, description, ...}; FILE for
// -queries is a JSON array of {"query": ..., "relevant": [tool names]}. Every query runs
// through rank with limit 10 and every tool allowed; the command prints Recall@1, @5, @10,
// MRR@10 and nDCG@10 (binary relevance), and for queries with an empty relevant list the
// mean number of results. Queries naming an unknown tool are reported and skipped. -json
// prints the same as one JSON object.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/deferredtools/deferredtools/rank/rankeval"
)

func main() {
	catalog := flag.String("catalog", "", "JSON array of tools")
	queries := flag.String("queries", "", "JSON array of {query, relevant}")
	asJSON := flag.Bool("json", false, "print the report as one JSON object")
	flag.Parse()
	if *catalog == "" || *queries == "" || flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	docs, err := rankeval.LoadCatalog(*catalog)
	if err != nil {
		fmt.Fprintln(os.Stderr, "rankeval:", err)
		os.Exit(1)
	}
	qs, err := rankeval.LoadQueries(*queries)
	if err != nil {
		fmt.Fprintln(os.Stderr, "rankeval:", err)
		os.Exit(1)
	}
	rep := rankeval.Evaluate(docs, qs, rankeval.Ours(docs))
	if *asJSON {
		if rep.Skipped == nil {
			rep.Skipped = []rankeval.Skip{}
		}
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			fmt.Fprintln(os.Stderr, "rankeval:", err)
			os.Exit(1)
		}
		return
	}
	fmt.Printf("catalog %s: %d tools; queries %s: %d\n", *catalog, len(docs), *queries, len(qs))
	fmt.Print(rep)
}
