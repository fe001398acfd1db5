// Command deferredtools operates a deferredtools host: it applies the grant store's
// migrations and lists, changes and explains grant rows in SQLite or PostgreSQL, checks
// a tool catalog as discovery will serve it, and measures ranking on labelled queries.
//
//	deferredtools migrate -db DB [-repair]
//	deferredtools grants list  -db DB [-principal P] [-tool T] [-json] [-page N]
//	deferredtools grants allow -db DB -principal P -tool T [-scopes a,b]
//	deferredtools grants deny  -db DB -principal P -tool T
//	deferredtools grants revoke -db DB -principal P -tool T
//	deferredtools grants check -db DB -principal P [-scopes a,b] [-tool T]
//	deferredtools catalog check FILE [-json] [-meta-tools FILE] [-validator strict|annotations|full]
//	deferredtools rank eval -catalog FILE -queries FILE [-json] [-params=false]
//
// DB is sqlite:PATH or a postgres:// (postgresql://) connection string. Every change
// goes through sqlstore, one transaction each, and prints the new control revision.
// migrate refuses (exit 1) a database whose revision triggers are missing, disabled or
// changed, which every read refuses too; migrate -repair recreates them first
// (sqlstore.RepairTriggers) and says so.
// grants list reads -page rows at a time; list and check print a principal, tool or
// scope of more than 64 code points as its first 64, quoted, then "…(N bytes)", and a
// scope holding a comma quoted (-json prints each whole, a byte that is not UTF-8 as
// U+FFFD, as JSON must). catalog check reads a JSON array of tool definitions (or a
// tools/list result) and reports each tool as a Discoverer over it would treat it, its
// catalog built with the -validator Compiler; it exits 1, after the report, when any
// tool's calls would all answer tool_validation_unavailable (503). The exit status is
// 0 on success (and for -h, -help or help, alone or after a command group), 1 when the
// operation is refused (a one-line reason on stderr) and 2 on a usage error (the usage
// on stderr; a command group named alone or with a subcommand it lacks, such as grants
// or grants bogus, prints its subcommands').
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/grants/sqlstore"
)

const usage = `usage:
  deferredtools migrate -db DB [-repair]
  deferredtools grants list   -db DB [-principal P] [-tool T] [-json] [-page N]
  deferredtools grants allow  -db DB -principal P -tool T [-scopes a,b]
  deferredtools grants deny   -db DB -principal P -tool T
  deferredtools grants revoke -db DB -principal P -tool T
  deferredtools grants check  -db DB -principal P [-scopes a,b] [-tool T]
  deferredtools catalog check FILE [-json] [-meta-tools FILE] [-validator strict|annotations|full]
  deferredtools rank eval -catalog FILE -queries FILE [-json] [-params=false]
DB is sqlite:PATH or postgres://...`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// errUsage marks a usage error: exit status 2.
var errUsage = errors.New("usage")

// errHelp marks a subcommand's -h or -help, whose flags the flag set printed: the
// usage follows on stderr, exit status 0.
var errHelp = errors.New("help")

// parseErr maps a flag set's Parse error: a help request is errHelp, any other
// (already printed by the flag set) a usage error.
func parseErr(err error) error {
	if errors.Is(err, flag.ErrHelp) {
		return errHelp
	}
	return errUsage
}

// errNoRow refuses a revoke of a row that does not exist.
var errNoRow = errors.New("deferredtools: no grant row for that principal and tool")

// run runs the command line args and answers the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	err := dispatch(args, stdout, stderr)
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errHelp):
		fmt.Fprintln(stderr, usage)
		return 0
	case errors.Is(err, errUsage):
		if msg := strings.TrimPrefix(err.Error(), errUsage.Error()); msg != "" {
			fmt.Fprintln(stderr, "deferredtools: usage"+msg)
		}
		var sub *subcommandError
		if errors.As(err, &sub) {
			fmt.Fprintln(stderr, groupUsage(sub.group))
		} else {
			fmt.Fprintln(stderr, usage)
		}
		return 2
	}
	// Library errors are fixed one-line texts; each line says which command spoke.
	msg := err.Error()
	if !strings.HasPrefix(msg, "deferredtools:") {
		msg = "deferredtools: " + msg
	}
	fmt.Fprintln(stderr, msg)
	return 1
}

func usageErr(msg string) error { return fmt.Errorf("%w: %s", errUsage, msg) }

