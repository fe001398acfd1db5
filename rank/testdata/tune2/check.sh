#!/bin/sh
# check.sh validates the tune2 query sets: JSON arrays with one object per line,
# the right keys and kind per set, word counts in range, 12 queries per file,
# relevant tool names present in their catalog, and no query repeated in the folder.
# Catalogs are read from $CATALOGS, else ../shared/data/catalogs from the repo root,
# else /work/shared/data/catalogs; the name check is skipped (and says so) if none exists.
set -eu
dir=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$dir/../../.." && pwd)
cats=${CATALOGS:-}
if [ -z "$cats" ]; then
	for c in "$root/../shared/data/catalogs" /work/shared/data/catalogs; do
		if [ -d "$c" ]; then cats=$c; break; fi
	done
fi
exec python3 - "$dir" "$cats" <<'EOF'
import json, os, re, sys

folder, cats = sys.argv[1], sys.argv[2]
CATALOGS = ["azure", "github", "gitlab", "mcp-reference", "notion", "playwright"]
RULES = {
    # set: (keys, kind, min words, max words, min relevant, max relevant)
    "long": ({"query", "relevant"}, None, 15, 80, 1, 12),
    "para": ({"kind", "query", "relevant"}, "paraphrase", 4, 14, 1, 2),
    "nomatch": ({"kind", "query", "relevant"}, "nomatch", 3, 30, 0, 0),
}
PER_FILE = 12
errors = []
seen = {}

def err(where, msg):
    errors.append(f"{where}: {msg}")

if not cats or not os.path.isdir(cats):
    print("SKIP name check: no catalog folder (set CATALOGS)")
    cats = None

for cat in CATALOGS:
    names = None
    if cats:
        with open(os.path.join(cats, cat + ".json"), encoding="utf-8") as f:
            names = {t["name"] for t in json.load(f)}
    for setname, (keys, kind, wmin, wmax, rmin, rmax) in RULES.items():
        fn = f"{cat}.{setname}.json"
        path = os.path.join(folder, fn)
        try:
            raw = open(path, "rb").read().decode("utf-8")
        except (OSError, UnicodeDecodeError) as e:
            err(fn, f"unreadable or not UTF-8: {e}")
            continue
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as e:
            err(fn, f"invalid JSON: {e}")
            continue
        if not isinstance(data, list):
            err(fn, "not a JSON array")
            continue
        lines = raw.rstrip("\n").split("\n")
        if lines[0] != "[" or lines[-1] != "]" or len(lines) - 2 != len(data):
            err(fn, "layout is not '[', one object per line, ']'")
        else:
            for i, line in enumerate(lines[1:-1]):
                body = line[:-1] if i < len(data) - 1 else line
                if i < len(data) - 1 and not line.endswith(","):
                    err(fn, f"line {i + 2}: missing trailing comma")
                try:
                    if json.loads(body) != data[i]:
                        err(fn, f"line {i + 2}: does not hold object {i}")
                except json.JSONDecodeError:
                    err(fn, f"line {i + 2}: not one whole object")
        if len(data) != PER_FILE:
            err(fn, f"{len(data)} queries, want {PER_FILE}")
        for i, o in enumerate(data):
            w = f"{fn}[{i}]"
            if not isinstance(o, dict):
                err(w, "not an object")
                continue
            if set(o) != keys:
                err(w, f"keys {sorted(o)}, want {sorted(keys)}")
            if kind is not None and o.get("kind") != kind:
                err(w, f"kind {o.get('kind')!r}, want {kind!r}")
            q = o.get("query")
            if not isinstance(q, str) or not q.strip():
                err(w, "query missing or empty")
                continue
            n = len(q.split())
            if not wmin <= n <= wmax:
                err(w, f"{n} words, want {wmin}-{wmax}")
            rel = o.get("relevant")
            if not isinstance(rel, list) or not all(isinstance(r, str) for r in rel):
                err(w, "relevant is not a list of strings")
                continue
            if not rmin <= len(rel) <= rmax:
                err(w, f"{len(rel)} relevant, want {rmin}-{rmax}")
            if len(set(rel)) != len(rel):
                err(w, "relevant repeats a name")
            if names is not None:
                for r in rel:
                    if r not in names:
                        err(w, f"relevant {r!r} is not a tool of {cat}")
            key = re.sub(r"\s+", " ", q.strip().lower())
            if key in seen:
                err(w, f"duplicate query (also {seen[key]})")
            else:
                seen[key] = w

if errors:
    for e in errors:
        print("FAIL", e)
    sys.exit(1)
print(f"ok: {len(seen)} queries in {len(CATALOGS) * len(RULES)} files")
EOF
