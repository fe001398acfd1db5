package discovery

import (
	"context"
	"slices"
	"time"

	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/observe"
)

// A span is one decision being observed (see Discoverer.observe); nil when no
// observer is set, and then each of its methods returns at once.
type span struct {
	op      observe.Op
	start   time.Time
	ctx     context.Context // the entry point's, for the observer
	d       *Discoverer     // whose Options.Observe receives the Event
	catalog *Catalog        // the version the decision read, noted by Discoverer.catalog
	served  *Result         // the page served, noted by Discoverer.discover
}

// spanKey is the context key under which a decision's span travels to
// Discoverer.catalog.
type spanKey struct{}

// observe starts observing one decision of kind op, for an entry point that defers
// one of the span's methods on its named results. With no observer set it returns
// nil and touches nothing; otherwise it replaces *ctx with a context carrying the
// span, so that the catalog version the decision reads is noted in it.
func (d *Discoverer) observe(ctx *context.Context, op observe.Op) *span {
	if d.opts.Observe == nil {
		return nil // inlined: the whole cost of an entry point's hook when unset
	}
	return d.startSpan(ctx, op)
}

func (d *Discoverer) startSpan(ctx *context.Context, op observe.Op) *span {
	s := &span{op: op, start: time.Now(), ctx: *ctx, d: d}
	*ctx = context.WithValue(*ctx, spanKey{}, s)
	return s
}

// noteCatalog records c as the catalog version of the decision ctx observes, if any.
func (d *Discoverer) noteCatalog(ctx context.Context, c *Catalog) {
	if d.opts.Observe != nil {
		note(ctx, c, nil)
	}
}

// notePage records res as the page the decision ctx observes served, if any.
func (d *Discoverer) notePage(ctx context.Context, res *Result) {
	if d.opts.Observe != nil {
		note(ctx, nil, res)
	}
}

// note records what is not nil of c and res in the span ctx carries, if any.
func note(ctx context.Context, c *Catalog, res *Result) {
	s, ok := ctx.Value(spanKey{}).(*span)
	switch {
	case !ok:
	case c != nil:
		s.catalog = c
	case res != nil:
		s.served = res
	}
}

// page reports a discover decision whose results are *res and *err.
func (s *span) page(res **Result, err *error) {
	if s == nil {
		return
	}
	e := s.event(*err)
	if *err == nil && *res != nil {
		e.Tools, e.Bytes = len((*res).Tools), (*res).jsonLen()
	}
	s.emit(e)
}

// list reports a ListTools decision.
func (s *span) list(res **ListResult, err *error) {
	if s == nil {
		return
	}
	e := s.event(*err)
	if *err == nil && *res != nil {
		e.Tools = len((*res).Tools)
		for _, t := range (*res).Tools {
			e.Bytes += len(t)
		}
	}
	s.emit(e)
}

// decision reports an authorisation decision.
func (s *span) decision(err *error) {
	if s == nil {
		return
	}
	s.emit(s.event(*err))
}

// rpc reports AppendJSONRPC's answer: the bytes it appended after the first n of
// *resp, and *code, the code of the error response it wrote (empty for a page).
func (s *span) rpc(n int, resp *[]byte, code *Code) {
	if s == nil {
		return
	}
	e := s.event(nil)
	e.Bytes = len(*resp) - min(n, len(*resp))
	if *code != "" {
		e.Code = string(knownCode(*code))
	} else if s.served != nil {
		e.Tools = len(s.served.Tools)
	}
	s.emit(e)
}

// thenCall is grantedCall observed as the AuthorizeCall decision it stands for: the
// fast path of the call AuthorizeToolThen returns, which reads no catalog itself.
func (d *Discoverer) thenCall(ctx context.Context, p grants.Principal, c Call, cat *Catalog, i int, set *authSet) (err error) {
	s := d.observe(&ctx, observe.OpAuthorizeCall)
	if s != nil {
		s.catalog = cat
	}
	defer s.decision(&err)
	return d.grantedCall(ctx, p, c, cat, i, set)
}

// event is the Event of the span's decision with outcome err, sizes left to fill.
func (s *span) event(err error) observe.Event {
	e := observe.Event{Op: s.op, Duration: time.Since(s.start)}
	if s.catalog != nil {
		e.CatalogDigest = s.catalog.contract
	}
	if err != nil {
		e.Code = string(eventCode(s.op, err))
	}
	return e
}

// emit hands e to the observer. A panic in the observer is recovered and dropped: the
// decision is made, and an observer cannot change or fail it.
func (s *span) emit(e observe.Event) {
	defer func() { _ = recover() }()
	s.d.opts.Observe(s.ctx, e)
}

// eventCode is the Code an observe.Event reports for err: one of the Code constants, whatever
// text a host's error carries.
func eventCode(op observe.Op, err error) Code {
	c, ok := errCode(err)
	if !ok && op == observe.OpAuthorizeCall {
		return CodeCallRefused // CheckCall's own error
	}
	return knownCode(c)
}

// knownCode returns c when it is one of the Code constants, else CodeInternal, so no
// text of a host's making reaches an observe.Event.
func knownCode(c Code) Code {
	if slices.Contains(allCodes[:], c) {
		return c
	}
	return CodeInternal
}