// A subcommandError is a command group (grants, catalog, rank) named without a
// subcommand, or with one it lacks (unknown): a usage error whose usage is the group's
// alone.
type subcommandError struct {
	group   string
	unknown bool
}

func (e *subcommandError) Error() string {
	if e.unknown {
		return errUsage.Error() + ": unknown " + e.group + " subcommand"
	}
	return errUsage.Error() + ": " + e.group + " needs a subcommand"
}

func (e *subcommandError) Unwrap() error { return errUsage }

// groupUsage is the usage of group's subcommands: the lines of usage naming them, and
// what DB is when they take one.
func groupUsage(group string) string {
	lines := []string{"usage:"}
	db := false
	for line := range strings.Lines(usage) {
		line = strings.TrimSuffix(line, "\n")
		if strings.HasPrefix(line, "  deferredtools "+group+" ") {
			lines = append(lines, line)
			db = db || strings.Contains(line, " DB")
		}
		if db && strings.HasPrefix(line, "DB is ") {
			lines = append(lines, line)
		}
	}
	return strings.Join(lines, "\n")
}

func dispatch(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return errUsage
	}
	switch {
	case isHelp(args[0]), len(args) == 2 && isGroup(args[0]) && isHelp(args[1]):
		fmt.Fprintln(stdout, usage)
		return nil
	case args[0] == "migrate":
		return migrate(args[1:], stdout, stderr)
	case args[0] == "catalog" && len(args) > 1 && args[1] == "check":
		return catalogCheck(args[2:], stdout, stderr)
	case args[0] == "rank" && len(args) > 1 && args[1] == "eval":
		return rankEval(args[2:], stdout, stderr)
	}
	if isGroup(args[0]) && (len(args) == 1 || args[0] != "grants") {
		return &subcommandError{group: args[0], unknown: len(args) > 1}
	}
	if args[0] != "grants" {
		return usageErr("unknown command")
	}
	switch args[1] {
	case "list":
		return list(args[2:], stdout, stderr)
	case "allow", "deny":
		return put(args[1], args[2:], stdout, stderr)
	case "revoke":
		return revoke(args[2:], stdout, stderr)
	case "check":
		return check(args[2:], stdout, stderr)
	}
	return &subcommandError{group: "grants", unknown: true}
}

// isHelp reports whether arg asks for the usage.
func isHelp(arg string) bool {
	return arg == "-h" || arg == "-help" || arg == "--help" || arg == "help"
}

// isGroup reports whether name is a command group (grants, catalog, rank), whose help
// (grants -h) prints the usage as the top-level -h does.
func isGroup(name string) bool { return name == "grants" || name == "catalog" || name == "rank" }

// flags is one subcommand's flag set with the -db flag every subcommand has.
type flags struct {
	*flag.FlagSet
	db, principal, tool, scopes string
	json                        bool
}

// newFlags makes the flag set of a subcommand; with names the optional flags it takes.
func newFlags(name string, stderr io.Writer, with ...string) *flags {
	f := &flags{FlagSet: flag.NewFlagSet(name, flag.ContinueOnError)}
	f.SetOutput(stderr)
	f.StringVar(&f.db, "db", "", "grant database: sqlite:PATH or postgres://...")
	for _, w := range with {
		switch w {
		case "principal":
			f.StringVar(&f.principal, "principal", "", "principal ID (* for every principal)")
		case "tool":
			f.StringVar(&f.tool, "tool", "", "exact tool name")
		case "scopes":
			f.StringVar(&f.scopes, "scopes", "", "scopes, comma-separated")
		case "json":
			f.BoolVar(&f.json, "json", false, "print JSON")
		}
	}
	return f
}

// parse parses args and checks that the required flags are set and nothing else follows.
func (f *flags) parse(args []string, required ...string) error {
	if err := f.Parse(args); err != nil {
		return parseErr(err)
	}
	if f.NArg() > 0 {
		return usageErr("unexpected argument")
	}
	if f.db == "" {
		return usageErr("-db is required")
	}
	for _, r := range required {
		if f.Lookup(r).Value.String() == "" {
			return usageErr("-" + r + " is required")
		}
	}
	return nil
}

