package rankeval_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/deferredtools/deferredtools/internal/nopanic"
	"github.com/deferredtools/deferredtools/rank"
	"github.com/deferredtools/deferredtools/rank/rankeval"
)

// Nil and out-of-range inputs get a typed error or the documented answer, never a
// panic: Run and RunExplain refuse a nil writer with ErrNilWriter before reading
// anything; Evaluate with a nil Ranker finds nothing for every query; Synthetic with a
// negative n returns no tools. SPEC ERR-5.
func TestNilAndZero(t *testing.T) {
	dir := t.TempDir()
	catalog := filepath.Join(dir, "catalog.json")
	queries := filepath.Join(dir, "queries.json")
	if err := os.WriteFile(catalog, []byte(`[{"name":"model_search","description":"Search models."},{"name":"invoice_get","description":"Get an invoice."}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(queries, []byte(`[{"query":"search models","relevant":["model_search"]}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	docs := []rank.Doc{{Name: "model_search", Description: "Search models."}}
	qs := []rankeval.Query{{Query: "search models", Relevant: []string{"model_search"}}}
	for _, c := range []struct {
		name string
		call func() error
	}{
		{"Run(nil)", func() error {
			if err := rankeval.Run(nil, catalog, queries, false, false); !errors.Is(err, rankeval.ErrNilWriter) {
				return fmt.Errorf("= %v, want ErrNilWriter", err)
			}
			return nil
		}},
		{"Run(nil) JSON", func() error {
			if err := rankeval.Run(nil, catalog, queries, true, true); !errors.Is(err, rankeval.ErrNilWriter) {
				return fmt.Errorf("= %v, want ErrNilWriter", err)
			}
			return nil
		}},
		{"RunExplain(nil)", func() error {
			if err := rankeval.RunExplain(nil, catalog, queries, false, 3); !errors.Is(err, rankeval.ErrNilWriter) {
				return fmt.Errorf("= %v, want ErrNilWriter", err)
			}
			return nil
		}},
		{"Evaluate(nil Ranker)", func() error {
			rep := rankeval.Evaluate(docs, qs, nil)
			if rep.Queries != 1 || rep.Recall10 != 0 || rep.MRR10 != 0 {
				return fmt.Errorf("= %+v, want one query evaluated, nothing found", rep)
			}
			return nil
		}},
		{"Synthetic(-1)", func() error {
			got, _, err := rankeval.Synthetic(dir, -1)
			if err != nil || len(got) != 0 {
				return fmt.Errorf("= %d docs, %v; want none", len(got), err)
			}
			return nil
		}},
		{"Synthetic(-1) real", func() error {
			data := filepath.Join(t.TempDir(), rankeval.CatalogFiles[0])
			if err := os.WriteFile(data, []byte(`[{"name":"a","description":"A."}]`), 0o600); err != nil {
				return err
			}
			got, real, err := rankeval.Synthetic(filepath.Dir(data), -1)
			if err != nil || !real || len(got) != 0 {
				return fmt.Errorf("= %d docs, %v, %v; want none from the real catalog", len(got), real, err)
			}
			return nil
		}},
	} {
		if err := nopanic.Call(c.call); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	if got, want := rankeval.ErrNilWriter.Error(), "rankeval: nil writer"; got != want {
		t.Errorf("ErrNilWriter text %q, want %q", got, want)
	}
}
