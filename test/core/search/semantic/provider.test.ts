import { test } from "node:test";
import assert from "node:assert/strict";
import { EmbeddingError, OpenAICompatibleProvider, embeddingsUrl, endpointProblem } from "../../../../src/core/search/semantic/provider";
import { nodeHttpPost } from "../../../../src/hosts/node/http-post";
import { startEmbeddingServer, trigramVector } from "../../../support/embedder";

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

test("endpoint URLs: a base gains /v1/embeddings, a versioned base /embeddings, a full one stays", () => {
  assert.equal(embeddingsUrl("http://localhost:11434"), "http://localhost:11434/v1/embeddings");
  assert.equal(embeddingsUrl("http://localhost:11434/v1/"), "http://localhost:11434/v1/embeddings");
  assert.equal(embeddingsUrl("https://api.example.com/v1/embeddings"), "https://api.example.com/v1/embeddings");
  assert.equal(endpointProblem("http://localhost:8080/v1"), null);
  assert.match(endpointProblem("ftp://x")!, /http/);
  assert.match(endpointProblem("http://user:secret@x/v1")!, /credentials/);
});

test("texts are sent in batches over real HTTP with the key as a bearer token, and vectors come back in order", async (t) => {
  const server = await startEmbeddingServer();
  t.after(() => server.close());
  const provider = new OpenAICompatibleProvider({ url: server.url, model: "m1", apiKey: "sk-test", post: nodeHttpPost, sleep, batchSize: 2, requestsPerMinute: 60_000 });
  const vectors = await provider.embed(["alpha", "beta", "gamma"]);
  assert.equal(server.requests, 2);
  assert.deepEqual(server.inputs, [["alpha", "beta"], ["gamma"]]);
  assert.deepEqual(server.models, ["m1", "m1"]);
  assert.deepEqual(server.authorizations, ["Bearer sk-test", "Bearer sk-test"]);
  assert.deepEqual([...vectors[2]!], [...Float32Array.from(trigramVector("gamma"))]);
});

test("requests keep to the rate limit toward the endpoint", async (t) => {
  const server = await startEmbeddingServer();
  t.after(() => server.close());
  const waits: number[] = [];
  let clock = 1000;
  const provider = new OpenAICompatibleProvider({
    url: server.url,
    model: "m",
    post: nodeHttpPost,
    batchSize: 1,
    requestsPerMinute: 120,
    now: () => clock,
    sleep: async (ms) => {
      waits.push(ms);
      clock += ms;
    },
  });
  await provider.embed(["a", "b", "c"]);
  assert.deepEqual(waits, [500, 500]);
});

test("a 500, a refused connection and a hung endpoint each reject with an EmbeddingError saying which, never the key", async (t) => {
  const server = await startEmbeddingServer();
  t.after(() => server.close());
  const provider = (url: string, timeoutMs = 5000) => new OpenAICompatibleProvider({ url, model: "m", apiKey: "sk-secret", post: nodeHttpPost, sleep, timeoutMs });
  server.mode = "error500";
  await assert.rejects(provider(server.url).embed(["x"]), (error: unknown) => error instanceof EmbeddingError && error.failure === "http" && error.status === 500 && /HTTP 500/.test(error.message) && !error.message.includes("sk-secret"));
  server.mode = "hang";
  await assert.rejects(provider(server.url, 200).embed(["x"]), (error: unknown) => error instanceof EmbeddingError && error.failure === "timeout" && /200 ms/.test(error.message));
  const closed = await startEmbeddingServer();
  const deadUrl = closed.url;
  await closed.close();
  await assert.rejects(provider(deadUrl).embed(["x"]), (error: unknown) => error instanceof EmbeddingError && error.failure === "unreachable");
});
