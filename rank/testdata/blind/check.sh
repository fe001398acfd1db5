#!/bin/sh
# check.sh validates the blind query sets in this folder against the tool catalogs.
# Usage: sh check.sh [catalog-dir]  (default: ../shared/data/catalogs from the repo root)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
cats=${1:-$root/../shared/data/catalogs}
exec python3 - "$here" "$cats" <<'PY'
import json, sys, os
here, cats = sys.argv[1], sys.argv[2]
names = ["azure", "github", "gitlab", "mcp-reference", "notion", "playwright"]
ranges = {"long": (15, 80), "para": (4, 14), "nomatch": (3, 40)}
kinds = {"long": None, "para": "paraphrase", "nomatch": "nomatch"}
bad = 0
seen = {}
def fail(msg):
    global bad
    bad += 1
    print("FAIL", msg)
for cat in names:
    tools = {t["name"] for t in json.load(open(os.path.join(cats, cat + ".json"), encoding="utf-8"))}
    for suffix, (lo, hi) in ranges.items():
        fn = f"{cat}.{suffix}.json"
        raw = open(os.path.join(here, fn), "rb").read()
        text = raw.decode("utf-8")
        items = json.loads(text)
        if not isinstance(items, list) or len(items) != 10:
            fail(f"{fn}: want an array of 10, got {len(items)}")
        lines = [l for l in text.splitlines() if l.strip() not in ("[", "]")]
        if len(lines) != len(items):
            fail(f"{fn}: want one object per line")
        for i, it in enumerate(items):
            q, rel = it.get("query"), it.get("relevant")
            want = {"query", "relevant"} | ({"kind"} if kinds[suffix] else set())
            if set(it) != want:
                fail(f"{fn}[{i}]: keys {sorted(it)}")
            if kinds[suffix] and it.get("kind") != kinds[suffix]:
                fail(f"{fn}[{i}]: kind {it.get('kind')}")
            n = len(q.split())
            if not lo <= n <= hi:
                fail(f"{fn}[{i}]: {n} words, want {lo}-{hi}")
            key = q.strip().lower()
            if key in seen:
                fail(f"{fn}[{i}]: duplicate of {seen[key]}")
            seen[key] = f"{fn}[{i}]"
            if suffix == "nomatch":
                if rel != []:
                    fail(f"{fn}[{i}]: nomatch with relevant tools")
            else:
                if not rel:
                    fail(f"{fn}[{i}]: no relevant tools")
                if len(set(rel)) != len(rel):
                    fail(f"{fn}[{i}]: repeated tool")
                for r in rel:
                    if r not in tools:
                        fail(f"{fn}[{i}]: {r} not in {cat}")
print("checked", len(seen), "queries;", "ok" if bad == 0 else f"{bad} problems")
sys.exit(1 if bad else 0)
PY
