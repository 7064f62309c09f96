// Each note of edge-vault states what it tests; one test per note checks that claim through MCP.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { startTestServer, type TestServer } from "../support/server";
import { EDGE_VAULT } from "../support/vaults";

let server: TestServer;
before(async () => {
  server = await startTestServer({ fixture: EDGE_VAULT, name: "edge" });
});
after(async () => server.stop());

type Row = Record<string, unknown>;

async function outgoing(notePath: string): Promise<Array<{ target: string; resolved: string; kind: string }>> {
  const result = await server.call("note_backlinks", { path: notePath });
  return result.structured.outgoing as Array<{ target: string; resolved: string; kind: string }>;
}

async function searchPaths(query: string): Promise<string[]> {
  const result = await server.call("note_search", { query, limit: 20 });
  assert.equal(result.isError, false, result.text);
  return (result.structured.hits as Array<{ path: string }>).map((hit) => hit.path);
}

async function outline(notePath: string): Promise<Row> {
  const result = await server.call("note_outline", { path: notePath });
  assert.equal(result.isError, false, result.text);
  return result.structured;
}

test("README.md: starts at [[wiki/index]], title and tags from frontmatter", async () => {
  const links = await outgoing("README.md");
  assert.deepEqual(links.map((link) => [link.target, link.resolved]), [["wiki/index", "wiki/index.md"]]);
  const shape = await outline("README.md");
  assert.equal(shape.title, "Edge vault");
  assert.deepEqual(shape.tags, ["fixture"]);
});

test("INSTRUCTIONS.md: the vault's conventions reach the agent at initialize", async () => {
  const client = await server.connect();
  const instructions = client.getInstructions() ?? "";
  assert.match(instructions, /New notes go to inbox\/ unless they belong to a project/);
  assert.match(instructions, /note_outline/);
});

test("archive/orphan.md: nothing links here and it links nowhere", async () => {
  const result = await server.call("note_backlinks", { path: "archive/orphan.md" });
  assert.deepEqual(result.structured.incoming, []);
  assert.deepEqual(result.structured.outgoing, []);
  const stats = (await server.call("vault_stats")).structured.stats as Row;
  assert.ok((stats.orphans as number) >= 1);
});

test("inbox/2026-01-06-0930-idea.md: an unprocessed capture tagged inbox", async () => {
  const shape = await outline("inbox/2026-01-06-0930-idea.md");
  assert.deepEqual(shape.tags, ["inbox"]);
  assert.equal((shape.frontmatter as Row).captured, "2026-01-06T09:30:00Z");
  const tagged = await server.call("note_search", { tags: ["inbox"] });
  assert.deepEqual((tagged.structured.hits as Row[]).map((hit) => hit.path), ["inbox/2026-01-06-0930-idea.md"]);
});

test("journal/2026/2026-01-05.md: a log linking to the alpha plan by path", async () => {
  const links = await outgoing("journal/2026/2026-01-05.md");
  assert.deepEqual(links.map((link) => link.resolved), ["projects/alpha/plan.md"]);
  const shape = await outline("journal/2026/2026-01-05.md");
  assert.deepEqual((shape.headings as Row[]).map((heading) => heading.heading), ["Monday, 5 January 2026", "Log"]);
});

test("projects/alpha/Team notes.md: a name with a space and no frontmatter", async () => {
  const read = await server.call("note_read", { path: "projects/alpha/Team notes" });
  assert.equal(read.structured.path, "projects/alpha/Team notes.md");
  const shape = await outline("projects/alpha/Team notes.md");
  assert.equal(shape.frontmatter, null);
  assert.equal(shape.title, "Team notes");
  const client = await server.connect();
  const resource = await client.readResource({ uri: "secondbrain://edge/projects/alpha/Team%20notes.md" });
  assert.match(String((resource.contents[0] as { text?: string }).text), /No frontmatter at all/);
});

test("projects/alpha/plan.md: a bare [[plan]] from its own folder resolves to itself; depends_on is a frontmatter link", async () => {
  const links = await outgoing("projects/alpha/plan.md");
  const bare = links.find((link) => link.target === "plan");
  assert.equal(bare?.resolved, "projects/alpha/plan.md");
  const dependency = links.find((link) => link.kind === "frontmatter");
  assert.deepEqual(dependency && [dependency.target, dependency.resolved], ["projects/beta/plan", "projects/beta/plan.md"]);
});

