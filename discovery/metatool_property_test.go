package discovery_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/validate"
)

// refAction reads the member named arg of args as encoding/json reads it: args one
// JSON object, the name (escapes decoded, compared exactly) once, its value a string.
// It is the reference the action gate is checked against.
func refAction(args []byte, arg string) (string, bool) {
	if !json.Valid(args) {
		return "", false
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return "", false
	}
	var val json.RawMessage
	n := 0
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return "", false
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return "", false
		}
		if tok.(string) == arg {
			n++
			val = v
		}
	}
	if _, err := dec.Token(); err != nil {
		return "", false
	}
	if _, err := dec.Token(); err != io.EOF {
		return "", false
	}
	var s string
	if n != 1 || val[0] != '"' || json.Unmarshal(val, &s) != nil {
		return "", false
	}
	return s, true
}

// randomIssueArgs returns arguments for the issue fixture: mostly objects mixing a
// valid or invalid action (repeated, escaped, mistyped, another case) with valid and
// invalid other members, in any order; sometimes no object or no JSON at all.
func randomIssueArgs(r *rand.Rand) string {
	switch r.IntN(20) {
	case 0:
		return []string{``, `[]`, `null`, `"list"`, `{"action":"list"`, `{"action":"list"}}`}[r.IntN(6)]
	}
	actions := []string{`"create"`, `"list"`, `"close"`, `"delete"`, `""`, `"LIST"`, `7`, `null`, `"li\u0073t"`, `"cl\u006fse"`, `["list"]`}
	var members []string
	for range r.IntN(3) { // 0 to 2 action members
		key := []string{`"action"`, `"action"`, `"\u0061ction"`, `"Action"`}[r.IntN(4)]
		members = append(members, key+":"+actions[r.IntN(len(actions))])
	}
	if r.IntN(4) > 0 {
		members = append(members, `"project":`+[]string{`"p"`, `"` + strings.Repeat("p", 51) + `"`, `3`}[r.IntN(3)])
	}
	if r.IntN(2) == 0 {
		members = append(members, `"title":`+[]string{`"t"`, `false`}[r.IntN(2)])
	}
	if r.IntN(3) == 0 {
		members = append(members, `"iid":`+[]string{`1`, `0`, `1.0`, `"1"`}[r.IntN(4)])
	}
	if r.IntN(6) == 0 {
		members = append(members, `"extra":{}`)
	}
	r.Shuffle(len(members), func(i, j int) { members[i], members[j] = members[j], members[i] })
	return "{" + strings.Join(members, ",") + "}"
}

// SPEC CALL-1, CALL-2: the served definition is the enforced one. For random grants of
// issue's actions and random arguments, a call is allowed exactly when the served
// (narrowed) schema, compiled on its own, accepts the arguments; and it is refused with
// tool_not_granted exactly when the arguments, read by encoding/json, name no served
// action, whatever else they hold.
func TestMetaToolServedIsEnforced(t *testing.T) {
	ctx := context.Background()
	cat := metaCatalog(t, metaDecls())
	r := rand.New(rand.NewPCG(18, 1))
	compiler := validate.NewCompiler(nil)
	actions := []string{"create", "list", "close"}
	for round := range 40 {
		var rows []grants.Row
		var served []string
		for _, a := range actions {
			if r.IntN(2) == 0 {
				rows = append(rows, allow("alice", "issue."+a))
				served = append(served, a)
			}
		}
		d := newDiscoverer(cat, newStore(t, rows...), nil)
		list, err := d.ListTools(ctx, alice)
		if err != nil {
			t.Fatal(err)
		}
		def, listed := list.Tool("issue")
		if listed != (len(served) > 0) {
			t.Fatalf("round %d: issue listed %v with actions %q granted", round, listed, served)
		}
		var v validate.Validator
		if listed {
			if got := servedEnum(t, def, "action"); !slices.Equal(got, served) {
				t.Fatalf("round %d: served enum %q, want %q", round, got, served)
			}
			var tool struct {
				InputSchema json.RawMessage `json:"inputSchema"`
			}
			json.Unmarshal(def, &tool)
			if v, err = compiler.Compile(tool.InputSchema); err != nil {
				t.Fatalf("round %d: the served schema does not compile: %v", round, err)
			}
		}
		for range 100 {
			args := randomIssueArgs(r)
			err := d.AuthorizeCall(ctx, alice, discovery.Call{Tool: "issue", Arguments: json.RawMessage(args)})
			action, named := refAction([]byte(args), "action")
			if args == "" {
				action, named = refAction([]byte("{}"), "action")
			}
			switch {
			case !named || !slices.Contains(served, action):
				if !errors.Is(err, discovery.CodeToolNotGranted) {
					t.Fatalf("round %d, served %q, args %s: %v, want tool_not_granted", round, served, args, err)
				}
			default:
				want := v.Validate([]byte(args))
				if (want == nil) != (err == nil) || err != nil && !errors.Is(err, discovery.CodeInvalidArguments) {
					t.Fatalf("round %d, served %q, args %s: %v, want the served schema's verdict %v", round, served, args, err, want)
				}
			}
			// Whatever the gate says, the served schema never accepts what is refused.
			if v != nil && err != nil && v.Validate([]byte(args)) == nil {
				t.Fatalf("round %d, served %q, args %s: refused (%v) though the served schema accepts them", round, served, args, err)
			}
		}
	}
}
