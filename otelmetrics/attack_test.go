package otelmetrics_test

// Attacks on the metrics from outside: outcomes TestMetricsNoContent does not drive
// (safe mode, cancelled and expired contexts, a host's Preview and Code of its own,
// the plan package's search answers), and concurrent recording.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/observe"
	"github.com/deferredtools/deferredtools/otelmetrics"
	"github.com/deferredtools/deferredtools/plan"
	"github.com/deferredtools/deferredtools/safemode"
)

// The package doc: "No attribute or value holds a query, arguments, a cursor, a tool
// name or a principal ... the attribute values are the op and code words, a fixed set
// (per instrument at most one series per op and code: 5 ops × (discovery.Codes() and
// "ok"), 5 × 21 today)", and observe.Event.Code's: "always the value of one of the
// Code constants". Safe mode's outcomes (held, confirmed, a foreign token, a host
// Preview failing with client text), contexts cancelled or past their deadline, and
// the plan package's search answers, all carrying the canary, leave it in no event and
// no metric, and every code is a Code constant. Breaks if an outcome passed a host's
// error or a token through to Event.Code.
func TestAttackMetricsNoContentSafeModeAndContexts(t *testing.T) {
	who := grants.Principal{ID: canary + "-principal", Scopes: []string{canary + ":scope"}}
	f := newFixture(t, who)
	safe := f.build(func(o *discovery.Options) {
		o.SafeMode = safemode.Options{Enabled: true, Preview: func(_ context.Context, _ grants.Principal, _ string, args json.RawMessage) (string, error) {
			if strings.Contains(string(args), "fail") {
				return "", errors.New(canary + " preview failed on " + string(args))
			}
			return canary + " preview of " + string(args), nil
		}}
	})
	ctx := context.Background()
	call := discovery.Call{Tool: canary + "_tool", Arguments: json.RawMessage(`{"text":"` + canary + `"}`)}
	var cr *discovery.ConfirmationRequired
	if err := safe.AuthorizeCall(ctx, who, call); !errors.As(err, &cr) {
		t.Fatalf("held call: %v", err)
	}
	confirmed := call
	confirmed.Confirmation = cr.Token
	if err := safe.AuthorizeCall(ctx, who, confirmed); err != nil {
		t.Fatalf("confirmed call: %v", err)
	}
	foreign := call
	foreign.Confirmation = canary + "-token"
	safe.AuthorizeCall(ctx, who, foreign)
	safe.AuthorizeCall(ctx, who, discovery.Call{Tool: canary + "_tool", Arguments: json.RawMessage(`{"text":"fail ` + canary + `"}`)})
	if then, err := safe.AuthorizeToolThen(ctx, who, canary+"_tool"); err == nil {
		then(ctx, who, call)
	}

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	expired, cancel2 := context.WithDeadline(ctx, time.Now().Add(-time.Second))
	defer cancel2()
	for _, c := range []context.Context{cancelled, expired} {
		safe.Discover(c, who, discovery.Request{Query: canary + " registry"})
		safe.ListTools(c, who)
		safe.AuthorizeTool(c, who, canary+"_tool")
		safe.AuthorizeCall(c, who, call)
		safe.DiscoverTool(c, who, json.RawMessage(`{"query":"`+canary+`"}`))
	}

	pl := plan.New(safe, &plan.Policy{MinTools: 1})
	m := plan.ModelCapabilities{Provider: plan.ProviderAnthropic, ClientToolSearch: true}
	if r, err := pl.Request(ctx, who, m); err == nil {
		pl.AnswerAnthropicSearch(ctx, who, r, canary+"-use", json.RawMessage(`{"query":"`+canary+` registry"}`))
		pl.AnswerAnthropicSearch(ctx, who, r, canary+"-use", json.RawMessage(`{"query":"x","`+canary+`":1}`))
		pl.AnswerOpenAISearch(ctx, who, r, canary+"-call", json.RawMessage(`{"query":"`+canary+`","cursor":"`+canary+`"}`))
		pl.CheckCall(ctx, who, r, canary+"_unknown")
	} else {
		t.Fatalf("Request: %v", err)
	}

	known := map[string]bool{"": true}
	for _, c := range discovery.Codes() {
		known[string(c)] = true
	}
	seen := map[string]bool{}
	for _, e := range f.events {
		if s := fmt.Sprintf("%#v", e); strings.Contains(s, canary) {
			t.Errorf("an event carries client or host text: %s", s)
		}
		if !known[e.Code] {
			t.Errorf("event %s has code %q, not a discovery.Code constant", e.Op, e.Code)
		}
		seen[e.Code] = true
	}
	for _, c := range []discovery.Code{discovery.CodeConfirmationRequired, discovery.CodeInvalidConfirmation, discovery.CodeCallRefused} {
		if !seen[string(c)] {
			t.Errorf("no event with code %q: the run misses an outcome (codes seen %v)", c, seen)
		}
	}
	rm := f.collect(t)
	text := fmt.Sprintf("%+v", rm)
	if strings.Contains(text, canary) {
		t.Errorf("the metrics carry client or host text")
	}
	for name, series := range sums(t, rm) {
		if n, max := len(series), 5*(len(discovery.Codes())+1); n > max {
			t.Errorf("%s has %d series, more than the %d the doc bounds", name, n, max)
		}
	}
	if n := len(discovery.Codes()) + 1; n != 21 {
		t.Errorf("discovery.Codes() and ok are %d words; the package doc says 5 × 21 today", n)
	}
}

