package adaptertest

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
)

// ClashMark is the description of RadarTool: an answer holding it serves the catalog
// tool named weather_radar, the discovery tool's name in the clash tests.
const ClashMark = "RADAR-CATALOG-SCHEMA"

// ClashVersions returns a catalog of Tools and one that adds weather_radar (named like
// the discovery tool of the clash tests), and grants of Rows that also grant
// weather_radar to everyone.
func ClashVersions(t testing.TB) (free, clash *discovery.Catalog, g *grants.Memory) {
	t.Helper()
	free, err := discovery.NewCatalog(Tools(), nil)
	if err != nil {
		t.Fatal(err)
	}
	radar := json.RawMessage(`{"name":"weather_radar","description":"Weather radar of a city. ` + ClashMark + `",
		"inputSchema":{"type":"object","properties":{"city":{"type":"string"}}}}`)
	if clash, err = discovery.NewCatalog(append(Tools(), radar), nil); err != nil {
		t.Fatal(err)
	}
	g = grants.NewMemory()
	for _, r := range append(Rows(), grants.Row{Principal: "*", Tool: "weather_radar", Effect: grants.Allow, Revision: 1}) {
		if _, err := g.Put(context.Background(), r); err != nil {
			t.Fatal(err)
		}
	}
	return free, clash, g
}

// Flip stores a and b into sw by turns, as fast as it can, until the test ends.
func Flip(t testing.TB, sw *discovery.SwappableCatalog, a, b *discovery.Catalog) {
	stop := make(chan struct{})
	var done sync.WaitGroup
	done.Add(1)
	go func() {
		defer done.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if i%2 == 0 {
				sw.Store(a)
			} else {
				sw.Store(b)
			}
		}
	}()
	t.Cleanup(func() { close(stop); done.Wait() })
}

// BadPins are _meta.contract_digest values that are no string; null is one of them.
var BadPins = []string{`5`, `0`, `{}`, `{"contract_digest":"x"}`, `[]`, `["sha256:0"]`, `true`, `false`, `null`}

// A PinCase is a tools/call (id 1) carrying a pin, and the code it must answer.
type PinCase struct {
	Msg  string
	Want discovery.Code
}

// PinCases are the calls of the test catalog a pin that is no string must answer, by
// the order the adapters decide a call in (the grants, then the pin, then the
// arguments): a denied tool is refused as denied, a granted one invalid_params
// whatever its arguments, and the discovery tool (search_tools) invalid_params as an
// error, not an isError result.
func PinCases(pin string) []PinCase {
	call := func(name, args string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + name + `","arguments":` + args + `,"_meta":{"contract_digest":` + pin + `}}}`
	}
	return []PinCase{
		{call("weather_get", `{"city":"Oslo"}`), discovery.CodeInvalidParams},
		{call("weather_get", `{"city":5}`), discovery.CodeInvalidParams},
		{call("secrets_read", `{"key":"k"}`), discovery.CodeToolNotGranted},
		{call("search_tools", `{"query":"weather"}`), discovery.CodeInvalidParams},
		{call("search_tools", `{"query":""}`), discovery.CodeInvalidParams},
	}
}
