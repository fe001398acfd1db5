package storetests_test

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/deferredtools/deferredtools/grants"
)

// The model of the grant rows and their history that sqlstore_test.go checks the
// Discoverer against.

// sqKey is a grant row's key.
type sqKey struct{ principal, tool string }

// sqModel is the test's own copy of the grant rows, decided by its own reading of
// GRANT-2 (not grants.Resolve): the principal's row decides if there is one, else the
// "*" row, else deny; an allow row grants only when the caller holds all its scopes.
type sqModel map[sqKey]grants.Row

// granted returns the set of tools the model grants p, one bit per tool index.
func (m sqModel) granted(p grants.Principal) uint32 {
	var set uint32
	for i := range sqTools {
		r, ok := m[sqKey{p.ID, sqToolName(i)}]
		if !ok {
			r, ok = m[sqKey{grants.AnyPrincipal, sqToolName(i)}]
		}
		if ok && r.Effect == grants.Allow && sqHolds(p, r.Scopes) {
			set |= 1 << i
		}
	}
	return set
}

func sqHolds(p grants.Principal, need []string) bool {
	for _, s := range need {
		if !slices.Contains(p.Scopes, s) {
			return false
		}
	}
	return true
}

// sqHistory records, for every control revision, the set of tools each principal of
// sqPrincipals is granted at that revision. Writers record a revision before writing
// it (pending) and mark it committed once the write returned, so a request that started
// when committed was lo and ended when pending was hi observed some revision of lo..hi.
type sqHistory struct {
	mu     sync.RWMutex
	base   int64      // revision of states[0]
	states [][]uint32 // states[rev-base][principal index]

	committed atomic.Int64 // every revision up to this one is committed
	pending   atomic.Int64 // no revision above this one is committed
}

func newSQHistory(base int64, m sqModel) *sqHistory {
	h := &sqHistory{base: base}
	h.states = [][]uint32{h.decide(m)}
	h.committed.Store(base)
	h.pending.Store(base)
	return h
}

func (h *sqHistory) decide(m sqModel) []uint32 {
	s := make([]uint32, len(sqPrincipals))
	for i, p := range sqPrincipals {
		s[i] = m.granted(p)
	}
	return s
}

// record adds the state of rev, the next revision, and marks it pending.
func (h *sqHistory) record(rev int64, m sqModel) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if want := h.base + int64(len(h.states)); rev != want {
		return fmt.Errorf("recording revision %d, want %d", rev, want)
	}
	h.states = append(h.states, h.decide(m))
	h.pending.Store(rev)
	return nil
}

// window returns the revisions a request may observe if it starts now; end completes it.
func (h *sqHistory) window() (lo int64) { return h.committed.Load() }
func (h *sqHistory) end() (hi int64)    { return h.pending.Load() }

// find reports a revision of lo..hi at which principal pi's granted set satisfies ok,
// or -1.
func (h *sqHistory) find(pi int, lo, hi int64, ok func(granted uint32) bool) int64 {
	h.mu.RLock()
	defer h.mu.RUnlock()
	for r := lo; r <= hi; r++ {
		if ok(h.states[r-h.base][pi]) {
			return r
		}
	}
	return -1
}
