// Command lexgen writes rank's lexicon of related words (rank/related_gen.go) from
// WordNet 3.0: for each word of tool catalogs' vocabulary (targets, below: verbs and
// nouns of software operations), the other words of its most frequent senses, and the
// nouns and verbs derived from it, map to it. A query word then also looks for the
// catalog's word, weighed below its own ("erase" also finds delete, "approval" approve).
//
// Usage (WordNet is Debian's wordnet-base):
//
//	go run ./rank/cmd/lexgen -wordnet /usr/share/wordnet > rank/related_gen.go
//
// The lists below are the curation: targets names the words looked up with the number
// of senses read for each part of speech, and deny the words never mapped (too vague,
// or another sense in tool text). A word that is itself a target keeps its own meaning
// and maps nowhere, and so does a stop word of rank's (given in stop).
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// verbs and nouns are the targets, with how many senses of each are read (most frequent
// first). Fewer senses for words with many unrelated ones.
var verbs = map[string]int{
	"create": 2, "delete": 2, "remove": 1, "list": 1, "update": 1, "search": 2, "find": 1,
	"add": 1, "edit": 1, "run": 1, "start": 2, "stop": 2, "cancel": 1, "retry": 1, "merge": 2,
	"approve": 2, "close": 2, "open": 1, "read": 1, "write": 1, "move": 2, "rename": 1,
	"copy": 2, "fork": 1, "star": 1, "upload": 1, "download": 1, "publish": 2, "send": 1,
	"navigate": 1, "click": 1, "type": 1, "press": 1, "select": 1, "hover": 1, "drag": 1,
	"resize": 1, "fill": 1, "wait": 1, "evaluate": 1, "install": 1, "generate": 1,
	"validate": 2, "verify": 2, "assign": 2, "request": 1, "resolve": 1, "submit": 2,
	"dismiss": 1, "lock": 1, "protect": 1, "restore": 1, "save": 1, "capture": 1,
	"record": 2, "trace": 1, "deploy": 1, "diagnose": 1, "recognize": 1, "synthesize": 1,
	"import": 1, "export": 1, "append": 1, "compress": 1, "subscribe": 1, "watch": 1,
	"restart": 1, "convert": 1, "promote": 1, "confirm": 1, "configure": 1, "monitor": 1,
	"reply": 1, "comment": 1, "review": 1, "tag": 1, "label": 1, "release": 1, "commit": 1,
	"highlight": 1, "annotate": 1, "toggle": 1, "trigger": 1, "observe": 1, "relate": 1,
	"query": 1, "retrieve": 1, "fetch": 1, "delay": 1, "scroll": 1, "mark": 1, "unlock": 1,
	"archive": 1, "clear": 1, "reset": 1, "invite": 1, "share": 1, "schedule": 1,
	"compare": 1, "execute": 1, "sum": 1, "echo": 1, "think": 1, "resume": 1, "pause": 1,
	"rerun": 1, "abort": 1, "reject": 1, "revoke": 1, "grant": 1, "allow": 1, "block": 1,
	"drop": 1, "show": 1, "display": 1, "reorder": 1, "prioritize": 1,
}

