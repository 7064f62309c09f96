// Same answers from both hosts: the same calls against the headless server and against the built
// plugin in the Obsidian stand-in, on identical copies of edge-vault, give the same JSON.
import { test } from "node:test";
import assert from "node:assert/strict";
import { EDGE_VAULT } from "../support/vaults";
import { hashToken } from "../../src/auth/tokens";
import { callTool, startTestServer, type ToolCallResult } from "../support/server";
import { startPlugin } from "../support/plugin";

/**
 * Fields that differ by design: times come from each host's own clock and file stats (the two vault
 * copies are made moments apart), trash copies are named by the moment of the write, and commit ids
 * hash the commit time.
 */
const HOST_SPECIFIC = new Set(["mtime", "ctime", "modified", "last_modified", "trash", "duration_ms", "started", "uptime_s", "when", "commit", "id"]);

function normalize(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalize);
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) if (!HOST_SPECIFIC.has(key)) out[key] = normalize(inner);
  return out;
}

type Step = { tool: string; args: Record<string, unknown> | ((previous: ToolCallResult[]) => Record<string, unknown>) };

const STEPS: Step[] = [
  { tool: "vault_list", args: {} },
  { tool: "vault_stats", args: {} },
  { tool: "note_list", args: { limit: 100 } },
  { tool: "note_read", args: { path: "wiki/index.md" } },
  { tool: "note_read", args: { path: "wiki/bom-crlf.md" } },
  { tool: "note_outline", args: { path: "wiki/rate-limiting.md" } },
  { tool: "note_backlinks", args: { path: "wiki/rate-limiting.md" } },
  { tool: "note_backlinks", args: { path: "projects/beta/plan.md" } },
  { tool: "note_related", args: { path: "wiki/index.md" } },
  { tool: "note_search", args: { query: "token bucket" } },
  { tool: "note_search", args: { query: "Überlegungen" } },
  { tool: "vault_grep", args: { pattern: "rate" } },
  { tool: "tag_list", args: {} },
  { tool: "task_list", args: {} },
  { tool: "attachment_list", args: {} },
  { tool: "note_create", args: { path: "wiki/contract.md", content: "---\ntags: [contract]\n---\n# Contract\n\nLinks to [[rate-limiting]] and [[missing-one]].\n" } },
  { tool: "note_edit", args: (previous) => ({ path: "wiki/contract.md", content_hash: previous[previous.length - 1]!.structured.content_hash, old_string: "# Contract", new_string: "# Contract\n\n## Part", reason: "contract edit" }) },
  { tool: "note_section_edit", args: { path: "wiki/contract.md", heading: "Part", mode: "append_to_section", content: "- [ ] a task #todo" } },
  { tool: "note_frontmatter", args: { path: "wiki/contract.md", set: { status: "draft" } } },
  { tool: "note_outline", args: { path: "wiki/contract.md" } },
  { tool: "note_history", args: { path: "wiki/contract.md" } },
  { tool: "note_backlinks", args: { path: "wiki/rate-limiting.md" } },
  { tool: "task_list", args: {} },
  { tool: "note_frontmatter", args: { path: "wiki/index.md", set: { reviewed: true } } },
  { tool: "note_read", args: { path: "wiki/index.md" } },
  { tool: "note_delete", args: { path: "wiki/contract.md", dry_run: true } },
  // In the plugin the rename goes through FileManager.renameFile, which rewrites links itself: the
  // plan and the result must still be the same.
  { tool: "note_move", args: { path: "wiki/rate-limiting.md", to: "archive/Rate limits.md", dry_run: true } },
  { tool: "note_move", args: { path: "wiki/rate-limiting.md", to: "archive/Rate limits.md", reason: "contract move" } },
  { tool: "note_backlinks", args: { path: "archive/Rate limits.md" } },
  { tool: "note_read", args: { path: "wiki/index.md" } },
  { tool: "note_move", args: { path: "archive/Rate limits.md", to: "wiki/rate-limiting.md" } },
  { tool: "note_read", args: { path: "wiki/index.md" } },
];

test("headless server and plugin give the same JSON for the same calls", async () => {
  const plugin = await startPlugin({ fixture: EDGE_VAULT });
  // The same user and the same client on both sides: the history records both names.
  const headless = await startTestServer({
    fixture: EDGE_VAULT,
    name: "default",
    users: [{ name: "tester", token_hashes: [hashToken(plugin.token)], vaults: [], read_only: false }],
  });
  try {
    const headlessClient = await headless.connect(plugin.token, "contract-client");
    const pluginClient = await plugin.connect(plugin.token, "contract-client");
    const fromHeadless: ToolCallResult[] = [];
    const fromPlugin: ToolCallResult[] = [];
    const mismatches: string[] = [];
    for (const step of STEPS) {
      const headlessArgs = typeof step.args === "function" ? step.args(fromHeadless) : step.args;
      const pluginArgs = typeof step.args === "function" ? step.args(fromPlugin) : step.args;
      const a = await callTool(headlessClient, step.tool, headlessArgs);
      const b = await callTool(pluginClient, step.tool, pluginArgs);
      fromHeadless.push(a);
      fromPlugin.push(b);
      // Two identical failures would compare equal and prove nothing: every step must succeed.
      assert.equal(a.isError, false, `headless ${step.tool}: ${a.text}`);
      try {
        assert.equal(b.isError, a.isError, `${step.tool}: isError`);
        assert.deepEqual(normalize(b.structured), normalize(a.structured));
      } catch (error) {
        mismatches.push(`${step.tool} ${JSON.stringify(headlessArgs)}: ${error instanceof Error ? error.message.slice(0, 3000) : String(error)}`);
      }
    }
    assert.deepEqual(mismatches, []);
  } finally {
    await plugin.stop();
    await headless.stop();
  }
});
