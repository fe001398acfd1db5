package grants

import (
	"context"
	"fmt"
	"slices"
	"sync"
)

// Memory is a concurrency-safe in-memory Store. The zero value is not usable; call
// NewMemory.
//
// Every write increments the control revision by one and gives the written row that
// revision (SPEC GRANT-4). ReadGrants answers the same *Snapshot for a principal until
// the next write, so a caller may key caches by the Snapshot pointer; Snapshots are
// never modified after they are returned.
type Memory struct {
	mu      sync.RWMutex
	control int64                     // the control revision, >= 1
	rows    map[string]map[string]Row // principal → tool → row; rows own their Scopes
	cache   map[string]*Snapshot      // principal → its Snapshot at the current revision
}

// memoryCacheMax bounds the Snapshots Memory keeps between two writes; past it the
// cache is emptied and refilled on demand.
const memoryCacheMax = 4096

// NewMemory returns an empty store whose control revision is 1.
func NewMemory() *Memory {
	return &Memory{
		control: 1,
		rows:    make(map[string]map[string]Row),
		cache:   make(map[string]*Snapshot),
	}
}

var (
	_ Store  = (*Memory)(nil)
	_ Lister = (*Memory)(nil)
)

// ctxError reports ctx's end as an unavailable store, keeping the context's error
// matchable with errors.Is.
func ctxError(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	return nil
}

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
	var own map[string]Row
	if principalID != AnyPrincipal {
		own = m.rows[principalID]
	}
	anyRows := m.rows[AnyPrincipal]
	n := len(own) + len(anyRows)
	if n > MaxRows {
		return nil, ErrTooManyRows
	}
	s = &Snapshot{Revision: m.control, Rows: make([]Row, 0, n)}
	nscopes := 0
	for _, r := range own {
		nscopes += len(r.Scopes)
	}
	for _, r := range anyRows {
		nscopes += len(r.Scopes)
	}
	// One backing array for every row's scopes: the Snapshot shares nothing with the
	// store's rows.
	scopes := make([]string, 0, nscopes)
	add := func(r Row) {
		start := len(scopes)
		scopes = append(scopes, r.Scopes...)
		r.Scopes = scopes[start:len(scopes):len(scopes)]
		if len(r.Scopes) == 0 {
			r.Scopes = nil
		}
		s.Rows = append(s.Rows, r)
	}
	for _, r := range own {
		add(r)
	}
	for _, r := range anyRows {
		add(r)
	}
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
	m.control++
	r.Revision = m.control
	byTool := m.rows[r.Principal]
	if byTool == nil {
		byTool = make(map[string]Row)
		m.rows[r.Principal] = byTool
	}
	byTool[r.Tool] = r
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
	byTool := m.rows[principal]
	if _, ok := byTool[tool]; !ok {
		return nil
	}
	delete(byTool, tool)
	if len(byTool) == 0 {
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
	l := &Listing{Revision: m.control}
	for p, byTool := range m.rows {
		if principal != "" && p != principal {
			continue
		}
		for t, r := range byTool {
			if tool != "" && t != tool {
				continue
			}
			r.Scopes = slices.Clone(r.Scopes)
			l.Rows = append(l.Rows, r)
		}
	}
	SortRows(l.Rows)
	return l, nil
}
