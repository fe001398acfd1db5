package validate

import "testing"

// SPEC PERF-3: validating the ten-property object from its bytes allocates at most a
// tenth of what each peer allocates for the same bytes (decode included), and so does
// every real catalog's case when ../shared/data is present. Allocation counts do not
// depend on the machine's load, so this half of PERF-3 is a test, not a benchmark.
func TestAllocationsTenthOfPeers(t *testing.T) {
	cases := []benchCase{tenProp(t)}
	cat, _ := catalogCases(t)
	cases = append(cases, cat...)
	for _, c := range cases {
		allocs := map[string]float64{}
		for _, l := range libs {
			vs := compileCase(t, l.name, l.compile, c)
			allocs[l.name] = testing.AllocsPerRun(20, func() {
				for i, v := range vs {
					if err := v(c.args[i]); err != nil {
						t.Fatal(err)
					}
				}
			})
		}
		t.Logf("%s: allocations per op: ours %.0f, santhosh %.0f, google %.0f", c.name, allocs["ours"], allocs["santhosh"], allocs["google"])
		for _, peer := range []string{"santhosh", "google"} {
			if allocs[peer] == 0 || allocs["ours"] > allocs[peer]/10 {
				t.Errorf("%s: ours allocates %.0f per op, %s %.0f: more than a tenth", c.name, allocs["ours"], peer, allocs[peer])
			}
		}
	}
}
