// --toolsets on the built CLI: the default user's tool groups over stdio and over HTTP, shown by
// validate, and refused where it cannot apply.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ALL_TOOLS } from "../src/tools/registry";
import { CLI, startCli } from "./support/cli";
import { EDGE_VAULT, tempVault } from "./support/vaults";

const run = promisify(execFile);
const TOKEN = "sbm_cli-toolsets-token-0123456789abcdef";

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], { env: { ...process.env, SECONDBRAIN_TOKEN: TOKEN } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

function toolsOf(...groups: string[]): string[] {
  return ALL_TOOLS.filter((tool) => groups.includes(tool.group)).map((tool) => tool.name);
}

test("serve --stdio --toolsets offers only the named groups", async () => {
  const vault = tempVault(EDGE_VAULT);
  const client = new Client({ name: "toolsets-test", version: "1.0.0" });
  try {
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, "serve", "--stdio", "--vault", `edge=${vault.dir}`, "--data", vault.dataDir, "--no-history", "--toolsets", "history, find"],
        stderr: "ignore",
      }),
    );
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name), toolsOf("find", "history"));
  } finally {
    await client.close();
    vault.cleanup();
  }
});

test("serve --toolsets over HTTP gives the default user those groups", async () => {
  const vault = tempVault(EDGE_VAULT);
  const server = await startCli(["serve", "--vault", vault.dir, "--data", vault.dataDir, "--port", "0", "--no-history", "--toolsets", "write"], { SECONDBRAIN_TOKEN: TOKEN });
  const client = new Client({ name: "toolsets-test", version: "1.0.0" });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }));
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name), toolsOf("write"));
  } finally {
    await client.close();
    assert.equal(await server.stop("SIGINT"), 0);
    vault.cleanup();
  }
});

test("validate shows each user's toolsets; --toolsets is refused for host, for none and beside a config file's users", async () => {
  const vault = tempVault(EDGE_VAULT);
  try {
    const plain = await cli(["validate", "--vault", vault.dir, "--toolsets", "find,maintain"]);
    assert.equal(plain.code, 0, plain.stderr);
    assert.deepEqual((JSON.parse(plain.stdout) as { users: Array<{ toolsets: unknown }> }).users[0]!.toolsets, ["find", "maintain"]);
    const every = await cli(["validate", "--vault", vault.dir]);
    assert.equal((JSON.parse(every.stdout) as { users: Array<{ toolsets: unknown }> }).users[0]!.toolsets, "all");

    const config = path.join(vault.dataDir, "..", "users.yaml");
    writeFileSync(config, `users:\n  - name: alice\n    tokens: ["${TOKEN}"]\n    toolsets: [history]\n  - name: bob\n    tokens: ["${TOKEN}-bob"]\n`);
    const fromFile = await cli(["validate", "--vault", vault.dir, "--config", config]);
    assert.equal(fromFile.code, 0, fromFile.stderr);
    assert.deepEqual((JSON.parse(fromFile.stdout) as { users: Array<{ toolsets: unknown }> }).users.map((user) => user.toolsets), [["history"], "all"]);

    const host = await cli(["serve", "--vault", vault.dir, "--toolsets", "find,host"]);
    assert.equal(host.code, 2);
    assert.match(host.stderr, /--toolsets names host, the toolset of the tools only the Obsidian plugin has/);
    const none = await cli(["serve", "--vault", vault.dir, "--toolsets", " , "]);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /--toolsets names no toolset; leave it out \(or write --toolsets all\)/);
    const unknown = await cli(["serve", "--vault", vault.dir, "--toolsets", "search"]);
    assert.match(unknown.stderr, /--toolsets must be one of find, write, maintain, history, all/);
    const beside = await cli(["serve", "--vault", vault.dir, "--data", vault.dataDir, "--port", "0", "--config", config, "--toolsets", "find"]);
    assert.equal(beside.code, 2);
    assert.match(beside.stderr, /--toolsets sets the default user's toolsets, and the config file names its own users: give each of them toolsets: \[\.\.\.\] there instead/);
  } finally {
    vault.cleanup();
  }
});
