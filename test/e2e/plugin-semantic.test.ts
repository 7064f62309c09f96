// The built plugin with semantic search turned on in its settings: it embeds through requestUrl
// against a real /v1/embeddings server, reports progress in vault_list and ranks hybrid.
import { test } from "node:test";
import assert from "node:assert/strict";
import { startPlugin } from "../support/plugin";
import { semanticVault, startEmbeddingServer } from "../support/embedder";
import { within } from "../support/poll";

test("the plugin embeds the vault through the endpoint in its settings and searches hybrid", async (t) => {
  const embeddings = await startEmbeddingServer();
  const vault = semanticVault();
  const harness = await startPlugin({
    fixture: "",
    vault,
    settings: { history: { enabled: false }, embeddings: { enabled: true, url: embeddings.url, model: "plugin-model", batchSize: 8, requestsPerMinute: 60_000 } },
  });
  t.after(async () => {
    await harness.stop();
    await embeddings.close();
    vault.cleanup();
  });
  let semantic: { state: string; done: number; total: number; model: string } | undefined;
  await within(20_000, "the plugin embeds the vault", async () => {
    const listed = await harness.call("vault_list");
    semantic = (listed.structured.vaults as Array<{ semantic: typeof semantic }>)[0]!.semantic;
    return semantic?.state === "ready";
  });
  assert.equal(semantic!.model, "plugin-model");
  assert.equal(semantic!.done, semantic!.total);
  assert.ok(embeddings.texts > 0);
  const search = await harness.call("note_search", { query: "breadbaking" });
  assert.equal(search.structured.mode, "hybrid");
  assert.equal((search.structured.hits as Array<{ path: string }>)[0]!.path, "cooking/bread.md");
});