// splitScopes splits a -scopes value at commas; "" is no scope. Empty items are kept, so
// that the row model refuses them.
func splitScopes(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// migrate applies the pending migrations, printing each and the schema's level; with
// -repair it first recreates the revision triggers of the recorded migrations.
func migrate(args []string, stdout, stderr io.Writer) error {
	f := newFlags("migrate", stderr)
	repair := f.Bool("repair", false, "recreate the revision triggers first (writes made without them are read again)")
	if err := f.parse(args); err != nil {
		return err
	}
	db, d, err := open(f.db, true)
	if err != nil {
		return err
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	before, err := sqlstore.Applied(ctx, db, d)
	if err != nil {
		return err
	}
	if *repair && len(before) > 0 {
		if err := sqlstore.RepairTriggers(ctx, db, d); err != nil {
			return err
		}
		fmt.Fprintln(stdout, "repaired the revision triggers; every cached grant is read again")
	}
	merr := sqlstore.Migrate(ctx, db, d, nil)
	if merr != nil && !errors.Is(merr, sqlstore.ErrTriggersChanged) {
		return merr
	}
	after, err := sqlstore.Applied(ctx, db, d)
	if err != nil {
		return err
	}
	for _, m := range after {
		if !slices.ContainsFunc(before, func(b sqlstore.Migration) bool { return b.Version == m.Version }) {
			fmt.Fprintln(stdout, "applied", m.Name)
		}
	}
	if merr != nil {
		return errTriggers
	}
	if len(after) > 0 {
		fmt.Fprintln(stdout, "schema at", after[len(after)-1].Name)
	}
	return nil
}

// jsonRow is a row as list -json prints it.
type jsonRow struct {
	Principal string   `json:"principal"`
	Tool      string   `json:"tool"`
	Scopes    []string `json:"scopes"`
	Effect    string   `json:"effect"`
	Revision  int64    `json:"revision"`
}

// rowText prints a row's fields tab-separated: principal, tool, effect, scopes
// (comma-separated, "-" for none), revision; principal and tool as field prints them,
// each scope as scopeField does.
func rowText(r grants.Row) string {
	scopes := "-"
	if len(r.Scopes) > 0 {
		shown := make([]string, len(r.Scopes))
		for i, sc := range r.Scopes {
			shown[i] = scopeField(sc)
		}
		scopes = strings.Join(shown, ",")
	}
	return fmt.Sprintf("%s\t%s\t%s\t%s\t%d", field(r.Principal), field(r.Tool), r.Effect, scopes, r.Revision)
}

// scopeField is field for one of a row's comma-separated scopes: one holding a comma
// (a scope-token may) is quoted too, so that the list reads back as it is.
func scopeField(s string) string {
	if f := field(s); f != s || !strings.Contains(s, ",") {
		return f
	}
	return strconv.Quote(s)
}

// maxShown is how many code points of stored text a text line shows: the row model
// bounds no principal, tool or scope, and one of 100 KB would fill the terminal.
const maxShown = 64

// field prints stored text as it is, or Go-quoted (strconv.Quote) when it holds invalid
// UTF-8, a character that is neither printable nor a space (a tab, a newline, an escape)
// or a leading quote, so that a row stays one line of tab-separated fields and no
// stored byte reaches the terminal raw. Text of more than maxShown code points (an
// invalid byte counting as one) prints as its first maxShown, quoted, then "…(N bytes)":
// it begins with a quote and does not end with one, as no whole text printed does.
// -json prints text whole (a byte that is not UTF-8 as U+FFFD: the text output is the
// exact one).
func field(s string) string {
	if cut, n := 0, 0; len(s) > maxShown {
		for cut < len(s) && n < maxShown {
			_, size := utf8.DecodeRuneInString(s[cut:])
			cut, n = cut+size, n+1
		}
		if cut < len(s) {
			return strconv.Quote(s[:cut]) + "…(" + strconv.Itoa(len(s)) + " bytes)"
		}
	}
	if utf8.ValidString(s) && !strings.HasPrefix(s, `"`) &&
		strings.IndexFunc(s, func(r rune) bool { return r != ' ' && !unicode.IsPrint(r) }) < 0 {
		return s
	}
	return strconv.Quote(s)
}

// errChanged refuses a listing whose pages were read at different control revisions.
var errChanged = errors.New("deferredtools: grants changed while listing; list again")

// list prints the matching rows, read -page rows at a time (sqlstore.ListPage) so that a
// listing of any size holds one page in memory. Every page must be read at the first
// page's control revision, else the listing is refused (exit 1) after the rows printed.
func list(args []string, stdout, stderr io.Writer) error {
	f := newFlags("grants list", stderr, "principal", "tool", "json")
	page := f.Int("page", 1000, "rows per read, 1 to 10000")
	if err := f.parse(args); err != nil {
		return err
	}
	if *page < 1 || *page > sqlstore.MaxListRows {
		return usageErr("-page must be 1 to 10000")
	}
	return withStore(f.db, func(ctx context.Context, s *sqlstore.Store) error {
		w := bufio.NewWriter(stdout)
		defer w.Flush()
		var (
			after    sqlstore.PageKey
			revision int64
			n        int
		)
		for first := true; ; first = false {
			l, more, err := s.ListPage(ctx, f.principal, f.tool, after, *page)
			if err != nil {
				if !first && f.json {
					w.WriteString("\n")
				}
				return err
			}
			if first {
				revision = l.Revision
				if f.json {
					fmt.Fprintf(w, "{\n  \"revision\": %d,\n  \"rows\": [", revision)
				} else {
					fmt.Fprintln(w, "revision", revision)
				}
			} else if l.Revision != revision {
				if f.json {
					w.WriteString("\n")
				}
				return errChanged
			}
			for _, r := range l.Rows {
				if f.json {
					b, err := json.Marshal(jsonRow{r.Principal, r.Tool, append([]string{}, r.Scopes...), string(r.Effect), r.Revision})
					if err != nil {
						return err
					}
					if n > 0 {
						w.WriteString(",")
					}
					w.WriteString("\n    ")
					w.Write(b)
				} else {
					fmt.Fprintln(w, rowText(r))
				}
				n++
			}
			if !more {
				break
			}
			last := l.Rows[len(l.Rows)-1]
			after = sqlstore.PageKey{Principal: last.Principal, Tool: last.Tool}
		}
		if f.json {
			if n > 0 {
				w.WriteString("\n  ")
			}
			w.WriteString("]\n}\n")
		}
		return nil
	})
}

func put(effect string, args []string, stdout, stderr io.Writer) error {
	with := []string{"principal", "tool"}
	if effect == "allow" {
		with = append(with, "scopes")
	}
	f := newFlags("grants "+effect, stderr, with...)
	if err := f.parse(args, "principal", "tool"); err != nil {
		return err
	}
	return withStore(f.db, func(ctx context.Context, s *sqlstore.Store) error {
		r, err := s.Put(ctx, grants.Row{Principal: f.principal, Tool: f.tool, Scopes: splitScopes(f.scopes), Effect: grants.Effect(effect)})
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, "revision", r.Revision)
		return nil
	})
}

func revoke(args []string, stdout, stderr io.Writer) error {
	f := newFlags("grants revoke", stderr, "principal", "tool")
	if err := f.parse(args, "principal", "tool"); err != nil {
		return err
	}
	return withStore(f.db, func(ctx context.Context, s *sqlstore.Store) error {
		rev, err := s.Remove(ctx, f.principal, f.tool)
		if err != nil {
			return err
		}
		if rev == 0 {
			return errNoRow
		}
		fmt.Fprintln(stdout, "revision", rev)
		return nil
	})
}

// check prints the decision (GRANT-2) for -tool, or for every tool with a row that
// applies to the principal, and the deciding row: one line per tool, "TOOL granted|denied"
// then the row as list prints it, or "no row" (denied by default).
func check(args []string, stdout, stderr io.Writer) error {
	f := newFlags("grants check", stderr, "principal", "tool", "scopes")
	if err := f.parse(args, "principal"); err != nil {
		return err
	}
	return withStore(f.db, func(ctx context.Context, s *sqlstore.Store) error {
		snap, err := s.ReadGrants(ctx, f.principal)
		if err != nil {
			return err
		}
		d, err := grants.Resolve(snap, grants.Principal{ID: f.principal, Scopes: splitScopes(f.scopes)})
		if err != nil {
			return err
		}
		tools := []string{f.tool}
		if f.tool == "" {
			tools = nil
			for _, r := range snap.Rows {
				if !slices.Contains(tools, r.Tool) {
					tools = append(tools, r.Tool)
				}
			}
			slices.Sort(tools)
		}
		fmt.Fprintln(stdout, "revision", snap.Revision)
		for _, tool := range tools {
			decision := "denied"
			if d.Allows(tool) {
				decision = "granted"
			}
			by := "no row"
			if r, ok := grants.Deciding(snap, f.principal, tool); ok {
				by = rowText(r)
			}
			fmt.Fprintf(stdout, "%s\t%s\t%s\n", field(tool), decision, by)
		}
		return nil
	})
}
