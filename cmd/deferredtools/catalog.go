package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"syscall"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/metatool"
	"github.com/deferredtools/deferredtools/rank/rankeval"
	"github.com/deferredtools/deferredtools/schemaguard"
	"github.com/deferredtools/deferredtools/validate"
)

// Refusals of catalog check and rank eval: fixed one-line texts, never file content.
var (
	errCatalogRead   = errors.New("deferredtools: cannot read the catalog file")
	errCatalogFormat = errors.New("deferredtools: the catalog file is not a JSON array of tools nor an object with a \"tools\" array")
	errCatalogEmpty  = errors.New("deferredtools: the catalog file is empty")
	errQueriesRead   = errors.New("deferredtools: cannot read the queries file")
	errMetaRead      = errors.New("deferredtools: cannot read the meta tools file")
	errEvalCatalog   = errors.New("deferredtools: the catalog file is not the JSON rank eval reads")
	errEvalQueries   = errors.New("deferredtools: the queries file is not the JSON rank eval reads")
	errMetaFile      = errors.New("deferredtools: the meta tools file")
	errUnenforceable = errors.New("deferredtools: a tool's input schema is not enforced: every call to it answers tool_validation_unavailable (503)")
	errCheckFailed   = errors.New("deferredtools: the discovery check answered an unexpected error")
	errOutput        = errors.New("deferredtools: cannot write the report")
)

// readRefusal answers the refusal base (which file) of a file that could not be read,
// with why when it is one an operator can act on: the fixed text of the cause, never
// the file's name or content.
func readRefusal(base, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%w: no such file", base)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("%w: permission denied", base)
	case errors.Is(err, syscall.EISDIR):
		return fmt.Errorf("%w: it is a directory", base)
	}
	return base
}

// toolReport is one tool as catalog check reports it.
type toolReport struct {
	Name string `json:"name"`
	// Enforced reports whether the bounded validator enforces the tool's input schema;
	// when not, every call answers tool_validation_unavailable (503) and StoppedBy names
	// the keyword that stopped it ("limit" for a CALL-5 bound, "" when the schema is
	// malformed or holds a member that is no keyword).
	Enforced  bool   `json:"enforced"`
	StoppedBy string `json:"stoppedBy,omitempty"`
	// Bytes is the length of the tool's canonical form (RFC 8785).
	Bytes int `json:"canonicalBytes"`
	// FitsPage reports whether a discover page holding the tool alone fits the response
	// bound (SPEC PAGE-1); when not, discovery answers tool_schema_too_large (413) when
	// the tool comes next.
	FitsPage bool `json:"fitsPage"`
	// Digest is "sha256:" and the hex SHA-256 of the canonical form (SPEC CONTRACT-2).
	Digest string `json:"digest"`
	// Actions are a meta tool's action IDs, as grant rows name them (-meta-tools).
	Actions []string `json:"actions,omitempty"`
}

// catalogCheck reports, for every tool of FILE in name order, what a Discoverer over it
// would do: whether calls are validated, the canonical size, whether it fits a discover
// page alone, and the digest. Each answer comes from the library itself: a Catalog
// built by discovery.NewCatalog, a Discoverer over it granting each tool to a principal
// of its own and AuthorizeCall for validation, Discover for the room a page has for one
// tool (pageRoom), compared with each tool's canonical size; the compiler only names
// the keyword. Exit 1 when NewCatalog refuses the file or any tool is not
// enforced (after the report).
func catalogCheck(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("catalog check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print JSON")
	metaFile := fs.String("meta-tools", "", "a JSON `FILE` declaring meta tools' actions (metatool.Parse)")
	validator := fs.String("validator", "strict", "the Compiler the catalog will have: `strict` (the default one), annotations (validate.AnnotationKeywords accepted) or full (validate.NewFull)")
	// The file may come before or after the flags.
	var file string
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		file, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		return parseErr(err)
	}
	if file == "" && fs.NArg() == 1 {
		file = fs.Arg(0)
	} else if fs.NArg() > 0 {
		return usageErr("unexpected argument")
	}
	if file == "" {
		return usageErr("catalog check needs FILE")
	}
	newCompiler, ok := compilers[*validator]
	if !ok {
		return usageErr("-validator must be strict, annotations or full")
	}
	compiler := newCompiler()
	data, err := os.ReadFile(file)
	if err != nil {
		return readRefusal(errCatalogRead, err)
	}
	tools, err := catalogTools(data)
	if err != nil {
		return err
	}
	opts := &discovery.CatalogOptions{Compiler: compiler}
	if *metaFile != "" {
		text, err := os.ReadFile(*metaFile)
		if err != nil {
			return readRefusal(errMetaRead, err)
		}
		if opts.MetaTools, err = metatool.Parse(text); err != nil {
			return fmt.Errorf("%w: %w", errMetaFile, err) // a *metatool.Error: the rule broken, never content
		}
	}
	cat, err := discovery.NewCatalog(tools, opts)
	if err != nil {
		return err // a *discovery.CatalogError: position and rule, never content
	}
	if compiler == nil {
		compiler = validate.NewCompiler(nil) // the default Compiler's rules, to name a keyword
	}
	reports, err := checkTools(cat, compiler)
	if err != nil {
		return err
	}
	unenforced := 0
	for _, r := range reports {
		if !r.Enforced {
			unenforced++
		}
	}
	if *asJSON {
		out := struct {
			Tools      []toolReport `json:"tools"`
			Bytes      int          `json:"catalogBytes"`
			Unenforced int          `json:"unenforced"`
		}{reports, cat.Size().Bytes, unenforced}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return errOutput
		}
	} else {
		fmt.Fprintln(stdout, "tool\tvalidation\tbytes\tpage\tdigest")
		for _, r := range reports {
			v := "enforced"
			if !r.Enforced {
				v = "503: " + stoppedText(r.StoppedBy)
			}
			page := "fits"
			if !r.FitsPage {
				page = "413: too large"
			}
			name := r.Name
			if r.Actions != nil {
				name += " (" + strings.Join(r.Actions, ", ") + ")"
			}
			fmt.Fprintf(stdout, "%s\t%s\t%d\t%s\t%s\n", name, v, r.Bytes, page, r.Digest)
		}
		fmt.Fprintf(stdout, "%d tools, %d canonical bytes, %d not enforced\n", len(reports), cat.Size().Bytes, unenforced)
	}
	if unenforced > 0 {
		return errUnenforceable
	}
	return nil
}

