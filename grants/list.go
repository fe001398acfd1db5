package grants

import (
	"cmp"
	"context"
	"slices"
)

// A Lister lists grant rows for operators, across principals. It is an optional
// capability of a Store, found with a type assertion; Memory and sqlstore.Store have
// it. Implementations must be safe for concurrent use and honour ctx; their errors are
// those of a Reader.
type Lister interface {
	// ListGrants returns the rows whose principal is principal and whose tool is tool,
	// an empty string matching any, sorted by principal then tool (byte order), with
	// the control revision read with them. The caller owns the returned Listing.
	ListGrants(ctx context.Context, principal, tool string) (*Listing, error)
}

// A Listing is one consistent read of the rows a Lister matched.
type Listing struct {
	Revision int64 // the control revision read with the rows (>= 1)
	Rows     []Row // sorted by Principal, then Tool
}

// SortRows sorts rows by principal, then tool, in byte order: the order of a Listing.
func SortRows(rows []Row) {
	slices.SortFunc(rows, func(a, b Row) int {
		return cmp.Or(cmp.Compare(a.Principal, b.Principal), cmp.Compare(a.Tool, b.Tool))
	})
}

// Deciding returns the row that decides tool for principalID in snap under GRANT-2: the
// principal's own row if there is one, else the AnyPrincipal row. ok is false when no
// row decides, and the tool is denied by default. Deciding judges no row: call Resolve
// on snap first. r is snap's row: its Scopes may be shared with snap and with the
// store that read it (Memory shares them), so do not modify them.
func Deciding(snap *Snapshot, principalID, tool string) (r Row, ok bool) {
	if snap == nil {
		return Row{}, false
	}
	for _, row := range snap.Rows {
		if row.Tool != tool {
			continue
		}
		if row.Principal == principalID && principalID != AnyPrincipal {
			return row, true
		}
		if row.Principal == AnyPrincipal {
			r, ok = row, true
		}
	}
	return r, ok
}
