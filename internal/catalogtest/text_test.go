package catalogtest

import (
	"slices"
	"testing"
)

func TestSplitName(t *testing.T) {
	for _, tc := range []struct {
		name       string
		segs, seps []string
	}{
		{"acr_registry_list", []string{"acr", "registry", "list"}, []string{"_", "_"}},
		{"API-get-user", []string{"API", "get", "user"}, []string{"-", "-"}},
		{"mergeRequestIid", []string{"merge", "Request", "Iid"}, []string{"", ""}},
		{"auth-method", []string{"auth", "method"}, []string{"-"}},
		{"echo", []string{"echo"}, nil},
		{"_meta__x_", []string{"_meta", "x_"}, []string{"__"}},
		{"$schema", []string{"$schema"}, nil},
	} {
		segs, seps := splitName(tc.name)
		if !slices.Equal(segs, tc.segs) || !slices.Equal(seps, tc.seps) {
			t.Errorf("splitName(%q) = %q, %q, want %q, %q", tc.name, segs, seps, tc.segs, tc.seps)
		}
		if got := joinName(segs, seps); got != tc.name {
			t.Errorf("joinName(splitName(%q)) = %q", tc.name, got)
		}
	}
}

func TestJSONRoundTrip(t *testing.T) {
	in := `{"b":[1,2.50,-3e2,true,false,null],"a":{"x":"q\"\\\n\u0001é<>&"},"":{}}`
	v, err := decode([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"b":[1,2.50,-3e2,true,false,null],"a":{"x":"q\"\\\n\u0001é<>&"},"":{}}`
	if got := string(appendValue(nil, v)); got != want {
		t.Errorf("appendValue(decode(%s)) = %s, want %s", in, got, want)
	}
	for _, bad := range []string{`{"a":1} 2`, `{"a"`, `[1,]`} {
		if _, err := decode([]byte(bad)); err == nil {
			t.Errorf("decode(%s): no error", bad)
		}
	}
}
