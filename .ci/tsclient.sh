#!/bin/sh
# tsclient.sh installs what the TypeScript client tests of mcpsdk and mcpgo need on a fresh machine:
# the official MCP TypeScript SDK, exactly as the committed lockfile pins it. Needs
# Node.js 20 and npm; the npm registry must be reachable. Run from anywhere.
set -eu
dir=$(cd "$(dirname "$0")/.." && pwd)/mcpsdk/testdata/tsclient
node --version >/dev/null 2>&1 || { echo "tsclient.sh: node is not installed (Node.js 20 needed)" >&2; exit 1; }
cd "$dir"
npm ci --no-audit --no-fund
