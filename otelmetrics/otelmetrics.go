package otelmetrics

import (
	"context"
	"errors"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/observe"
)

// Scope is the instrumentation scope name of the Meter New takes from the provider.
const Scope = "github.com/deferredtools/deferredtools/otelmetrics"

// Attribute keys of every measurement.
const (
	OpKey   = attribute.Key("deferredtools.op")
	CodeKey = attribute.Key("deferredtools.code")
)

// durationBounds are the latency histogram's bucket boundaries, in seconds: a warm
// discover request takes tens of microseconds, the first after a grant change
// milliseconds, a grant read that times out GrantTimeout (2 s by default).
var durationBounds = []float64{
	0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005,
	0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5,
}

// Metrics records observe.Events into its instruments. It is safe for concurrent
// use. Use New: the zero value (and a nil *Metrics) records nothing.
type Metrics struct {
	decisions metric.Int64Counter
	duration  metric.Float64Histogram
	tools     metric.Int64Counter
	bytes     metric.Int64Counter
	sets      map[series]*options // every op × code, built once
}

type series struct {
	op   observe.Op
	code string // a discovery.Code's value, "" when served or allowed
}

// options are the measurement options of one series, built once so that recording
// allocates nothing.
type options struct {
	add    []metric.AddOption
	record []metric.RecordOption
}

// ops and codes are the attribute values New prepares series for.
var (
	ops = []observe.Op{
		observe.OpDiscover, observe.OpDiscoverTool, observe.OpList,
		observe.OpAuthorizeTool, observe.OpAuthorizeCall,
	}
	codes = codeWords()
)

// codeWords returns "" and the value of every discovery.Code.
func codeWords() []string {
	words := []string{""}
	for _, c := range discovery.Codes() {
		words = append(words, string(c))
	}
	return words
}

// New returns Metrics recording with a Meter of mp named Scope. It fails only when mp
// is nil (ErrNilMeterProvider: pass otel.GetMeterProvider() for the global one) or
// refuses to create an instrument.
func New(mp metric.MeterProvider) (*Metrics, error) {
	if mp == nil {
		return nil, ErrNilMeterProvider
	}
	meter := mp.Meter(Scope)
	m := &Metrics{sets: make(map[series]*options, len(ops)*len(codes))}
	var err error
	if m.decisions, err = meter.Int64Counter("deferredtools.decisions",
		metric.WithDescription("Decisions of the Discoverer: discover requests, tool lists and call authorisations."),
		metric.WithUnit("{decision}")); err != nil {
		return nil, err
	}
	if m.duration, err = meter.Float64Histogram("deferredtools.decision.duration",
		metric.WithDescription("Time a decision took, from the entry point's start to its answer."),
		metric.WithUnit("s"), metric.WithExplicitBucketBoundaries(durationBounds...)); err != nil {
		return nil, err
	}
	if m.tools, err = meter.Int64Counter("deferredtools.served.tools",
		metric.WithDescription("Tools served on discover pages and in tool lists."),
		metric.WithUnit("{tool}")); err != nil {
		return nil, err
	}
	if m.bytes, err = meter.Int64Counter("deferredtools.served.bytes",
		metric.WithDescription("Bytes served: discover pages and responses, and tool definitions listed."),
		metric.WithUnit("By")); err != nil {
		return nil, err
	}
	for _, op := range ops {
		for _, code := range codes {
			m.sets[series{op, code}] = newOptions(op, code)
		}
	}
	return m, nil
}

func newOptions(op observe.Op, code string) *options {
	word := code
	if code == "" {
		word = "ok"
	}
	set := metric.WithAttributeSet(attribute.NewSet(OpKey.String(string(op)), CodeKey.String(word)))
	return &options{add: []metric.AddOption{set}, record: []metric.RecordOption{set}}
}

// Observe records e: it is an Options.Observe for a Discoverer. ctx reaches the
// instruments (for exemplars). An event of an op New did not know (a later version's)
// is recorded with options built for it. A Metrics not made by New records nothing.
func (m *Metrics) Observe(ctx context.Context, e observe.Event) {
	if m == nil || m.sets == nil {
		return // not made by New: no instruments
	}
	o := m.sets[series{e.Op, e.Code}]
	if o == nil {
		o = newOptions(e.Op, e.Code)
	}
	m.decisions.Add(ctx, 1, o.add...)
	m.duration.Record(ctx, e.Duration.Seconds(), o.record...)
	if e.Tools > 0 {
		m.tools.Add(ctx, int64(e.Tools), o.add...)
	}
	if e.Bytes > 0 {
		m.bytes.Add(ctx, int64(e.Bytes), o.add...)
	}
}

// ErrNilMeterProvider is New's answer to a nil MeterProvider.
var ErrNilMeterProvider = errors.New("otelmetrics: nil MeterProvider")
