// Every tool as tools/list sends it (the plugin's list: every headless tool plus the host toolset),
// compared with the committed test/tools/schemas.snapshot.json, so no schema, description or
// annotation changes unnoticed; and the README's table of tools/list sizes per toolset, computed from
// the same list. `npm run snapshots` rewrites both.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ALL_TOOLS } from "../../src/tools/registry";
import { TOOL_GROUPS, type ToolGroup } from "../../src/tools/types";
import { startPlugin } from "../support/plugin";
import { startTestServer } from "../support/server";
import { EDGE_VAULT } from "../support/vaults";

const ROOT = path.resolve(__dirname, "../..");
const SNAPSHOT = path.join(ROOT, "test/tools/schemas.snapshot.json");
const README = path.join(ROOT, "README.md");
const UPDATE_COMMAND = "npm run snapshots";
const TABLE_START = "<!-- tools-list-sizes:start (npm run snapshots writes this table) -->";
const TABLE_END = "<!-- tools-list-sizes:end -->";
const updating = process.env.UPDATE_SNAPSHOTS === "1";

type ListedTool = Record<string, unknown> & { name: string; annotations?: { readOnlyHint?: boolean } };

interface Snapshot {
  toolsets: Record<string, string[]>;
  tools: ListedTool[];
}

/** The tools/list result exactly as the server sent it: the body of the response, before the SDK parses it. */
async function rawToolsList(url: string, token: string): Promise<ListedTool[]> {
  let body: string | null = null;
  const capture = async (input: string | URL, init?: RequestInit): Promise<Response> => {
    const response = await fetch(input, init);
    if (typeof init?.body === "string" && init.body.includes('"tools/list"')) body = await response.clone().text();
    return response;
  };
  const client = new Client({ name: "schema-snapshot", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: capture, requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  try {
    await client.listTools();
  } finally {
    await client.close();
  }
  assert.ok(body !== null, "the tools/list response was seen");
  return (JSON.parse(body) as { result: { tools: ListedTool[] } }).result.tools;
}

function groupOf(name: string): ToolGroup {
  return ALL_TOOLS.find((tool) => tool.name === name)?.group ?? "host";
}

function toolsetsOf(tools: readonly ListedTool[]): Record<string, string[]> {
  return Object.fromEntries(TOOL_GROUPS.map((group) => [group, tools.filter((tool) => groupOf(tool.name) === group).map((tool) => tool.name)]));
}

function formatted(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** Bytes of the tools/list result as JSON, and tokens estimated as characters / 4. */
function sizeRow(label: string, tools: readonly ListedTool[]): string {
  const json = JSON.stringify({ tools });
  const number = (value: number): string => value.toLocaleString("en-US");
  return `| ${label} | ${tools.length} | ${number(Buffer.byteLength(json))} | ${number(Math.round(json.length / 4))} |`;
}

function sizeTable(plugin: readonly ListedTool[], headless: readonly ListedTool[]): string {
  const rows = [
    "| toolsets | tools | bytes | ≈ tokens |",
    "|---|---|---|---|",
    ...TOOL_GROUPS.map((group) => sizeRow(`\`${group}\`${group === "host" ? " (plugin only)" : ""}`, plugin.filter((tool) => groupOf(tool.name) === group))),
    sizeRow("all, headless", headless),
    sizeRow("all, plugin", plugin),
    sizeRow("all, read-only user (headless)", headless.filter((tool) => tool.annotations?.readOnlyHint === true)),
  ];
  return rows.join("\n");
}

function withTable(readme: string, table: string): string {
  const start = readme.indexOf(TABLE_START);
  const end = readme.indexOf(TABLE_END);
  assert.ok(start >= 0 && end > start, `README.md holds the markers ${TABLE_START} … ${TABLE_END}`);
  return `${readme.slice(0, start + TABLE_START.length)}\n${table}\n${readme.slice(end)}`;
}

function differences(expected: Snapshot, actual: Snapshot): string[] {
  const before = new Map(expected.tools.map((tool) => [tool.name, tool]));
  const after = new Map(actual.tools.map((tool) => [tool.name, tool]));
  const lines: string[] = [];
  for (const name of after.keys()) if (!before.has(name)) lines.push(`  added: ${name}`);
  for (const name of before.keys()) if (!after.has(name)) lines.push(`  removed: ${name}`);
  for (const [name, tool] of after) {
    const old = before.get(name);
    if (!old) continue;
    const keys = new Set([...Object.keys(old), ...Object.keys(tool)]);
    const changed = [...keys].filter((key) => JSON.stringify(old[key]) !== JSON.stringify(tool[key]));
    if (changed.length > 0) lines.push(`  changed: ${name} (${changed.join(", ")})`);
  }
  if (lines.length === 0 && JSON.stringify(expected.tools.map((tool) => tool.name)) !== JSON.stringify(actual.tools.map((tool) => tool.name))) {
    lines.push("  the order of the tools");
  }
  if (JSON.stringify(expected.toolsets) !== JSON.stringify(actual.toolsets)) lines.push("  the tools of a toolset");
  return lines;
}

test("every tool's schema, description and annotations match the committed snapshot, and the README's size table matches them", async () => {
  const plugin = await startPlugin({ fixture: EDGE_VAULT });
  let pluginTools: ListedTool[];
  try {
    pluginTools = await rawToolsList(plugin.url, plugin.token);
  } finally {
    await plugin.stop();
  }
  const server = await startTestServer({ fixture: EDGE_VAULT, extra: { history: false } });
  let headlessTools: ListedTool[];
  try {
    headlessTools = await rawToolsList(server.url, server.token);
  } finally {
    await server.stop();
  }
  assert.deepEqual(headlessTools, pluginTools.filter((tool) => groupOf(tool.name) !== "host"), "the headless server lists the plugin's tools but the host toolset, alike (is main.js built from this source? npm run build)");

  const actual: Snapshot = { toolsets: toolsetsOf(pluginTools), tools: pluginTools };
  const readme = readFileSync(README, "utf8");
  const table = sizeTable(pluginTools, headlessTools);
  if (updating) {
    writeFileSync(SNAPSHOT, formatted(actual));
    writeFileSync(README, withTable(readme, table));
    return;
  }
  assert.ok(existsSync(SNAPSHOT), `${path.relative(ROOT, SNAPSHOT)} is missing; run \`${UPDATE_COMMAND}\` and commit it`);
  const expected = JSON.parse(readFileSync(SNAPSHOT, "utf8")) as Snapshot;
  const changes = differences(expected, actual);
  assert.ok(
    changes.length === 0 && readFileSync(SNAPSHOT, "utf8") === formatted(actual),
    `tools/list differs from ${path.relative(ROOT, SNAPSHOT)}:\n${changes.join("\n") || "  its formatting"}\n` +
      `If the change is meant, run \`${UPDATE_COMMAND}\` (it rewrites the snapshot and README.md's size table) and commit both.`,
  );
  assert.equal(withTable(readme, table), readme, `README.md's tools/list size table is out of date; run \`${UPDATE_COMMAND}\` and commit it`);
});
