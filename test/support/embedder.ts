// The deterministic stand-in for an embedding model, and a real /v1/embeddings HTTP server serving
// it: texts become hashed bags of character trigrams, normalised, so texts sharing words are near.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { tempVault, type TempVault } from "./vaults";

export const TEST_DIMS = 128;

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** Hashed character trigrams of the lower-cased words, each word padded with spaces; unit length. */
export function trigramVector(text: string, dims = TEST_DIMS): number[] {
  const vector = new Array<number>(dims).fill(0);
  for (const word of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (word === "") continue;
    const padded = ` ${word} `;
    for (let i = 0; i + 3 <= padded.length; i++) {
      const hash = fnv1a(padded.slice(i, i + 3));
      vector[hash % dims]! += hash & 0x80000000 ? -1 : 1;
    }
  }
  const norm = Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0));
  return norm > 0 ? vector.map((value) => value / norm) : vector;
}

export type ServerMode = "ok" | "error500" | "hang";

export interface EmbeddingServer {
  /** The base URL, e.g. http://127.0.0.1:1234/v1. */
  url: string;
  /** Requests answered or refused so far. */
  requests: number;
  /** Texts embedded so far. */
  texts: number;
  /** Each request's texts, in order. */
  inputs: string[][];
  /** Models the requests named. */
  models: string[];
  /** Authorization headers seen. */
  authorizations: string[];
  mode: ServerMode;
  close(): Promise<void>;
}

/** Starts a /v1/embeddings server on an ephemeral port, embedding with `embed` (trigramVector by default). */
export async function startEmbeddingServer(embed: (text: string) => number[] = (text) => trigramVector(text)): Promise<EmbeddingServer> {
  const hanging = new Set<http.ServerResponse>();
  const state: EmbeddingServer = {
    url: "",
    requests: 0,
    texts: 0,
    inputs: [],
    models: [],
    authorizations: [],
    mode: "ok",
    close: async () => {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      if (request.method === "GET" && request.url === "/stats") {
        response.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify({ requests: state.requests, texts: state.texts }));
        return;
      }
      state.requests += 1;
      if (request.headers.authorization) state.authorizations.push(request.headers.authorization);
      if (state.mode === "error500") {
        response.writeHead(500, { "Content-Type": "application/json" }).end('{"error":"model crashed"}');
        return;
      }
      if (state.mode === "hang") {
        hanging.add(response);
        return;
      }
      if (request.method !== "POST" || request.url !== "/v1/embeddings") {
        response.writeHead(404).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { model: string; input: string | string[] };
      const input = typeof body.input === "string" ? [body.input] : body.input;
      state.models.push(body.model);
      state.inputs.push(input);
      state.texts += input.length;
      const data = input.map((text, index) => ({ object: "embedding", index, embedding: embed(text) }));
      response.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify({ object: "list", model: body.model, data }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return state;
}

const filler = (topic: string, count: number): string =>
  Array.from({ length: count }, (_, i) => `${topic} note line ${i} keeps the section long enough to be a chunk of its own.`).join(" ");

/** Four notes on distinct topics; the bread note is several chunks. */
export function semanticVault(): TempVault {
  const source = mkdtempSync(path.join(os.tmpdir(), "sbmcp-semantic-src-"));
  const write = (relative: string, text: string): void => {
    mkdirSync(path.dirname(path.join(source, relative)), { recursive: true });
    writeFileSync(path.join(source, relative), text);
  };
  write("cooking/bread.md", `# Sourdough bread\n\nFeed the starter with flour and water, knead the dough and bake it in a hot oven.\n\n## Shaping\n\n${filler("Shaping", 14)}\n\n## Baking\n\n${filler("Baking", 14)}\n`);
  write("garden/tomatoes.md", "# Tomatoes\n\nWater the tomato plants every morning and tie them to stakes.\n");
  write("tech/kubernetes.md", "# Kubernetes\n\nPods, deployments and services run containers in a cluster.\n");
  write("travel/japan.md", "# Japan trip\n\nTrains from Tokyo to Kyoto, temples and ramen.\n");
  const vault = tempVault(source);
  rmSync(source, { recursive: true, force: true });
  return vault;
}

