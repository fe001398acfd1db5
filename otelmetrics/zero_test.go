package otelmetrics_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"

	"github.com/deferredtools/deferredtools/internal/nopanic"
	"github.com/deferredtools/deferredtools/observe"
	"github.com/deferredtools/deferredtools/otelmetrics"
)

// A Metrics not made by New (the zero value, a nil pointer) records nothing and never
// panics: its Observe may be an Options.Observe before the host wires New's. A nil
// MeterProvider is refused by New with ErrNilMeterProvider and no Metrics, not a panic
// in mp.Meter. Metrics made by New record even with a nil context (the Discoverer never
// passes one; a host calling Observe itself may). SPEC ERR-5.
func TestZeroAndNil(t *testing.T) {
	var nilCtx context.Context
	e := observe.Event{Op: observe.OpDiscover, Duration: 30000, Tools: 16, Bytes: 60000}
	reader := sdkmetric.NewManualReader()
	made, err := otelmetrics.New(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		call func() error
	}{
		{"zero Metrics", func() error { var m otelmetrics.Metrics; m.Observe(context.Background(), e); return nil }},
		{"zero Metrics, nil ctx", func() error { var m otelmetrics.Metrics; m.Observe(nilCtx, e); return nil }},
		{"nil *Metrics", func() error { var m *otelmetrics.Metrics; m.Observe(context.Background(), e); return nil }},
		{"New's, nil ctx", func() error { made.Observe(nilCtx, e); return nil }},
		{"New(nil)", func() error {
			m, err := otelmetrics.New(nil)
			if m != nil || !errors.Is(err, otelmetrics.ErrNilMeterProvider) {
				return fmt.Errorf("New(nil) = %v, %v; want nil and ErrNilMeterProvider", m, err)
			}
			if got, want := err.Error(), "otelmetrics: nil MeterProvider"; got != want {
				return fmt.Errorf("New(nil) error text %q, want %q", got, want)
			}
			return nil
		}},
	} {
		if err := nopanic.Call(c.call); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	f := &fixture{reader: reader}
	if got := sums(t, f.collect(t))["deferredtools.decisions"]["discover/ok"]; got != 1 {
		t.Errorf("New's Metrics with a nil ctx recorded %v decisions, want 1", got)
	}
}

// BenchmarkObserve measures one event recorded into an SDK provider's instruments.
func BenchmarkObserve(b *testing.B) {
	m, err := otelmetrics.New(sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader())))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	e := observe.Event{Op: observe.OpDiscover, Duration: 30000, Tools: 16, Bytes: 60000}
	b.ReportAllocs()
	for b.Loop() {
		m.Observe(ctx, e)
	}
}
