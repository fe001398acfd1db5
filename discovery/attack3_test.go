package discovery_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
)

// Attack round 3 on the public API: the switch's values (SPEC FLAG-1) and the name a
// query may be (PLAN-2, DISC-5, PAGE-4).

// recordingHandler keeps every slog record it handles, with its attributes as text.
type recordingHandler struct {
	mu      sync.Mutex
	records []string
}

func (h *recordingHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *recordingHandler) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *recordingHandler) WithGroup(string) slog.Handler            { return h }
func (h *recordingHandler) Handle(_ context.Context, r slog.Record) error {
	text := r.Level.String() + " " + r.Message
	r.Attrs(func(a slog.Attr) bool { text += " " + a.Key + "=" + a.Value.String(); return true })
	h.mu.Lock()
	h.records = append(h.records, text)
	h.mu.Unlock()
	return nil
}

// SPEC FLAG-1 through SwitchFromEnv: strconv.ParseBool alone decides, and each value it
// refuses gives exactly one record, a warning naming the setting, none of whose
// message or attributes holds the value (values of three or more characters: a
// shorter one, like "t", is in any English text); an unset or empty value and the
// values it reads give none. Breaks when values are trimmed, folded or read as numbers,
// or when the warning quotes the value.
func TestAttack3SwitchFromEnvValues(t *testing.T) {
	for _, c := range []struct {
		value    string
		set      bool
		on, warn bool
	}{
		{"", false, false, false}, {"", true, false, false},
		{"1", true, true, false}, {"t", true, true, false}, {"T", true, true, false}, {"TRUE", true, true, false},
		{"true", true, true, false}, {"True", true, true, false},
		{"0", true, false, false}, {"f", true, false, false}, {"F", true, false, false}, {"FALSE", true, false, false},
		{"false", true, false, false}, {"False", true, false, false},
		{" true", true, false, true}, {"true ", true, false, true}, {"1 ", true, false, true}, {"\ntrue", true, false, true},
		{"yes", true, false, true}, {"on", true, false, true}, {"enabled", true, false, true}, {"tRUE", true, false, true},
		{"0x1", true, false, true}, {"+1", true, false, true}, {"01", true, false, true}, {"1.0", true, false, true},
		{"١", true, false, true}, {"１", true, false, true}, {"ｔｒｕｅ", true, false, true}, {"true\x00", true, false, true},
		{"Zq9-secret-value", true, false, true},
	} {
		h := &recordingHandler{}
		lookup := func(k string) (string, bool) {
			if k != discovery.SwitchVariable {
				t.Errorf("looked up %q", k)
			}
			return c.value, c.set
		}
		on := discovery.SwitchFromEnv(lookup, slog.New(h))
		if on != c.on {
			t.Errorf("%q: on = %v, want %v", c.value, on, c.on)
		}
		if (len(h.records) == 1) != c.warn || len(h.records) > 1 {
			t.Errorf("%q: records %q, want a warning: %v", c.value, h.records, c.warn)
			continue
		}
		if !c.warn {
			continue
		}
		r := h.records[0]
		if !strings.HasPrefix(r, "WARN ") || !strings.Contains(r, "setting="+discovery.SwitchVariable) {
			t.Errorf("%q: record %q, want a warning naming the setting", c.value, r)
		}
		if v := strings.TrimSpace(c.value); len(v) >= 3 && strings.Contains(r, v) {
			t.Errorf("%q: the warning quotes the value: %q", c.value, r)
		}
	}
}

// SPEC PLAN-2, DISC-5, PAGE-4: a query that is a tool's whole name finds that tool first
// even when ranking cannot read the name (stop words, one letter), on every page walk
// exactly once; a name the principal is not granted is not found (its name is no
// statistic the query may see). Failed
// before discover put the named tool first: "who_am_i", "do_it" and "x" were never
// found.
func TestAttack3QueryByName(t *testing.T) {
	ctx := context.Background()
	var defs []json.RawMessage
	names := []string{"who_am_i", "do_it", "x", "the", "secret_x"}
	for _, n := range names {
		defs = append(defs, json.RawMessage(fmt.Sprintf(`{"name":%q,"description":"It is.","inputSchema":{"type":"object"}}`, n)))
	}
	for i := range 40 { // words the name queries share: who, am, do, it, i
		defs = append(defs, json.RawMessage(fmt.Sprintf(`{"name":"doc_%02d","description":"Who am I to do it, %d?","inputSchema":{"type":"object"}}`, i, i)))
	}
	cat, err := discovery.NewCatalog(defs, nil)
	if err != nil {
		t.Fatal(err)
	}
	store := grants.NewMemory()
	for _, n := range cat.Names() {
		if n != "secret_x" {
			store.Put(ctx, grants.Row{Principal: grants.AnyPrincipal, Tool: n, Effect: grants.Allow})
		}
	}
	d := discovery.New(&discovery.Options{Enabled: true, Catalog: cat, Grants: store})
	p := grants.Principal{ID: "ann"}
	walk := func(query string) []string {
		var got []string
		req := discovery.Request{Query: query, Limit: 3}
		for range 100 {
			res, err := d.Discover(ctx, p, req)
			if err != nil {
				t.Fatalf("%q: %v", query, err)
			}
			for _, def := range res.Tools {
				var v struct{ Name string }
				json.Unmarshal(def, &v)
				got = append(got, v.Name)
			}
			if res.NextCursor == "" {
				return got
			}
			req.Cursor = res.NextCursor
		}
		t.Fatalf("%q: too many pages", query)
		return nil
	}
	for _, n := range []string{"who_am_i", "do_it", "x", "the"} {
		got := walk(n)
		if len(got) == 0 || got[0] != n {
			t.Errorf("%q: %v, want %s first", n, got, n)
		}
		seen := map[string]bool{}
		for _, g := range got {
			if seen[g] {
				t.Errorf("%q: %s served twice over the pages: %v", n, g, got)
			}
			seen[g] = true
		}
	}
	if got := walk("secret_x"); slices.Contains(got, "secret_x") {
		t.Errorf("secret_x, not granted, was found by its name: %v", got)
	}
}
