// A /v1/embeddings server in its own process, so that its work is not counted as the engine's
// event-loop stalls: the deterministic trigram embedder of the tests. Prints its base URL on stdout.
import { startEmbeddingServer } from "../test/support/embedder";

void startEmbeddingServer().then((server) => {
  process.stdout.write(`${server.url}\n`);
});