var nouns = map[string]int{
	"repository": 1, "issue": 1, "branch": 1, "commit": 1, "file": 1, "directory": 1,
	"folder": 1, "page": 1, "user": 1, "member": 1, "team": 1, "organization": 1,
	"project": 1, "group": 1, "pipeline": 1, "job": 1, "log": 1, "artifact": 1,
	"release": 1, "tag": 1, "label": 1, "milestone": 1, "comment": 1, "note": 1,
	"discussion": 1, "review": 1, "reviewer": 1, "notification": 1, "alert": 1, "secret": 1,
	"vulnerability": 1, "advisory": 1, "workflow": 1, "diff": 1, "change": 1, "key": 1,
	"certificate": 1, "password": 1, "database": 1, "table": 1, "container": 1,
	"storage": 1, "account": 1, "subscription": 1, "resource": 1, "cluster": 1, "node": 1,
	"cookie": 1, "tab": 1, "dialog": 1, "window": 1, "keyboard": 1, "mouse": 1,
	"screenshot": 1, "image": 1, "video": 1, "recording": 1, "network": 1, "request": 1,
	"route": 1, "console": 1, "message": 1, "email": 1, "text": 1, "speech": 1,
	"audio": 1, "cost": 1, "price": 1, "quota": 1, "usage": 1, "recommendation": 1,
	"policy": 1, "role": 1, "permission": 1, "firewall": 1, "rule": 1, "server": 1,
	"queue": 1, "topic": 1, "event": 1, "metric": 1, "workspace": 1, "block": 1,
	"property": 1, "template": 1, "entity": 1, "relation": 1, "observation": 1,
	"graph": 1, "number": 1, "error": 1, "problem": 1, "bug": 1, "collaborator": 1,
	"approval": 1, "deletion": 1, "creation": 1, "content": 1, "size": 1, "tree": 1,
	"document": 1, "snapshot": 1, "trace": 1, "todo": 1, "task": 1, "wiki": 1,
	"variable": 1, "setting": 1, "configuration": 1, "deployment": 1, "environment": 1,
	"emoji": 1, "reaction": 1, "thread": 1, "status": 1, "state": 1, "owner": 1,
	"phone": 1, "machine": 1, "disk": 1, "vault": 1, "backup": 1, "region": 1,
}

// deny are words never mapped: vague, or meaning something else in tool text.
var deny = map[string]bool{
	"get": true, "make": true, "do": true, "have": true, "take": true, "go": true,
	"set": true, "put": true, "give": true, "come": true, "see": true, "look": true,
	"hold": true, "keep": true, "turn": true, "bring": true, "call": true, "work": true,
	"function": true, "operate": true, "be": true, "let": true, "say": true, "tell": true,
	"state": true, "name": true, "point": true, "place": true, "position": true,
	"lead": true, "head": true, "line": true, "form": true, "part": true, "act": true,
	"use": true, "time": true, "end": true, "case": true, "matter": true, "object": true,
	"thing": true, "stuff": true, "one": true, "type": true, "kind": true, "sort": true,
	"class": true, "order": true, "order_of_magnitude": true, "item": true, "entry": true,
	"post": true, "mail": true, "base": true, "data": true, "information": true, "info": true,
	"fit": true, "fix": true, "find": true, "meet": true, "pass": true, "play": true,
	"show": true, "return": true, "check": true, "track": true, "cover": true, "draw": true,
	"pull": true, "push": true, "follow": true, "figure": true, "run": true, "start": true,
	"move": true, "change": true, "read": true, "write": true, "open": true, "close": true,
	"list": true, "note": true, "view": true, "page": true, "site": true, "web": true,
	"mark": true, "label": true, "tag": true, "board": true, "card": true, "sheet": true,
	"book": true, "flight": true, "ticket": true, "account": true, "bill": true,
	"charge": true, "agent": true, "master": true, "main": true, "root": true,
	"log": true, "logarithm": true, "lumber": true, "wood": true, "timber": true,
	"mental": true, "body": true, "person": true, "someone": true, "somebody": true,
	"soul": true, "individual": true, "mortal": true, "human": true, "sir": true,
	"lowly": true, "humble": true, "car": true, "auto": true, "cable": true,
}

