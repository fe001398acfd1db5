package main

import (
	"context"
	"errors"
	"strings"

	"github.com/deferredtools/deferredtools/grants"
)

// openDB opens the SQL grant store named by -db. The database/sql store
// (grants/sqlstore) has not landed yet, so every -db value answers an error.
func openDB(_ context.Context, spec string) (grants.Reader, error) {
	if !strings.HasPrefix(spec, "sqlite:") || len(spec) == len("sqlite:") {
		return nil, errors.New("-db: want sqlite:PATH")
	}
	return nil, errors.New("-db: the SQL grant store is not available yet in this build; use -grants")
}
