// The text's role (a question or a note's passage) reaches the provider: an endpoint sends texts as
// given unless prefixes are configured, and a vault embeds its notes as passages and asks as a query.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { OpenAICompatibleProvider } from "../../../../src/core/search/semantic/provider";
import { nodeHttpPost } from "../../../../src/hosts/node/http-post";
import { NodeVaultHost } from "../../../../src/hosts/node/host";
import { JsonLineLogger } from "../../../../src/hosts/node/services";
import { startEmbeddingServer } from "../../../support/embedder";
import { within } from "../../../support/poll";

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

test("an endpoint gets texts as given for either role unless prefixes are configured", async (t) => {
  const server = await startEmbeddingServer();
  t.after(() => server.close());
  const plain = new OpenAICompatibleProvider({ url: server.url, model: "m", post: nodeHttpPost, sleep, requestsPerMinute: 60_000 });
  await plain.embed(["a question"], "query");
  await plain.embed(["a passage"], "passage");
  const marked = new OpenAICompatibleProvider({ url: server.url, model: "m", post: nodeHttpPost, sleep, requestsPerMinute: 60_000, queryPrefix: "query: ", passagePrefix: "passage: " });
  await marked.embed(["a question", "another"], "query");
  await marked.embed(["a passage"], "passage");
  assert.deepEqual(server.inputs, [["a question"], ["a passage"], ["query: a question", "query: another"], ["passage: a passage"]]);
});

test("a vault embeds its notes as passages and asks a semantic search as a query", async (t) => {
  const server = await startEmbeddingServer();
  t.after(() => server.close());
  const root = mkdtempSync(path.join(os.tmpdir(), "sb-roles-"));
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "sb-roles-data-"));
  t.after(() => {
    rmSync(root, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  });
  writeFileSync(path.join(root, "bread.md"), "# Bread\n\nKnead the dough and bake it.\n");
  const host = new NodeVaultHost({
    name: "roles",
    root,
    dataDir,
    logger: new JsonLineLogger({ write: () => undefined }),
    watch: false,
    history: false,
    ingestWorkers: 0,
    embeddings: { url: server.url, model: "e5-like", requestsPerMinute: 60_000, queryPrefix: "query: ", passagePrefix: "passage: " },
  });
  t.after(() => host.stop());
  await host.start();
  await within(20_000, "the vault is embedded", () => host.engine.semanticStatus().state === "ready");
  const sent = server.inputs.flat();
  assert.ok(sent.length > 0 && sent.every((text) => text.startsWith("passage: ")), `every note text is a passage: ${JSON.stringify(sent)}`);
  const outcome = await host.engine.search("baking dough", { limit: 3, offset: 0, mode: "semantic" });
  assert.equal(outcome.hits[0]?.path, "bread.md");
  assert.deepEqual(server.inputs.at(-1), ["query: baking dough"]);
});