test("projects/beta/plan.md: the other plan, reached from elsewhere by the shorter path", async () => {
  const links = await outgoing("wiki/index.md");
  assert.equal(links.find((link) => link.target === "plan")?.resolved, "projects/beta/plan.md");
  const incoming = await server.call("note_backlinks", { path: "projects/beta/plan.md" });
  const sources = (incoming.structured.incoming as Row[]).map((entry) => entry.path);
  assert.deepEqual(sources, ["projects/alpha/plan.md", "wiki/index.md"]);
});

test("templates/meeting.md: a template with placeholders stays readable", async () => {
  const read = await server.call("note_read", { path: "templates/meeting.md" });
  assert.match(String(read.structured.content), /\{\{title\}\}/);
  const shape = await outline("templates/meeting.md");
  assert.deepEqual((shape.headings as Row[]).map((heading) => heading.heading), ["{{title}}", "Attendees", "Notes"]);
});

test("wiki/big-sections.md: a section runs to the next heading of the same or higher level", async () => {
  const b = await server.call("note_read", { path: "wiki/big-sections.md", heading: "B" });
  assert.equal(b.structured.content, "## B\n\nb1\n\n### B.1\n\nb11\n\n");
  const sub = await server.call("note_read", { path: "wiki/big-sections.md", heading: "B.1" });
  assert.equal(sub.structured.content, "### B.1\n\nb11\n\n");
  const c = await server.call("note_read", { path: "wiki/big-sections.md", heading: "c" });
  assert.equal(c.structured.content, "## C\n\nc1\n");
});

test("wiki/bom-crlf.md: BOM and CRLF survive reading; the hash covers the exact bytes; a scalar tag counts", async () => {
  const bytes = readFileSync(path.join(server.vault.dir, "wiki", "bom-crlf.md"));
  const read = await server.call("note_read", { path: "wiki/bom-crlf.md" });
  assert.equal(read.structured.content_hash, createHash("sha256").update(bytes).digest("hex").slice(0, 32));
  assert.equal(read.structured.content, bytes.toString("utf8"));
  assert.ok(String(read.structured.content).includes("\r\n"));
  const shape = await outline("wiki/bom-crlf.md");
  assert.equal(shape.title, "BOM and CRLF");
  assert.deepEqual(shape.tags, ["crlf"]);
  assert.equal((await searchPaths("byte order mark"))[0], "wiki/bom-crlf.md");
});

test("wiki/dots-end.md: `...` does not end frontmatter, so there is none", async () => {
  const shape = await outline("wiki/dots-end.md");
  assert.equal(shape.frontmatter, null);
  assert.equal(shape.title, "dots-end");
});

test("wiki/hr-not-frontmatter.md: a later line of dashes is a rule, not frontmatter", async () => {
  const shape = await outline("wiki/hr-not-frontmatter.md");
  assert.equal(shape.frontmatter, null);
  assert.deepEqual((shape.headings as Row[]).map((heading) => heading.heading), ["Horizontal rule"]);
});

test("wiki/index.md: every link spelling resolves as the note says", async () => {
  const links = await outgoing("wiki/index.md");
  const resolvedOf = (target: string): string | undefined => links.find((link) => link.target === target)?.resolved;
  assert.equal(resolvedOf("rate-limiting"), "wiki/rate-limiting.md");
  assert.equal(resolvedOf("rate-limiting.md"), "wiki/rate-limiting.md");
  assert.equal(resolvedOf("wiki/rate-limiting"), "wiki/rate-limiting.md");
  assert.equal(resolvedOf("alpha/plan"), "projects/alpha/plan.md");
  assert.equal(resolvedOf("/wiki/rate-limiting"), "wiki/rate-limiting.md");
  assert.equal(resolvedOf("rate-limiting#Token bucket"), "wiki/rate-limiting.md");
  assert.equal(resolvedOf("rate-limiting#^bucket-def"), "wiki/rate-limiting.md");
  assert.equal(resolvedOf("diagram.png"), "Attachments/diagram.png");
  assert.equal(resolvedOf("../projects/alpha/Team notes.md"), "projects/alpha/Team notes.md");
  assert.equal(resolvedOf("../projects/alpha/plan"), "projects/alpha/plan.md");
  assert.equal(resolvedOf("plan"), "projects/beta/plan.md");
  assert.equal(resolvedOf("does-not-exist"), "");
  assert.equal(resolvedOf("#Links of every spelling"), "wiki/index.md");
  assert.equal(resolvedOf("Überlegungen"), "Deutsch Notizen/Überlegungen.md");
  assert.equal(resolvedOf("日本語/ノート"), "日本語/ノート.md");
  assert.ok(!links.some((link) => link.target.startsWith("https://")), "external URLs are not vault links");
  const embeds = links.filter((link) => link.kind === "embed").map((link) => link.target);
  assert.deepEqual(embeds, ["diagram.png", "rate-limiting#Token bucket"]);
  const shape = await outline("wiki/index.md");
  assert.deepEqual(shape.tags, ["hub", "project/alpha", "topic/knowledge"]);
  assert.deepEqual(shape.aliases, ["Start", "Home page"]);
});