func stoppedText(keyword string) string {
	if keyword == "" {
		return "malformed schema or unknown keyword"
	}
	return "stopped by " + keyword
}

// catalogTools reads a JSON array of tool definitions, or an object whose "tools"
// member is one (a tools/list result).
func catalogTools(data []byte) ([]json.RawMessage, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, errCatalogEmpty
	}
	var tools []json.RawMessage
	if len(data) > 0 && data[0] == '{' {
		var obj map[string]json.RawMessage
		if json.Unmarshal(data, &obj) != nil || obj["tools"] == nil {
			return nil, errCatalogFormat
		}
		data = obj["tools"]
	}
	if json.Unmarshal(data, &tools) != nil || tools == nil {
		return nil, errCatalogFormat
	}
	return tools, nil
}

// grantNames are the names grant rows give tool: its action IDs for a meta tool, else
// its own name.
func grantNames(cat *discovery.Catalog, tool string) []string {
	m, ok := cat.MetaTool(tool)
	if !ok {
		return []string{tool}
	}
	ids := make([]string, len(m.Actions))
	for i, a := range m.Actions {
		ids[i] = tool + "." + a.Name
	}
	return ids
}

// checkPrincipal is the principal granted only tool in checkTools' Discoverer.
func checkPrincipal(tool string) grants.Principal { return grants.Principal{ID: "check:" + tool} }

// compilers make the Compilers catalog check -validator names; nil is the catalog's
// default.
var compilers = map[string]func() validate.Compiler{
	"strict": func() validate.Compiler { return nil },
	"annotations": func() validate.Compiler {
		return validate.NewCompiler(&validate.Options{Annotations: validate.AnnotationKeywords})
	},
	"full": func() validate.Compiler { return validate.NewFull(nil) },
}

