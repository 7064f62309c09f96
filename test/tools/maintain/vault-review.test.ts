// vault_review through the real headless server: each check finds the cases written into a temp copy
// of edge-vault with the write tools, counts agree with vault_stats, a fix applied makes its finding go
// away, and a freshly laid out vault has nothing to review.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, utimesSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { DEFAULT_MAX_RESPONSE_BYTES, utf8Bytes } from "../../../src/mcp/truncate";
import { startTestServer, type TestServer, type ToolCallResult } from "../../support/server";
import { EDGE_VAULT, HELP_VAULT, tempVault } from "../../support/vaults";

interface Item {
  check: string;
  path: string;
  reason: string;
  fix: string;
  [detail: string]: unknown;
}

interface Review {
  total: number;
  returned: number;
  items: Item[];
  counts: Record<string, number>;
  excluded: Record<string, string[]>;
  truncated?: boolean;
}

const DAY_MS = 24 * 60 * 60 * 1000;

function ok(result: ToolCallResult): Record<string, unknown> {
  assert.equal(result.isError, false, result.text);
  return result.structured;
}

async function review(server: TestServer, args: Record<string, unknown> = {}): Promise<Review> {
  return ok(await server.call("vault_review", { limit: 1000, ...args })) as unknown as Review;
}

function of(result: Review, check: string): Item[] {
  return result.items.filter((item) => item.check === check);
}

function paths(items: readonly Item[]): string[] {
  return items.map((item) => item.path).sort();
}

/** `note_edit {"path": …}` → the tool and its arguments, so a test can make the suggested call. */
function parseFix(fix: string): { tool: string; args: Record<string, unknown> } {
  const match = /^([a-z_]+) (\{.*\})(?:,|$)/.exec(fix);
  assert.ok(match, `a fix starts with a tool call: ${fix}`);
  return { tool: match[1]!, args: JSON.parse(match[2]!) as Record<string, unknown> };
}

/** vault_stats' orphan rule, from the outside: no link to another file and none from another note. */
async function isOrphanByBacklinks(server: TestServer, note: string): Promise<boolean> {
  const links = ok(await server.call("note_backlinks", { path: note }));
  const incoming = (links.incoming as Array<{ path: string }>).filter((entry) => entry.path !== note);
  const outgoing = (links.outgoing as Array<{ resolved: string }>).filter((entry) => entry.resolved !== "" && entry.resolved !== note);
  return incoming.length === 0 && outgoing.length === 0;
}

async function emptyVaultServer(): Promise<{ server: TestServer; cleanup: () => void }> {
  const source = mkdtempSync(path.join(os.tmpdir(), "sbmcp-empty-"));
  const server = await startTestServer({ fixture: source });
  return { server, cleanup: () => rmSync(source, { recursive: true, force: true }) };
}