test("wiki/rate-limiting.md: tasks of every bullet; nothing inside code counts", async () => {
  const tasks = await server.call("task_list", { path: "wiki/rate-limiting.md", status: "all" });
  const list = tasks.structured.tasks as Array<{ line: number; text: string; done: boolean }>;
  assert.deepEqual(list.map((task) => [task.line, task.done]), [[23, false], [24, true], [25, false], [26, false], [27, true]]);
  assert.ok(!list.some((task) => task.text.includes("inside code")));
  const shape = await outline("wiki/rate-limiting.md");
  assert.ok(!(shape.headings as Row[]).some((heading) => String(heading.heading).includes("not a heading")));
  assert.ok(!(shape.headings as Row[]).some((heading) => String(heading.heading).includes("shell comment")));
  assert.deepEqual(shape.tags, ["networking"]);
  assert.deepEqual(await outgoing("wiki/rate-limiting.md"), []);
  const grep = await server.call("vault_grep", { pattern: "\\^bucket-def" });
  assert.deepEqual((grep.structured.matches as Row[]).map((match) => match.path).sort(), ["wiki/index.md", "wiki/rate-limiting.md"]);
});

test("wiki/secrets.md: documentation placeholders are ordinary text to read and find", async () => {
  assert.ok((await searchPaths("placeholders")).includes("wiki/secrets.md"));
  const read = await server.call("note_read", { path: "wiki/secrets.md" });
  assert.match(String(read.structured.content), /Bearer <token>/);
});

test("wiki/unterminated.md: an unclosed block means no frontmatter (and no tags from it)", async () => {
  const shape = await outline("wiki/unterminated.md");
  assert.equal(shape.frontmatter, null);
  assert.deepEqual(shape.tags, []);
  assert.equal(shape.title, "unterminated");
});

test("日本語/ノート.md: CJK text is found without spaces between words", async () => {
  assert.deepEqual(await searchPaths("東京"), ["日本語/ノート.md"]);
  assert.ok((await searchPaths("雨")).includes("日本語/ノート.md"));
  const shape = await outline("日本語/ノート.md");
  assert.equal(shape.title, "日本語のノート");
  assert.deepEqual(shape.tags, ["日本語"]);
});

test("Deutsch Notizen/Überlegungen.md: diacritics fold, so uberlegungen and grosse find it", async () => {
  assert.ok((await searchPaths("uberlegungen")).includes("Deutsch Notizen/Überlegungen.md"));
  assert.ok((await searchPaths("grosse")).includes("Deutsch Notizen/Überlegungen.md"));
  assert.ok((await searchPaths("strasse")).includes("Deutsch Notizen/Überlegungen.md"));
});

test("board.canvas: searchable by its text nodes, readable as JSON", async () => {
  assert.ok((await searchPaths("canvas card")).includes("board.canvas"));
  const read = await server.call("note_read", { path: "board.canvas" });
  const canvas = JSON.parse(String(read.structured.content)) as { nodes: Row[] };
  assert.equal(canvas.nodes[0]!.text, "Canvas card about rate limiting");
});

test(".trash and .obsidian: hidden folders are unreachable by every tool", async () => {
  for (const hidden of [".trash/old.md", ".obsidian/app.json", "wiki/../.trash/old.md"]) {
    const read = await server.call("note_read", { path: hidden });
    assert.equal((read.structured.error as Row).code, "invalid_path", hidden);
  }
  const grep = await server.call("vault_grep", { pattern: "^hidden$" });
  assert.equal(grep.structured.total, 0);
  const list = await server.call("note_list", { limit: 1000 });
  assert.ok(!(list.structured.entries as Row[]).some((entry) => String(entry.path).includes(".trash")));
  const backlinks = await server.call("note_backlinks", { path: ".trash/old.md" });
  assert.equal((backlinks.structured.error as Row).code, "invalid_path");
});
