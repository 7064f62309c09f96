// The config file's embeddings section turns semantic search on in the built CLI: the key comes from
// the variable it names, goes to the endpoint as a bearer token, and is never printed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { CLI, startCli } from "./support/cli";
import { semanticVault, startEmbeddingServer } from "./support/embedder";
import { within } from "./support/poll";

const run = promisify(execFile);
const KEY = "sk-embedding-key-0123456789abcdef";
const TOKEN = "cli-embeddings-token-0123456789abcdef";

test("serve embeds through the config's endpoint with the key from its variable, which no output shows; a missing variable is refused", async (t) => {
  const embeddings = await startEmbeddingServer();
  const vault = semanticVault();
  t.after(async () => {
    await embeddings.close();
    vault.cleanup();
  });
  const config = path.join(vault.dataDir, "..", "embeddings.yaml");
  writeFileSync(config, `embeddings:\n  url: ${embeddings.url}\n  model: cli-model\n  api_key_env: EMBED_TEST_KEY\n`);
  const missing = await run(process.execPath, [CLI, "serve", "--vault", vault.dir, "--data", vault.dataDir, "--port", "0", "--config", config], { env: { ...process.env, SECONDBRAIN_TOKEN: TOKEN, EMBED_TEST_KEY: "" } }).then(
    () => ({ code: 0, stderr: "" }),
    (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
  );
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /embeddings\.api_key_env names EMBED_TEST_KEY, which is not set/);

  const server = await startCli(["serve", "--vault", vault.dir, "--data", vault.dataDir, "--port", "0", "--config", config, "--log-level", "debug"], { SECONDBRAIN_TOKEN: TOKEN, EMBED_TEST_KEY: KEY });
  try {
    await within(20_000, "the vault is embedded through the CLI's endpoint", () => embeddings.texts >= 5);
    assert.ok(embeddings.authorizations.every((header) => header === `Bearer ${KEY}`));
    assert.deepEqual([...new Set(embeddings.models)], ["cli-model"]);
    await server.waitForLog((record) => record.event === "vectors_persisted");
  } finally {
    assert.equal(await server.stop("SIGINT"), 0);
  }
  assert.ok(!server.stdout.includes(KEY) && !server.rawLogs.some((line) => line.includes(KEY)), "the key is never printed");
});
