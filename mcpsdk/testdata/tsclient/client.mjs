// client.mjs drives the official MCP TypeScript SDK client against a server using the
// mcpsdk adapter, and prints what it saw as one JSON object on stdout.
//
//   node client.mjs stdio COMMAND ARGS_JSON SCENARIO_JSON
//   node client.mjs http  URL     TOKEN     SCENARIO_JSON
//
// SCENARIO_JSON: {"query", "limit", "granted": {"name", "arguments"},
//                 "denied": {"name", "arguments"}, "invalid": {"name", "arguments"}}
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { z } from "zod";

const [mode, target, extra, scenarioJSON] = process.argv.slice(2);
const scenario = JSON.parse(scenarioJSON);

let transport;
if (mode === "stdio") {
  transport = new StdioClientTransport({
    command: target,
    args: JSON.parse(extra),
    env: { ...process.env },
    stderr: "inherit",
  });
} else if (mode === "http") {
  transport = new StreamableHTTPClientTransport(new URL(target), {
    requestInit: { headers: { Authorization: `Bearer ${extra}` } },
  });
} else {
  throw new Error(`unknown mode ${mode}`);
}

const client = new Client({ name: "deferredtools-ts-test", version: "0.0.0" });
await client.connect(transport);
const out = { server: client.getServerVersion()?.name };

// The SEP-2549 cache hints of a result, as the client received them (null: absent).
const cacheHints = (res) => ({ cacheScope: res.cacheScope ?? null, ttlMs: res.ttlMs ?? null });

// tools/list, every page.
out.listed = [];
out.listCache = [];
let cursor;
do {
  const res = await client.listTools(cursor ? { cursor } : undefined);
  out.listCache.push(cacheHints(res));
  for (const t of res.tools) out.listed.push(t.name);
  out.listDigest = res._meta?.contract_digest;
  cursor = res.nextCursor;
} while (cursor);

// The discover method, through client.request with a permissive result schema.
const Page = z.object({}).passthrough();
out.discovered = [];
out.discoverCache = [];
out.pages = 0;
cursor = undefined;
do {
  const params = { query: scenario.query, limit: scenario.limit };
  if (cursor) params.cursor = cursor;
  const res = await client.request({ method: "multillm.tools.discover", params }, Page);
  out.pages++;
  out.discoverCache.push(cacheHints(res));
  for (const t of res.tools) {
    if (typeof t.inputSchema !== "object") throw new Error(`tool ${t.name} has no inputSchema`);
    out.discovered.push(t.name);
  }
  out.discoverDigest = res._meta?.contract_digest;
  cursor = res.nextCursor;
} while (cursor);

// Calls: granted, denied (a JSON-RPC error), invalid arguments (an isError result).
const granted = await client.callTool(scenario.granted);
out.granted = { isError: granted.isError ?? false, text: granted.content?.[0]?.text };
try {
  await client.callTool(scenario.denied);
  out.denied = null;
} catch (e) {
  out.denied = { code: e.code, data: e.data };
}
const invalid = await client.callTool(scenario.invalid);
out.invalid = { isError: invalid.isError ?? false, text: invalid.content?.[0]?.text };

await client.close();
process.stdout.write(JSON.stringify(out) + "\n");
