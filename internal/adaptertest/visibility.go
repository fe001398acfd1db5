package adaptertest

import (
	"strings"

	"github.com/deferredtools/deferredtools/discovery"
)

// Toolset puts the tools of Tools in toolsets by name: weather_* in "weather",
// deploy_* in "deploy", the others in "secrets" (discovery.CatalogOptions.Toolset).
func Toolset(name string) string {
	switch {
	case strings.HasPrefix(name, "weather_"):
		return "weather"
	case strings.HasPrefix(name, "deploy_"):
		return "deploy"
	}
	return "secrets"
}

// A VisibilityCase is a deployment narrowing (SPEC VIS-1) of Tools, in Toolset's
// toolsets, and the tools it leaves alice of AliceTools.
type VisibilityCase struct {
	Name   string
	Vis    discovery.Visibility
	Served []string
}

// VisibilityCases are the narrowings both adapters' visibility attacks serve.
var VisibilityCases = []VisibilityCase{
	{"excluded", discovery.Visibility{Exclude: []string{"weather_forecast", "deploy_model"}},
		[]string{"weather_get", "weather_station_0", "weather_station_1", "weather_station_2", "weather_station_3", "weather_station_4", "weather_station_5"}},
	{"read-only", discovery.Visibility{ReadOnly: true}, []string{"weather_get"}},
	{"toolsets", discovery.Visibility{Toolsets: []string{"deploy"}}, []string{"deploy_model"}},
	{"read-only wins over toolsets", discovery.Visibility{ReadOnly: true, Toolsets: []string{"deploy"}}, nil},
}