// Metrics' doc: "It is safe for concurrent use." Eight goroutines record every op and
// code, known and unknown (a later version's op), while a reader collects: the final
// sums are exact (run under -race). Breaks if Observe wrote the series map it reads,
// or built an unknown op's options into it unsynchronised.
func TestAttackObserveConcurrently(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	m, err := otelmetrics.New(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)))
	if err != nil {
		t.Fatal(err)
	}
	ops := []observe.Op{observe.OpDiscover, observe.OpDiscoverTool, observe.OpList, observe.OpAuthorizeTool, observe.OpAuthorizeCall, "later_op"}
	codes := []string{""}
	for _, c := range discovery.Codes() {
		codes = append(codes, string(c))
	}
	const goroutines, rounds = 8, 20
	ctx := context.Background()
	var wg sync.WaitGroup
	done := make(chan struct{})
	collector := make(chan struct{})
	go func() {
		defer close(collector)
		for {
			select {
			case <-done:
				return
			default:
				var rm metricdata.ResourceMetrics
				if err := reader.Collect(ctx, &rm); err != nil {
					t.Errorf("Collect while recording: %v", err)
					return
				}
			}
		}
	}()
	for range goroutines {
		wg.Go(func() {
			for range rounds {
				for _, op := range ops {
					for _, code := range codes {
						m.Observe(ctx, observe.Event{Op: op, Code: code, Duration: time.Microsecond, Tools: 1, Bytes: 10})
					}
				}
			}
		})
	}
	wg.Wait()
	close(done)
	<-collector
	got := sums(t, (&fixture{reader: reader}).collect(t))
	for _, op := range ops {
		for _, code := range codes {
			word := code
			if word == "" {
				word = "ok"
			}
			k := string(op) + "/" + word
			if n := got["deferredtools.decisions"][k]; n != goroutines*rounds {
				t.Errorf("decisions{%s} = %v, want %d", k, n, goroutines*rounds)
			}
			if n := got["deferredtools.served.bytes"][k]; n != goroutines*rounds*10 {
				t.Errorf("served.bytes{%s} = %v, want %d", k, n, goroutines*rounds*10)
			}
		}
	}
}

// refusingProvider is a MeterProvider whose Meter refuses to create the instrument
// named refuse, with err.
type refusingProvider struct {
	noop.MeterProvider
	refuse string
	err    error
}

func (p refusingProvider) Meter(string, ...metric.MeterOption) metric.Meter {
	return refusingMeter{refuse: p.refuse, err: p.err}
}

type refusingMeter struct {
	noop.Meter
	refuse string
	err    error
}

func (m refusingMeter) Int64Counter(name string, opts ...metric.Int64CounterOption) (metric.Int64Counter, error) {
	if name == m.refuse {
		return nil, m.err
	}
	return m.Meter.Int64Counter(name, opts...)
}

func (m refusingMeter) Float64Histogram(name string, opts ...metric.Float64HistogramOption) (metric.Float64Histogram, error) {
	if name == m.refuse {
		return nil, m.err
	}
	return m.Meter.Float64Histogram(name, opts...)
}

// New's doc: "It fails only when mp refuses to create an instrument." A provider
// refusing any one of the four instruments makes New fail with that error and no
// Metrics; one refusing none (and a name no instrument has) succeeds. Breaks if New
// ignored an instrument's error and recorded into a nil instrument later.
func TestAttackNewRefusedInstrument(t *testing.T) {
	refused := errors.New("provider refuses")
	for _, name := range []string{"deferredtools.decisions", "deferredtools.decision.duration", "deferredtools.served.tools", "deferredtools.served.bytes"} {
		m, err := otelmetrics.New(refusingProvider{refuse: name, err: refused})
		if !errors.Is(err, refused) || m != nil {
			t.Errorf("provider refusing %s: New = %v, %v; want nil and its error", name, m, err)
		}
	}
	m, err := otelmetrics.New(refusingProvider{refuse: "no.such.instrument", err: refused})
	if err != nil || m == nil {
		t.Fatalf("provider refusing nothing: New = %v, %v", m, err)
	}
	m.Observe(context.Background(), observe.Event{Op: observe.OpList, Tools: 3, Bytes: 100})
}
