// Notes as resources, prompts and completions, over real engines and through the SDK client.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { complete, MAX_COMPLETIONS } from "../../src/mcp/completions";
import { getPrompt, listPrompts } from "../../src/mcp/prompts";
import { listResources, NOTE_URI_TEMPLATE, noteUri, parseResourceUri } from "../../src/mcp/resources";
import { READER_TOKEN, SIDE_INSTRUCTIONS, SIDE_ONLY_TOKEN, startMcpServer, startVaults, WRITER_TOKEN, type McpTestServer, type TestVaults } from "./harness";

let vaults: TestVaults;
let server: McpTestServer;

before(async () => {
  vaults = await startVaults();
  server = await startMcpServer(vaults.registry);
});
after(async () => {
  await server.close();
  await vaults.stop();
});

const writer = { name: "writer", readOnly: false, vaults: [] };

test("note URIs percent-encode each path segment and parse back", () => {
  const uri = noteUri("edge", "projects/alpha/Team notes.md");
  assert.equal(uri, "secondbrain://edge/projects/alpha/Team%20notes.md");
  assert.deepEqual(parseResourceUri(uri), { vault: "edge", path: "projects/alpha/Team notes.md" });
  assert.deepEqual(parseResourceUri("secondbrain://edge/日本語/ノート.md"), { vault: "edge", path: "日本語/ノート.md" });
  assert.deepEqual(parseResourceUri("secondbrain://edge/100%.md"), { vault: "edge", path: "100%.md" });
  for (const bad of ["file:///etc/passwd", "secondbrain://edge", "secondbrain:///x.md", "secondbrain://edge/"]) {
    assert.equal(parseResourceUri(bad), null, bad);
  }
});

test("resources/list offers each visible vault's INSTRUCTIONS and notes", async () => {
  const { resources } = await (await server.connect(WRITER_TOKEN)).listResources();
  const uris = resources.map((resource) => resource.uri);
  assert.ok(uris.includes("secondbrain://edge/INSTRUCTIONS"));
  assert.ok(uris.includes("secondbrain://side/INSTRUCTIONS"));
  assert.ok(!uris.includes("secondbrain://edge/INSTRUCTIONS.md"), "listed once, as INSTRUCTIONS");
  const team = resources.find((resource) => resource.name === "projects/alpha/Team notes.md");
  assert.equal(team?.uri, "secondbrain://edge/projects/alpha/Team%20notes.md");
  assert.equal(team?.mimeType, "text/markdown");
  assert.ok(resources.every((resource) => resource.uri.startsWith("secondbrain://")));
  assert.ok(!uris.some((uri) => uri.endsWith(".canvas") || uri.endsWith(".png")), "attachments are not note resources");
  assert.equal(resources.find((resource) => resource.name === "ideas/first idea.md")?.title, "First idea");
  const scoped = await (await server.connect(SIDE_ONLY_TOKEN)).listResources();
  assert.ok(scoped.resources.every((resource) => resource.uri.startsWith("secondbrain://side/")));
});

test("resources/list is capped with a note pointing to note_list", async () => {
  const edge = vaults.registry.lookup("edge")!;
  const many = Array.from({ length: 1200 }, (_, index) => ({ path: `n/${index}.md`, isNote: true, size: 1, mtime: 0, ctime: 0 }));
  const big = Object.assign(Object.create(edge) as typeof edge, { files: () => many, instructions: async () => null });
  const listed = await listResources({ defaultName: () => "edge", visible: () => [big], get: () => big });
  assert.equal(listed.resources.length, 1000);
  assert.deepEqual((listed._meta?.truncated as { total: number }).total, 1200);
  assert.match(String((listed._meta?.truncated as { hint: string }).hint), /note_list/);
});

test("resources/read returns the note as markdown with its content_hash", async () => {
  const client = await server.connect(WRITER_TOKEN);
  const uri = noteUri("edge", "projects/alpha/Team notes.md");
  const { contents } = await client.readResource({ uri });
  const [content] = contents;
  assert.equal(content?.uri, uri);
  assert.equal(content?.mimeType, "text/markdown");
  assert.match(String((content as { text?: string }).text), /\S/);
  const hash = (content?._meta as { content_hash?: string }).content_hash;
  const file = await vaults.registry.lookup("edge")!.read("projects/alpha/Team notes.md");
  assert.equal(hash, file.content_hash);
  const instructions = await client.readResource({ uri: "secondbrain://side/INSTRUCTIONS" });
  assert.match(String((instructions.contents[0] as { text?: string }).text), new RegExp(SIDE_INSTRUCTIONS));
});