// denyMore are more words of the first output read and left out (another sense, or an
// agent noun nobody queries with).
var denyMore = strings.Fields(`creature waiter word subject shot picture address arm bar booklet brochure leaflet pamphlet bump business chance happen encounter chit chronicle history story constellation contain control convey deposit direct discount enter exercise employment expose flux grapevine guide henchman confederate hint suggestion holding belongings input know labor itinerary path locomote machinist measure value notice occupation office own papers pen perpetrate commission portion posit present presentment pressure print province relieve salve saucer scene scratch scrub serve settle simulate snap sound spark speak support sustain tape theme travel treatment trip vibrate oscillate vacillate voyage sail yarn treelet approbate approving blessing advise organize err withdraw decide adjudicate rebroadcast rehear retrial remotion omission regain question quest petition bespeak postulation demo demonstrate believe consider conceive detain credential credentials countersign parole watchword imitate copyist dragger filler opener runner starter saver mover finder lister searcher selector reader writer recorder verifier evaluator annotator approver highlighter locker protector restorer publisher importer importee exporter converter generator granter watcher querier typist synthesizer observer duologue cooky templet colligate associate link connect paginate immix commingle conflate regulation subdivision store further advance boost encourage speechify motion movement displace relinquish summarise summarize tabulate unclutter typewrite discourse allot depute designate assignation appendage affix supplement foreground formalise formalize corroborate substantiate okay detect discover acknowledge reconstruct salvage indite compose redact`)

func init() {
	for _, w := range denyMore {
		deny[w] = true
	}
}

// stop is rank's stop words that WordNet also lists (their lemmas never map).
var stop = map[string]bool{"can": true, "will": true, "may": true, "might": true, "must": true}

func main() {
	dir := flag.String("wordnet", "/usr/share/wordnet", "folder of WordNet 3.0's index.* and data.* files")
	flag.Parse()
	if err := run(os.Stdout, *dir); err != nil {
		fmt.Fprintln(os.Stderr, "lexgen:", err)
		os.Exit(1)
	}
}

// A synset is one WordNet sense: its words and its derivation pointers (word number in
// this synset, and the synset and word number they point to).
type synset struct {
	words []string
	deriv []pointer
}

type pointer struct {
	src    int
	offset int64
	pos    string
	dst    int
}

type wordnet struct {
	dir  string
	data map[string]*os.File
}

// senses returns the synset offsets of word as pos, most frequent first.
func (wn *wordnet) senses(pos, word string) ([]int64, error) {
	f, err := os.Open(filepath.Join(wn.dir, "index."+pos))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, word+" ") {
			continue
		}
		fs := strings.Fields(line)
		// lemma pos synset_cnt p_cnt [ptr_symbol...] sense_cnt tagsense_cnt synset_offset...
		n, _ := strconv.Atoi(fs[2])
		p, _ := strconv.Atoi(fs[3])
		var offs []int64
		for _, o := range fs[4+p+2:] {
			v, err := strconv.ParseInt(o, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("index.%s: %q: %v", pos, word, err)
			}
			offs = append(offs, v)
		}
		if len(offs) != n {
			return nil, fmt.Errorf("index.%s: %q: %d offsets, want %d", pos, word, len(offs), n)
		}
		return offs, nil
	}
	return nil, sc.Err()
}

// synset reads the synset of pos at offset.
func (wn *wordnet) synset(pos string, offset int64) (synset, error) {
	f := wn.data[pos]
	if f == nil {
		var err error
		if f, err = os.Open(filepath.Join(wn.dir, "data."+pos)); err != nil {
			return synset{}, err
		}
		wn.data[pos] = f
	}
	r := bufio.NewReader(io.NewSectionReader(f, offset, 1<<20))
	line, err := r.ReadString('\n')
	if err != nil && line == "" {
		return synset{}, err
	}
	fs := strings.Fields(line)
	// offset lex_filenum ss_type w_cnt (word lex_id)... p_cnt (ptr offset pos src/dst)...
	wcnt, err := strconv.ParseInt(fs[3], 16, 32)
	if err != nil {
		return synset{}, fmt.Errorf("data.%s@%d: %v", pos, offset, err)
	}
	var s synset
	i := 4
	for range wcnt {
		s.words = append(s.words, strings.ToLower(fs[i]))
		i += 2
	}
	pcnt, _ := strconv.Atoi(fs[i])
	i++
	for range pcnt {
		sym, off, ppos, sd := fs[i], fs[i+1], fs[i+2], fs[i+3]
		i += 4
		if sym != "+" {
			continue
		}
		o, _ := strconv.ParseInt(off, 10, 64)
		src, _ := strconv.ParseInt(sd[:2], 16, 32)
		dst, _ := strconv.ParseInt(sd[2:], 16, 32)
		if ppos == "s" {
			ppos = "a"
		}
		s.deriv = append(s.deriv, pointer{int(src), o, posName(ppos), int(dst)})
	}
	return s, nil
}

