package grants

import (
	"context"
	"fmt"
	"slices"
	"sync"
)

// Memory is a concurrency-safe in-memory Store. The zero value is an empty store whose
// control revision is 1, as NewMemory's, ready to use. Every method refuses a nil
// context with an error matching ErrNilContext and ErrUnavailable, changing nothing.
//
// Every write increments the control revision by one and gives the written row that
// revision (SPEC GRANT-4). ReadGrants answers the same *Snapshot for a principal until
// the next write, so a caller may key caches by the Snapshot pointer; Snapshots are
// never modified after they are returned.
type Memory struct {
	mu      sync.RWMutex
	control int64                // the control revision; 0 until initLocked (then 1)
	rows    map[string]*rowSet   // principal → its rows
	cache   map[string]*Snapshot // principal → its Snapshot at the current revision
}

// rowSet is one principal's rows, in a slice so that a Snapshot copies them in bulk.
// A stored row's Scopes array is never written after Put stores it (a later Put
// replaces the whole row), so Snapshots share those arrays with the store.
type rowSet struct {
	rows []Row
	at   map[string]int // tool → index in rows
}

// memoryCacheMax bounds the Snapshots Memory keeps between two writes; past it the
// cache is emptied and refilled on demand.
const memoryCacheMax = 4096

// initLocked makes the zero Memory the empty store NewMemory returns, once. m.mu is
// held for writing.
func (m *Memory) initLocked() {
	if m.control == 0 {
		m.control = 1
		m.rows = make(map[string]*rowSet)
		m.cache = make(map[string]*Snapshot)
	}
}

// NewMemory returns an empty store whose control revision is 1.
func NewMemory() *Memory {
	m := new(Memory)
	m.initLocked() // no other goroutine has m yet
	return m
}

var (
	_ Store  = (*Memory)(nil)
	_ Lister = (*Memory)(nil)
)

// errNilContext is every Memory method's answer to a nil context.
var errNilContext = fmt.Errorf("%w: %w", ErrUnavailable, ErrNilContext)

// ctxError reports ctx's end as an unavailable store, keeping the context's error
// matchable with errors.Is, and a nil ctx as errNilContext.
func ctxError(ctx context.Context) error {
	if ctx == nil {
		return errNilContext
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	return nil
}

// NonBlocking reports true: ReadGrants answers from memory (see NonBlockingReader).
func (*Memory) NonBlocking() bool { return true }

// ReadGrants returns principalID's rows and the AnyPrincipal rows with the current
// control revision.
func (m *Memory) ReadGrants(ctx context.Context, principalID string) (*Snapshot, error) {
	if err := ctxError(ctx); err != nil {
		return nil, err
	}
	m.mu.RLock()
	s, ok := m.cache[principalID]
	m.mu.RUnlock()
	if ok {
		return s, nil
	}

	m.mu.Lock()
	defer m.mu.Unlock()
	if s, ok := m.cache[principalID]; ok {
		return s, nil
	}
	m.initLocked()
	var own []Row
	if principalID != AnyPrincipal {
		own = m.rows[principalID].all()
	}
	anyRows := m.rows[AnyPrincipal].all()
	n := len(own) + len(anyRows)
	if n > MaxRows {
		return nil, ErrTooManyRows
	}
	// Two bulk copies: a Snapshot's rows are its own, their scopes the store's
	// never-written arrays (see rowSet).
	s = &Snapshot{Revision: m.control, Rows: make([]Row, 0, n)}
	s.Rows = append(s.Rows, own...)
	s.Rows = append(s.Rows, anyRows...)
	if len(m.cache) >= memoryCacheMax {
		clear(m.cache)
	}
	m.cache[principalID] = s
	return s, nil
}

// Put inserts or replaces the row keyed by (r.Principal, r.Tool). It refuses a row that
// fails CheckRow (r.Revision is not checked: Put sets it) with a *MalformedError.
func (m *Memory) Put(ctx context.Context, r Row) (Row, error) {
	if err := ctxError(ctx); err != nil {
		return Row{}, err
	}
	r.Revision = 1
	if err := CheckRow(r); err != nil {
		return Row{}, err
	}
	r.Scopes = slices.Clip(slices.Clone(r.Scopes))
	if len(r.Scopes) == 0 {
		r.Scopes = nil
	}

	m.mu.Lock()
	m.initLocked()
	m.control++
	r.Revision = m.control
	rs := m.rows[r.Principal]
	if rs == nil {
		rs = &rowSet{at: make(map[string]int)}
		m.rows[r.Principal] = rs
	}
	if i, ok := rs.at[r.Tool]; ok {
		rs.rows[i] = r
	} else {
		rs.at[r.Tool] = len(rs.rows)
		rs.rows = append(rs.rows, r)
	}
	clear(m.cache)
	m.mu.Unlock()

	r.Scopes = slices.Clone(r.Scopes) // the caller's copy, not the store's
	return r, nil
}

// Delete removes the row keyed by (principal, tool), if there is one.
func (m *Memory) Delete(ctx context.Context, principal, tool string) error {
	if err := ctxError(ctx); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	rs := m.rows[principal]
	if rs == nil {
		return nil
	}
	i, ok := rs.at[tool]
	if !ok {
		return nil
	}
	// Move the last row into the hole; clear the vacated slot for the collector.
	last := len(rs.rows) - 1
	rs.rows[i] = rs.rows[last]
	rs.at[rs.rows[i].Tool] = i
	rs.rows[last] = Row{}
	rs.rows = rs.rows[:last]
	delete(rs.at, tool)
	if len(rs.rows) == 0 {
		delete(m.rows, principal)
	}
	m.control++
	clear(m.cache)
	return nil
}

// ListGrants returns the rows matching principal and tool ("" matches any), sorted, with
// the current control revision.
func (m *Memory) ListGrants(ctx context.Context, principal, tool string) (*Listing, error) {
	if err := ctxError(ctx); err != nil {
		return nil, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	l := &Listing{Revision: max(m.control, 1)} // the zero Memory's revision is 1
	for p, rs := range m.rows {
		if principal != "" && p != principal {
			continue
		}
		for _, r := range rs.rows {
			if tool != "" && r.Tool != tool {
				continue
			}
			r.Scopes = slices.Clone(r.Scopes)
			l.Rows = append(l.Rows, r)
		}
	}
	SortRows(l.Rows)
	return l, nil
}

// all answers the rows of rs; nil for a nil rs.
func (rs *rowSet) all() []Row {
	if rs == nil {
		return nil
	}
	return rs.rows
}