test("a missing note, a foreign scheme, an unknown and a forbidden vault are JSON-RPC errors", async () => {
  const client = await server.connect(SIDE_ONLY_TOKEN);
  // Resource-not-found goes on the wire as -32602 in every era (2026-07-28 requires it; the SDK maps -32002).
  await assert.rejects(client.readResource({ uri: "secondbrain://side/ideas/nope.md" }), (error: Error & { data?: unknown }) => {
    assert.match(error.message, /-32602.*does not exist/);
    assert.deepEqual(error.data, { code: "not_found", uri: "secondbrain://side/ideas/nope.md" });
    return true;
  });
  await assert.rejects(client.readResource({ uri: "file:///etc/passwd" }), /-32602.*Unknown resource/);
  const message = (uri: string): Promise<string> =>
    client.readResource({ uri }).then(
      () => "",
      (error: Error) => error.message,
    );
  const unknown = await message("secondbrain://nope/x.md");
  const forbidden = await message("secondbrain://edge/wiki/index.md");
  assert.match(forbidden, /-32602/);
  assert.equal(forbidden.replace('"edge"', '"nope"'), unknown, "the same text for unknown and forbidden");
});

test("the note template is listed and completes vault names and note paths", async () => {
  const client = await server.connect(WRITER_TOKEN);
  const { resourceTemplates } = await client.listResourceTemplates();
  assert.deepEqual(resourceTemplates.map((template) => template.uriTemplate), [NOTE_URI_TEMPLATE]);
  const ref = { type: "ref/resource" as const, uri: NOTE_URI_TEMPLATE };
  const paths = await client.complete({ ref, argument: { name: "path", value: "PROJECTS/al" } });
  assert.deepEqual(paths.completion.values, ["projects/alpha/Team notes.md", "projects/alpha/plan.md"]);
  const sidePaths = await client.complete({ ref, argument: { name: "path", value: "ideas/" }, context: { arguments: { vault: "side" } } });
  assert.deepEqual(sidePaths.completion.values, ["ideas/first idea.md", "ideas/second.md"]);
  const names = await client.complete({ ref, argument: { name: "vault", value: "s" } });
  assert.deepEqual(names.completion, { values: ["side"], total: 1, hasMore: false });
  const other = await client.complete({ ref: { type: "ref/prompt", name: "unknown" }, argument: { name: "x", value: "" } });
  assert.deepEqual(other.completion.values, []);
});

test("completion never reveals a vault the user may not use and caps at 100 values", () => {
  const scoped = vaults.registry.forUser({ vaults: ["side"] });
  const ref = { type: "ref/resource" as const, uri: NOTE_URI_TEMPLATE };
  assert.deepEqual(complete(scoped, { ref, argument: { name: "vault", value: "" } }).completion.values, ["side"]);
  assert.deepEqual(complete(scoped, { ref, argument: { name: "path", value: "" }, context: { arguments: { vault: "edge" } } }).completion.values, []);
  const edge = vaults.registry.lookup("edge")!;
  const many = Array.from({ length: 150 }, (_, index) => ({ path: `n/${index}.md`, isNote: true, size: 1, mtime: 0, ctime: 0 }));
  const big = Object.assign(Object.create(edge) as typeof edge, { files: () => many });
  const result = complete({ defaultName: () => "edge", visible: () => [big], get: () => big }, { ref, argument: { name: "path", value: "n/" } });
  assert.equal(result.completion.values.length, MAX_COMPLETIONS);
  assert.equal(result.completion.total, 150);
  assert.equal(result.completion.hasMore, true);
});

test("the three prompts are listed with an optional vault argument", async () => {
  const { prompts } = await (await server.connect(WRITER_TOKEN)).listPrompts();
  assert.deepEqual(prompts.map((prompt) => prompt.name), ["review_vault", "process_inbox", "weekly_review"]);
  for (const prompt of prompts) {
    assert.ok(prompt.description);
    assert.deepEqual(prompt.arguments?.map((argument) => [argument.name, argument.required]), [["vault", false]]);
  }
  assert.deepEqual(listPrompts().prompts.length, 3);
});

test("prompts name the tools to call in order, for the vault given or the default", async () => {
  const client = await server.connect(WRITER_TOKEN);
  const review = await client.getPrompt({ name: "review_vault", arguments: { vault: "side" } });
  const text = (review.messages[0]?.content as { text: string }).text;
  assert.match(text, /1\. Call vault_stats with vault "side"/);
  assert.match(text, /2\. Call vault_review/);
  assert.ok(text.indexOf("vault_stats") < text.indexOf("note_backlinks"));
  const inbox = getPrompt("process_inbox", undefined, writer, vaults.registry.forUser(writer));
  assert.match((inbox.messages[0]?.content as { text: string }).text, /note_list with vault "edge" and prefix "inbox\/"/);
  const weekly = getPrompt("weekly_review", {}, writer, vaults.registry.forUser(writer));
  assert.match((weekly.messages[0]?.content as { text: string }).text, /journal_range[\s\S]*task_list/);
});

test("read-only users get prompts that change nothing; bad names and vaults are errors", async () => {
  const reader = await server.connect(READER_TOKEN);
  const review = await reader.getPrompt({ name: "review_vault" });
  const text = (review.messages[0]?.content as { text: string }).text;
  assert.match(text, /read-only access/);
  assert.ok(!text.includes("note_edit with the content_hash"));
  await assert.rejects(reader.getPrompt({ name: "nope" }), /-32602.*Unknown prompt "nope"\. Prompts: review_vault/);
  await assert.rejects(reader.getPrompt({ name: "review_vault", arguments: { vault: "nope" } }), /Vault "nope" is not available/);
});
