// Semantic and hybrid search end to end: a real /v1/embeddings server (the deterministic trigram
// embedder), the headless server, and the official SDK client.
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../support/server";
import type { TempVault } from "../support/vaults";
import { semanticVault as makeVault, startEmbeddingServer, type EmbeddingServer } from "../support/embedder";
import { within } from "../support/poll";
import type { SemanticStatus as Semantic } from "../../src/core/search/semantic/semantic-index";

async function semanticOf(server: TestServer): Promise<Semantic> {
  const listed = await server.call("vault_list");
  return (listed.structured.vaults as Array<{ semantic: Semantic }>)[0]!.semantic;
}

async function untilReady(server: TestServer): Promise<Semantic> {
  let status: Semantic | undefined;
  await within(20_000, "the vault is embedded", async () => {
    status = await semanticOf(server);
    return status.state === "ready" && status.done === status.total;
  });
  return status!;
}

function start(vault: TempVault, embeddings: EmbeddingServer | string, model = "test-model", extra: Record<string, unknown> = {}): Promise<TestServer> {
  const url = typeof embeddings === "string" ? embeddings : embeddings.url;
  return startTestServer({ fixture: "", vault, extra: { history: false, embeddings: { url, model, batchSize: 8, requestsPerMinute: 60_000, ...extra } } });
}

/**
 * Servers a test starts, all closed by t.after even when an assertion ends the test early: an open
 * server keeps the runner's process alive, so one failure would otherwise hang the whole run.
 */
function resources(t: TestContext, embeddings: EmbeddingServer, vault: TempVault) {
  const running = new Set<TestServer>();
  let embeddingsOpen = true;
  t.after(async () => {
    for (const server of running) await server.stop().catch(() => undefined);
    if (embeddingsOpen) await embeddings.close();
    vault.cleanup();
  });
  return {
    async start(...args: Parameters<typeof start>): Promise<TestServer> {
      const server = await start(...args);
      running.add(server);
      return server;
    },
    async stop(server: TestServer): Promise<void> {
      running.delete(server);
      await server.stop();
    },
    async closeEmbeddings(): Promise<void> {
      embeddingsOpen = false;
      await embeddings.close();
    },
  };
}

test("a provider embeds the vault in the background; a restart reuses the vectors; an edit re-embeds only its chunk; a new model re-embeds everything", async (t) => {
  const embeddings = await startEmbeddingServer();
  const vault = makeVault();
  const open = resources(t, embeddings, vault);

  let server = await open.start(vault, embeddings);
  const first = await untilReady(server);
  assert.equal(first.total, 4);
  assert.equal(first.model, "test-model");
  const chunks = embeddings.texts;
  assert.ok(chunks >= 5, `the bread note is several chunks (${chunks} texts sent)`);

  const hybrid = await server.call("note_search", { query: "breadbaking", explain: true });
  assert.equal(hybrid.structured.mode, "hybrid", "hybrid is the default once the vault is embedded");
  type Explained = { path: string; score: number; explanation: { fusion: { similarity: { value: number; weight: number; gate: { lexical_hits: number; open: boolean } } }; matched_chunk: { heading: string } } };
  const hits = hybrid.structured.hits as Explained[];
  assert.equal(hits[0]!.path, "cooking/bread.md");
  assert.ok(hits[0]!.explanation.fusion.similarity.value > 0);
  // The words find nothing, so the similarity gate is open and the vectors order the notes (a
  // closed gate would tie them all at 0, in path order, which also puts cooking/ first).
  assert.deepEqual(hits[0]!.explanation.fusion.similarity.gate, { ...hits[0]!.explanation.fusion.similarity.gate, lexical_hits: 0, open: true });
  assert.ok(hits[0]!.explanation.fusion.similarity.weight > 0);
  assert.ok(hits.length > 1 && hits[0]!.score > hits[1]!.score, `the bread note leads on similarity: ${hits.map((hit) => hit.score).join(", ")}`);
  assert.equal(typeof hits[0]!.explanation.matched_chunk.heading, "string");
  const lexical = await server.call("note_search", { query: "breadbaking", mode: "lexical" });
  assert.equal(lexical.structured.total, 0, "the words alone find nothing");
  const semantic = await server.call("note_search", { query: "tomatoe plant watering", mode: "semantic", limit: 1 });
  assert.equal(semantic.structured.mode, "semantic");
  assert.equal((semantic.structured.hits as Array<{ path: string }>)[0]!.path, "garden/tomatoes.md");
  const related = await server.call("note_related", { path: "garden/tomatoes.md" });
  const neighbours = related.structured.related as Array<{ path: string; similarity?: number; score: number }>;
  assert.equal(neighbours.length, 3, "with no links, tags or shared folder, only meaning relates these notes");
  assert.ok(neighbours.every((entry) => entry.similarity !== undefined && entry.similarity > 0 && entry.path !== "garden/tomatoes.md"));
  await open.stop(server);

  const requestsBefore = embeddings.requests;
  server = await open.start(vault, embeddings);
  await untilReady(server);
  assert.equal(embeddings.requests, requestsBefore, "a restart sends nothing to the provider");

  const read = await server.call("note_read", { path: "cooking/bread.md" });
  const hash = read.structured.content_hash as string;
  const textsBefore = embeddings.texts;
  const edited = await server.call("note_edit", { path: "cooking/bread.md", old_string: "Baking note line 3 ", new_string: "Baking note line three ", content_hash: hash });
  assert.equal(edited.isError, false, edited.text);
  await within(20_000, "the edit is embedded", async () => embeddings.texts > textsBefore && (await semanticOf(server)).state === "ready");
  assert.equal(embeddings.texts - textsBefore, 1, "only the changed chunk is sent");
  assert.match(embeddings.inputs.at(-1)![0]!, /line three/);
  await open.stop(server);

  const textsBeforeModel = embeddings.texts;
  server = await open.start(vault, embeddings, "other-model");
  const switched = await untilReady(server);
  assert.equal(switched.model, "other-model");
  assert.equal(embeddings.texts - textsBeforeModel, chunks, "every chunk is embedded again with the new model");
  assert.equal(embeddings.models.at(-1), "other-model");
  await open.stop(server);
});

for (const failure of ["error500", "refused", "timeout"] as const) {
  test(`a failing endpoint (${failure}) leaves lexical search working and vault_list says why`, async (t) => {
    const embeddings = await startEmbeddingServer();
    const vault = makeVault();
    const open = resources(t, embeddings, vault);
    const url = embeddings.url;
    if (failure === "error500") embeddings.mode = "error500";
    if (failure === "timeout") embeddings.mode = "hang";
    if (failure === "refused") await open.closeEmbeddings();
    const server = await open.start(vault, url, "test-model", { timeoutMs: 300 });
    let status: Semantic | undefined;
    await within(20_000, "the failure is reported", async () => (status = await semanticOf(server)).error !== undefined);
    const expected = { error500: /HTTP 500/, refused: /could not be reached/, timeout: /did not answer within 300 ms/ }[failure];
    assert.match(status!.error!, expected);
    assert.notEqual(status!.state, "ready");
    const search = await server.call("note_search", { query: "tomato plants" });
    assert.equal(search.isError, false);
    assert.equal(search.structured.mode, "lexical");
    assert.equal((search.structured.hits as Array<{ path: string }>)[0]!.path, "garden/tomatoes.md");
    assert.match(search.structured.hint as string, expected);
    const asked = await server.call("note_search", { query: "tomato plants", mode: "hybrid" });
    assert.equal(asked.structured.mode, "lexical");
    assert.match(asked.structured.hint as string, /unavailable/);
  });
}
