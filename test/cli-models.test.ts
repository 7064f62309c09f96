// The on-device kind in the built CLI: `models download` fetches a model only when run, from the
// config's source (here a local hub serving the tiny model), with its size first, progress on stderr
// and each file's SHA-256 checked; a server started before the download says which command to run
// and keeps searching by words, and after it embeds the vault on this machine.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { callTool } from "./support/server";
import { CLI, startCli, type CliServer } from "./support/cli";
import { manifestOf, startModelHub, TINY_DIMS, TINY_REVISION, tinyModelFiles } from "./support/tiny-model";
import { within } from "./support/poll";
import type { SemanticStatus as Semantic } from "../src/core/search/semantic/semantic-index";

const execFileAsync = promisify(execFile);
const TOKEN = "cli-models-token-0123456789abcdef";
const REPO = "test/tiny-bert";

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function cli(args: string[]): Promise<Run> {
  return execFileAsync(process.execPath, [CLI, ...args], { env: { ...process.env, SECONDBRAIN_TOKEN: TOKEN } }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );
}

interface Setup {
  vault: string;
  data: string;
  config: string;
}

function setup(t: { after(fn: () => void): void }, source: string, files: Map<string, Buffer>): Setup {
  const base = mkdtempSync(path.join(os.tmpdir(), "sb-cli-models-"));
  t.after(() => rmSync(base, { recursive: true, force: true }));
  const vault = path.join(base, "vault");
  mkdirSync(vault);
  writeFileSync(path.join(vault, "pets.md"), "# Pets\n\nthe cat sat on the mat\n");
  writeFileSync(path.join(vault, "roads.md"), "# Roads\n\ncar road car road\n");
  writeFileSync(path.join(vault, "dogs.md"), "# Dogs\n\nthe dog sat\n");
  const fileLines = manifestOf(files).flatMap((file) => [`        - path: ${file.path}`, `          size: ${file.size}`, `          sha256: ${file.sha256}`]);
  const config = path.join(base, "config.yaml");
  writeFileSync(
    config,
    [
      "embeddings:",
      "  kind: on-device",
      "  model: tiny",
      `  model_source: ${source}`,
      "  pinned_models:",
      "    - id: tiny",
      `      repo: ${REPO}`,
      `      revision: ${TINY_REVISION}`,
      `      dims: ${TINY_DIMS}`,
      "      files:",
      ...fileLines,
      "",
    ].join("\n"),
  );
  return { vault, data: path.join(base, "data"), config };
}

async function connect(server: CliServer): Promise<Client> {
  const client = new Client({ name: "cli-models-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }));
  return client;
}

async function semanticOf(client: Client): Promise<Semantic> {
  const listed = await callTool(client, "vault_list");
  return (listed.structured.vaults as Array<{ semantic: Semantic }>)[0]!.semantic;
}

test("models download prints the size first, progress on stderr and each file's checksum, and refuses and deletes a tampered file", async (t) => {
  const files = tinyModelFiles();
  const total = [...files.values()].reduce((sum, bytes) => sum + bytes.length, 0);
  const tampered = new Map(files);
  const onnx = Buffer.from(files.get("onnx/model_quantized.onnx")!);
  onnx[onnx.length - 1] = onnx[onnx.length - 1]! ^ 0xff;
  tampered.set("onnx/model_quantized.onnx", onnx);
  const bad = await startModelHub(REPO, tampered);
  t.after(() => bad.close());
  const { config, data } = setup(t, bad.url, files);
  const folder = path.join(data, "models", "test", "tiny-bert");

  const refused = await cli(["models", "download", "--config", config, "--data", data]);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /onnx\/model_quantized\.onnx of tiny does not match the pinned checksum \(got \d+ bytes, sha256 [0-9a-f]{64}; expected \d+ bytes, sha256 [0-9a-f]{64}\); refused and deleted/);
  assert.equal(existsSync(folder), false, "nothing of the refused download is kept");
  assert.equal(existsSync(`${folder}.download`), false);

  const good = await startModelHub(REPO, files);
  t.after(() => good.close());
  const run = await cli(["models", "download", "tiny", "--config", config, "--data", data, "--source", good.url]);
  assert.equal(run.code, 0, run.stderr);
  const lines = run.stdout.trim().split("\n");
  assert.match(lines[0]!, new RegExp(`^Downloading tiny: 4 files, [\\d.]+ kB \\(${total} bytes\\) from 127\\.0\\.0\\.1:\\d+ into ${folder.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`));
  for (const file of manifestOf(files)) assert.ok(lines.includes(`sha256 ok  ${file.path}  ${file.sha256}`), `${file.path} is reported verified`);
  assert.match(lines.at(-1)!, /^tiny is downloaded and verified \([\d.]+ kB\) in /);
  const progress = run.stderr.trim().split("\n");
  assert.ok(progress.length >= 2, "progress is shown as it goes");
  assert.match(progress.at(-1)!, /^100% {2}[\d.]+ kB of [\d.]+ kB {2}/);
  assert.deepEqual(good.requests.sort(), [...files.keys()].map((file) => `/${REPO}/resolve/${TINY_REVISION}/${file}`).sort());

  const listed = await cli(["models", "list", "--config", config, "--data", data]);
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, /^\* tiny {2}test\/tiny-bert {2}8 dims {2}English {2}downloaded, verified$/m);
  assert.match(listed.stdout, /^ {2}multilingual-e5-small {2}Xenova\/multilingual-e5-small {2}384 dims {2}multilingual {2}/m);
});

