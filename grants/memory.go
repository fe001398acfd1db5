package grants

import "context"

// Memory is a concurrency-safe in-memory Store. The zero value is not usable; call
// NewMemory.
type Memory struct {
	// implementation owned by the grants package
}

// NewMemory returns an empty store whose control revision is 1.
func NewMemory() *Memory { panic("unimplemented") }

var _ Store = (*Memory)(nil)

func (m *Memory) ReadGrants(ctx context.Context, principalID string) (*Snapshot, error) {
	panic("unimplemented")
}
func (m *Memory) Put(ctx context.Context, r Row) (Row, error)              { panic("unimplemented") }
func (m *Memory) Delete(ctx context.Context, principal, tool string) error { panic("unimplemented") }