func posName(p string) string {
	switch p {
	case "n":
		return "noun"
	case "v":
		return "verb"
	case "a":
		return "adj"
	}
	return "adv"
}

func run(w io.Writer, dir string) error {
	wn := &wordnet{dir: dir, data: map[string]*os.File{}}
	related := map[string]map[string]bool{}
	isTarget := func(x string) bool { _, v := verbs[x]; _, n := nouns[x]; return v || n }
	keep := func(word, target string) {
		if word == target || strings.ContainsAny(word, "_-.'0123456789") || len(word) < 3 ||
			deny[word] || stop[word] || isTarget(word) {
			return
		}
		if related[word] == nil {
			related[word] = map[string]bool{}
		}
		related[word][target] = true
	}
	for _, part := range []struct {
		pos     string
		targets map[string]int
	}{{"verb", verbs}, {"noun", nouns}} {
		for _, t := range slices.Sorted(maps.Keys(part.targets)) {
			offs, err := wn.senses(part.pos, t)
			if err != nil {
				return err
			}
			for k, o := range offs {
				if k >= part.targets[t] {
					break
				}
				s, err := wn.synset(part.pos, o)
				if err != nil {
					return err
				}
				for _, x := range s.words {
					keep(x, t)
				}
				// Words derived from the target itself (deletion from delete).
				at := slices.Index(s.words, t) + 1
				for _, p := range s.deriv {
					if p.src != at || (p.pos != "noun" && p.pos != "verb") {
						continue
					}
					d, err := wn.synset(p.pos, p.offset)
					if err != nil {
						return err
					}
					if p.dst >= 1 && p.dst <= len(d.words) {
						keep(d.words[p.dst-1], t)
					}
				}
			}
		}
	}
	var b bytes.Buffer
	b.WriteString(header)
	for _, word := range slices.Sorted(maps.Keys(related)) {
		ts := slices.Sorted(maps.Keys(related[word]))
		fmt.Fprintf(&b, "\t%q: {%s},\n", word, quoteAll(ts))
	}
	b.WriteString("}\n")
	src, err := format.Source(b.Bytes())
	if err != nil {
		return err
	}
	_, err = w.Write(src)
	return err
}

func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, ", ")
}

const header = `// Code generated by go run ./rank/cmd/lexgen; DO NOT EDIT.

// The words below come from WordNet 3.0 (see WORDNET-LICENSE beside this file):
//
// WordNet 3.0 Copyright 2006 by Princeton University. All rights reserved.
//
// THIS SOFTWARE AND DATABASE IS PROVIDED "AS IS" AND PRINCETON UNIVERSITY MAKES NO
// REPRESENTATIONS OR WARRANTIES, EXPRESS OR IMPLIED. BY WAY OF EXAMPLE, BUT NOT
// LIMITATION, PRINCETON UNIVERSITY MAKES NO REPRESENTATIONS OR WARRANTIES OF MERCHANT-
// ABILITY OR FITNESS FOR ANY PARTICULAR PURPOSE OR THAT THE USE OF THE LICENSED
// SOFTWARE, DATABASE OR DOCUMENTATION WILL NOT INFRINGE ANY THIRD PARTY PATENTS,
// COPYRIGHTS, TRADEMARKS OR OTHER RIGHTS.

package rank

// wordnetRelated maps a folded query word to the words of tool catalogs it is related to
// in WordNet (a sense in common, or derived from one another), as written: "erase" ->
// delete. See relatedWeight.
var wordnetRelated = map[string][]string{
`