test("serve with the on-device kind and no download says in vault_list which command to run and searches by words; after the download it embeds on this machine", async (t) => {
  const files = tinyModelFiles();
  const hub = await startModelHub(REPO, files);
  t.after(() => hub.close());
  const { vault, config, data } = setup(t, hub.url, files);

  const before = await cli(["validate", "--vault", vault, "--config", config, "--data", data]);
  assert.equal(before.code, 0, before.stderr);
  const shown = (JSON.parse(before.stdout) as { embeddings: Record<string, unknown> }).embeddings;
  assert.equal(shown.kind, "on-device");
  assert.equal(shown.model, "tiny");
  assert.equal(shown.pinned, true);
  assert.equal(shown.downloaded, false);
  assert.equal(shown.models_folder, path.join(data, "models"));
  assert.equal(shown.source, hub.url);
  assert.equal(shown.to_download, `secondbrain-mcp models download tiny --config ${config} --data ${data}`);

  const servers: CliServer[] = [];
  t.after(async () => {
    for (const running of servers) await running.stop();
  });
  let server = await startCli(["serve", "--vault", vault, "--data", data, "--port", "0", "--config", config, "--no-history"], { SECONDBRAIN_TOKEN: TOKEN });
  servers.push(server);
  let client = await connect(server);
  try {
    let status: Semantic | undefined;
    await within(20_000, "vault_list says the model is missing", async () => (status = await semanticOf(client)).state === "failed");
    assert.match(status!.error!, /^the on-device model "tiny" is not downloaded; run `([^`]+)` \([\d.]+ kB\); search stays lexical until then$/);
    assert.equal(/`([^`]+)`/.exec(status!.error!)![1], shown.to_download, "vault_list names the command validate shows");
    const search = await callTool(client, "note_search", { query: "cat" });
    assert.equal(search.isError, false);
    assert.equal(search.structured.mode, "lexical");
    assert.equal((search.structured.hits as Array<{ path: string }>)[0]?.path, "pets.md");
    assert.equal(hub.requests.length, 0, "serving fetched nothing");
  } finally {
    await client.close();
    assert.equal(await server.stop("SIGINT"), 0);
  }

  // The command vault_list named, as a user would paste it.
  const download = await cli(String(shown.to_download).split(" ").slice(1));
  assert.equal(download.code, 0, download.stderr);

  server = await startCli(["serve", "--vault", vault, "--data", data, "--port", "0", "--config", config, "--no-history"], { SECONDBRAIN_TOKEN: TOKEN });
  servers.push(server);
  client = await connect(server);
  try {
    let status: Semantic | undefined;
    await within(30_000, "the vault is embedded on the device", async () => {
      status = await semanticOf(client);
      return status.state === "ready" && status.done === 3;
    });
    assert.equal(status!.model, "tiny");
    const semantic = await callTool(client, "note_search", { query: "cat mat", mode: "semantic" });
    assert.equal(semantic.isError, false, semantic.text);
    assert.equal(semantic.structured.mode, "semantic");
    assert.equal((semantic.structured.hits as Array<{ path: string }>)[0]?.path, "pets.md");
    assert.equal(hub.requests.length, files.size, "only the download fetched, once per file");
  } finally {
    await client.close();
    assert.equal(await server.stop("SIGINT"), 0);
  }
});