test("edge-vault: every check finds the cases written into it, and counts agree with vault_stats", async () => {
  const server = await startTestServer({ fixture: EDGE_VAULT });
  try {
    ok(await server.call("note_create", { path: "Untitled.md", content: "# Untitled\n" }));
    ok(await server.call("note_create", { path: "wiki/Unbenannt 2.md", content: "# Token bucket notes\n\nRefill rate and burst.\n" }));
    ok(await server.call("note_create", { path: "wiki/empty-page.md", content: "---\ntitle: Empty page\n---\n# Empty page\n\n## Later\n" }));
    ok(await server.call("note_create", { path: "wiki/typo.md", content: "# Typo\n\nSee [[rate-limting]] for the limits.\n" }));
    const captured = ok(await server.call("capture", { text: "Call the bank about the card" }));
    const now = Date.now();

    const result = await review(server);
    const stats = ok(await server.call("vault_stats", {})).stats as Record<string, number>;
    const { tools } = await (await server.connect()).listTools();
    const toolNames = new Set(tools.map((tool) => tool.name));
    for (const item of result.items) {
      assert.ok(item.reason.length > 20, `${item.check} ${item.path} explains itself`);
      assert.ok(toolNames.has(parseFix(item.fix).tool), `the fix of ${item.check} ${item.path} names a real tool: ${item.fix}`);
    }
    assert.equal(result.total, Object.values(result.counts).reduce((sum, count) => sum + count, 0));
    assert.equal(result.returned, result.items.length);
    assert.equal(result.truncated, undefined);

    const broken = of(result, "broken_links");
    assert.equal(result.counts.broken_links, stats.broken_links);
    const missing = broken.find((item) => item.path === "wiki/index.md");
    assert.deepEqual({ line: missing?.line, link: missing?.link, target: missing?.target }, { line: 29, link: "[[does-not-exist]]", target: "does-not-exist" });
    assert.equal(missing?.candidates, undefined, "nothing is named like does-not-exist");
    assert.match(missing!.fix, /^note_create \{"path":"does-not-exist\.md"/);
    const typo = broken.find((item) => item.path === "wiki/typo.md");
    assert.ok(typo, "the misspelt link is found");
    const typoLines = readFileSync(path.join(server.vault.dir, "wiki/typo.md"), "utf8").split("\n");
    assert.equal(typo.line, typoLines.findIndex((line) => line.includes("[[rate-limting]]")) + 1, "file line, frontmatter included");
    assert.deepEqual(typo.candidates, ["wiki/rate-limiting.md"]);
    assert.deepEqual(parseFix(typo.fix), { tool: "note_edit", args: { path: "wiki/typo.md", old_string: "[[rate-limting]]", new_string: "[[rate-limiting]]" } });

    const orphans = of(result, "orphans");
    assert.ok(paths(orphans).includes("archive/orphan.md"));
    assert.ok(paths(orphans).includes("wiki/empty-page.md"));
    for (const excluded of ["inbox/", "journal/2026/", "templates/", "INSTRUCTIONS.md"]) {
      assert.ok(result.excluded.orphans!.includes(excluded), `${excluded} is named as excluded`);
      assert.ok(!orphans.some((item) => item.path.startsWith(excluded)), `${excluded} is not judged as orphan`);
    }
    const notes = (ok(await server.call("note_list", { limit: 1000 })).entries as Array<{ path: string }>).map((entry) => entry.path).filter((entry) => entry.endsWith(".md"));
    const standAlone = notes.filter((note) => result.excluded.orphans!.some((excluded) => note.startsWith(excluded)));
    let standAloneOrphans = 0;
    for (const note of standAlone) if (await isOrphanByBacklinks(server, note)) standAloneOrphans += 1;
    assert.ok(standAloneOrphans > 0, "the exclusions matter here (inbox, templates, INSTRUCTIONS.md)");
    assert.equal(result.counts.orphans! + standAloneOrphans, stats.orphans, "vault_stats counts the same orphans, exclusions included");
    for (const orphan of orphans) assert.equal(await isOrphanByBacklinks(server, orphan.path), true, `${orphan.path} has no links either way`);

    const untitled = of(result, "untitled");
    assert.deepEqual(paths(untitled), ["Untitled.md", "wiki/Unbenannt 2.md"]);
    const placeholder = untitled.find((item) => item.path === "Untitled.md")!;
    assert.equal(placeholder.empty, true);
    assert.deepEqual(parseFix(placeholder.fix), { tool: "note_delete", args: { path: "Untitled.md" } });
    const named = untitled.find((item) => item.path === "wiki/Unbenannt 2.md")!;
    assert.equal(named.suggested_name, "Token bucket notes");
    assert.deepEqual(parseFix(named.fix), { tool: "note_move", args: { path: "wiki/Unbenannt 2.md", to: "wiki/Token bucket notes.md" } });

    assert.deepEqual(paths(of(result, "empty")), ["Untitled.md", "wiki/empty-page.md"], "templates/meeting.md is a template, not an empty note");

    const inbox = of(result, "inbox");
    assert.deepEqual(inbox.map((item) => item.path), ["inbox/2026-01-06-0930-idea.md", captured.path], "oldest first");
    const expectedAge = Math.floor((now - Date.parse("2026-01-06T09:30:00Z")) / DAY_MS);
    assert.ok(Math.abs((inbox[0]!.age_days as number) - expectedAge) <= 1, `age from the captured property: ${String(inbox[0]!.age_days)} vs ${expectedAge}`);
    assert.equal(inbox[1]!.age_days, 0);

    // The suggested fix is a call that works, and its finding is gone afterwards.
    const { tool, args } = parseFix(typo.fix);
    ok(await server.call(tool, args));
    const after = await review(server, { checks: "broken_links" });
    assert.equal(after.counts.broken_links, result.counts.broken_links! - 1);
    assert.ok(!after.items.some((item) => item.path === "wiki/typo.md"));
  } finally {
    await server.stop();
  }
});

test("stale: old notes still linked from recently changed ones or marked open, nothing else", async () => {
  const vault = tempVault(EDGE_VAULT);
  const old = (Date.now() - 400 * DAY_MS) / 1000;
  for (const note of ["wiki/rate-limiting.md", "projects/alpha/plan.md", "archive/orphan.md", "inbox/2026-01-06-0930-idea.md"]) {
    utimesSync(path.join(vault.dir, note), old, old);
  }
  const server = await startTestServer({ fixture: EDGE_VAULT, vault });
  try {
    const stale = of(await review(server, { checks: "stale" }), "stale");
    assert.deepEqual(paths(stale), ["projects/alpha/plan.md", "wiki/rate-limiting.md"], "the unlinked orphan and the inbox note are not stale");
    const limits = stale.find((item) => item.path === "wiki/rate-limiting.md")!;
    assert.ok((limits.linked_from as string[]).includes("wiki/index.md"));
    assert.equal(limits.status, undefined);
    assert.ok((limits.days_since_modified as number) >= 399);
    assert.match(limits.reason, /400 days.*wiki\/index\.md/);
    const plan = stale.find((item) => item.path === "projects/alpha/plan.md")!;
    assert.equal(plan.status, "active");
    assert.equal(parseFix(plan.fix).tool, "note_frontmatter");

    const lenient = await review(server, { checks: "stale", stale_days: 500 });
    assert.equal(lenient.counts.stale, 0);
  } finally {
    await server.stop();
    vault.cleanup();
  }
});

test("help vault: counts agree with vault_stats, and every broken link is on the line it names", async () => {
  // All 259 broken links in one result need more than the default response limit.
  const server = await startTestServer({ fixture: HELP_VAULT, extra: { maxResponseBytes: 1024 * 1024 } });
  try {
    const defaults = await server.call("vault_review", {});
    assert.ok(utf8Bytes(defaults.text) <= DEFAULT_MAX_RESPONSE_BYTES, `the default review fits the default response limit: ${utf8Bytes(defaults.text)} bytes`);
    assert.ok(defaults.text.indexOf('"truncated"') < defaults.text.indexOf('"items"'), "that more exists comes before the items");
    const result = ok(defaults) as unknown as Review;
    const stats = ok(await server.call("vault_stats", {})).stats as Record<string, number>;
    assert.equal(result.counts.broken_links, stats.broken_links);
    assert.equal(result.counts.orphans, stats.orphans, "no excluded folders exist here, so the definitions match");
    assert.deepEqual({ stale: result.counts.stale, untitled: result.counts.untitled, inbox: result.counts.inbox }, { stale: 0, untitled: 0, inbox: 0 });
    assert.equal(of(result, "broken_links").length, 10, "the default limit is 10 per check");
    assert.equal(result.truncated, true);
    const full = await review(server, { checks: "broken_links" });
    assert.equal(full.items.length, stats.broken_links);
    for (const item of full.items) {
      if (item.line === null) continue;
      const lines = readFileSync(path.join(server.vault.dir, item.path), "utf8").split(/\r?\n/);
      assert.ok(lines[(item.line as number) - 1]!.includes(item.link as string), `${item.path}:${item.line as number} holds ${item.link as string}`);
    }
  } finally {
    await server.stop();
  }
});

test("limit, prefix and checks narrow the review; an unknown check is refused with the valid ones", async () => {
  const server = await startTestServer({ fixture: EDGE_VAULT });
  try {
    const full = await review(server);
    const limited = await review(server, { limit: 1 });
    assert.deepEqual(limited.counts, full.counts, "counts are totals, before the limit");
    assert.equal(limited.truncated, true);
    for (const check of Object.keys(full.counts)) assert.ok(of(limited, check).length <= 1);

    const wiki = await review(server, { prefix: "wiki" });
    assert.ok(wiki.items.length > 0);
    assert.ok(wiki.items.every((item) => item.path.startsWith("wiki/")));

    const some = await review(server, { checks: "inbox, orphans" });
    assert.deepEqual(Object.keys(some.counts).sort(), ["inbox", "orphans"]);
    assert.ok(some.items.every((item) => item.check === "inbox" || item.check === "orphans"));

    const refused = await server.call("vault_review", { checks: ["orphans", "dangling"] });
    assert.equal(refused.isError, true);
    assert.match(refused.text, /dangling.*broken_links, orphans, stale, untitled, empty, inbox/);
  } finally {
    await server.stop();
  }
});

test("a vault freshly laid out by vault_create has nothing to review", async () => {
  const { server, cleanup } = await emptyVaultServer();
  try {
    ok(await server.call("vault_create", { layout: "para" }));
    ok(await server.call("vault_create", { layout: "zettelkasten", prefix: "zk" }));
    ok(await server.call("vault_create", { layout: "wiki-raw", prefix: "research" }));
    ok(await server.call("vault_create", { layout: "plain", prefix: "flat" }));
    const result = await review(server);
    assert.deepEqual(result.items, [], JSON.stringify(result.items.slice(0, 3)));
    assert.equal(result.total, 0);
  } finally {
    await server.stop();
    cleanup();
  }
});