// checkTools builds each tool's report over cat, built with compiler's rules, which
// also name the keyword that stops a tool.
func checkTools(cat *discovery.Catalog, compiler validate.Compiler) ([]toolReport, error) {
	ctx := context.Background()
	store := grants.NewMemory()
	for _, name := range cat.Names() {
		for _, id := range grantNames(cat, name) {
			if _, err := store.Put(ctx, grants.Row{Principal: checkPrincipal(name).ID, Tool: id, Effect: grants.Allow}); err != nil {
				return nil, err
			}
		}
	}
	d := discovery.New(&discovery.Options{Enabled: true, Catalog: cat, Grants: store})
	room, err := pageRoom()
	if err != nil {
		return nil, err
	}
	var reports []toolReport
	for _, name := range cat.Names() {
		canon, _ := cat.Tool(name)
		digest := schemaguard.Digest(canon)
		r := toolReport{Name: name, Bytes: len(canon), Digest: "sha256:" + hex.EncodeToString(digest[:])}
		var fields struct {
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		json.Unmarshal(canon, &fields) // canonical and checked by NewCatalog: exact names

		args := json.RawMessage("{}")
		if m, ok := cat.MetaTool(name); ok { // a call names an action: its first
			r.Actions = grantNames(cat, name)
			args, _ = json.Marshal(map[string]string{m.Argument: m.Actions[0].Name})
		}
		err := d.AuthorizeCall(ctx, checkPrincipal(name), discovery.Call{Tool: name, Arguments: args})
		switch {
		case errors.Is(err, discovery.CodeValidationUnavailable):
			_, cerr := compiler.Compile(fields.InputSchema)
			var ue *validate.UnsupportedError
			switch {
			case errors.As(cerr, &ue):
				r.StoppedBy = ue.Keyword
			case errors.Is(cerr, validate.ErrLimit):
				r.StoppedBy = "limit"
			}
		case err == nil, errors.Is(err, discovery.CodeInvalidArguments):
			r.Enforced = true // validated: {} passed or was refused by the schema
		default:
			return nil, errCheckFailed
		}

		r.FitsPage = len(canon) <= room
		reports = append(reports, r)
	}
	return reports, nil
}

// pageRoom answers the largest canonical tool a discover page holding it alone fits
// (SPEC PAGE-1). The bound is the same for every tool (the page's other bytes do not
// depend on it), so it is found once, from the library itself: Discover over one-tool
// catalogs of a probe tool padded to each size tried, by bisection.
func pageRoom() (int, error) {
	ctx := context.Background()
	p := grants.Principal{ID: "check"}
	fits := func(pad int) (size int, ok bool, err error) {
		tool, _ := json.Marshal(map[string]any{"name": "pagefit", "description": strings.Repeat("x", pad),
			"inputSchema": map[string]string{"type": "object"}})
		cat, err := discovery.NewCatalog([]json.RawMessage{tool}, nil)
		if err != nil {
			return 0, false, errCheckFailed
		}
		canon, _ := cat.Tool("pagefit")
		store := grants.NewMemory()
		if _, err := store.Put(ctx, grants.Row{Principal: p.ID, Tool: "pagefit", Effect: grants.Allow}); err != nil {
			return 0, false, errCheckFailed
		}
		d := discovery.New(&discovery.Options{Enabled: true, Catalog: cat, Grants: store})
		res, err := d.Discover(ctx, p, discovery.Request{Query: "pagefit", Limit: 1})
		switch {
		case err == nil && len(res.Tools) == 1:
			return len(canon), true, nil
		case errors.Is(err, discovery.CodeSchemaTooLarge):
			return len(canon), false, nil
		}
		return 0, false, errCheckFailed
	}
	// Invariant: padding lo fits, padding hi does not.
	lo, hi := 0, discovery.MaxResponseBytes
	room, ok, err := fits(lo)
	if err != nil || !ok {
		return 0, errCheckFailed
	}
	if _, ok, err := fits(hi); err != nil || ok {
		return 0, errCheckFailed
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		size, ok, err := fits(mid)
		if err != nil {
			return 0, err
		}
		if ok {
			lo, room = mid, size
		} else {
			hi = mid
		}
	}
	return room, nil
}

// rankEval runs rank/rankeval over a catalog and a labelled query set: Recall@1, @5,
// @10, MRR@10 and nDCG@10, as go run ./rank/cmd/rankeval prints them.
func rankEval(args []string, stdout, stderr io.Writer) error {
	flags := flag.NewFlagSet("rank eval", flag.ContinueOnError)
	flags.SetOutput(stderr)
	catalog := flags.String("catalog", "", "JSON array of tools {name, title?, description, inputSchema?, ...}")
	queries := flags.String("queries", "", `JSON array of {"query": ..., "relevant": [tool names]}`)
	asJSON := flags.Bool("json", false, "print JSON")
	params := flags.Bool("params", true, "rank the text of each tool's parameters too, as discovery does by default")
	if err := flags.Parse(args); err != nil {
		return parseErr(err)
	}
	if flags.NArg() > 0 {
		return usageErr("unexpected argument")
	}
	if *catalog == "" || *queries == "" {
		return usageErr("-catalog and -queries are required")
	}
	err := rankeval.Run(stdout, *catalog, *queries, *params, *asJSON)
	var pathErr *fs.PathError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, rankeval.ErrFormat):
		// Run reads the catalog first: say which file by reading it alone again.
		if _, cerr := rankeval.LoadCatalog(*catalog); errors.Is(cerr, rankeval.ErrFormat) {
			return errEvalCatalog
		}
		return errEvalQueries
	case errors.As(err, &pathErr) && pathErr.Path == *queries:
		return readRefusal(errQueriesRead, pathErr.Err)
	case pathErr != nil:
		return readRefusal(errCatalogRead, pathErr.Err)
	}
	return errOutput
}
