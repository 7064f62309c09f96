// The Claude Desktop bundle: mcpb/manifest.json passes `mcpb validate`, `npm run mcpb`'s build packs
// a bundle that unpacks and validates again, and the unpacked server, launched the way Claude Desktop
// launches it (its mcp_config with the variables filled in), serves the chosen vault over stdio.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { buildBundle, MANIFEST, mcpb, ROOT } from "../../mcpb/build";
import { ALL_TOOLS } from "../../src/tools/registry";
import { EDGE_VAULT, tempVault } from "../support/vaults";

interface Manifest {
  version: string;
  server: { entry_point: string; mcp_config: { command: string; args: string[] } };
  user_config: Record<string, { type: string; required?: boolean; default?: string; sensitive?: boolean }>;
  tools?: Array<{ name: string }>;
}

function readManifest(file: string): Manifest {
  return JSON.parse(readFileSync(file, "utf8")) as Manifest;
}

/** mcp_config's args as Claude Desktop fills them: ${__dirname} and ${user_config.KEY}. */
function launchArgs(manifest: Manifest, dir: string, config: Record<string, string>): string[] {
  return manifest.server.mcp_config.args.map((arg) =>
    arg.replace("${__dirname}", dir).replace(/\$\{user_config\.([a-z_]+)\}/g, (_, key: string) => {
      const value = config[key] ?? manifest.user_config[key]?.default;
      assert.ok(value !== undefined, `user_config.${key} has a value or a default`);
      return value;
    }),
  );
}

test("mcpb/manifest.json passes mcpb validate, at the package's version, asking for the vault folder and the toolsets", () => {
  assert.match(mcpb(["validate", MANIFEST]), /Manifest schema validation passes/);
  const manifest = readManifest(MANIFEST);
  const pkg = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string };
  assert.equal(manifest.version, pkg.version, "the manifest's version follows package.json");
  assert.deepEqual(Object.keys(manifest.user_config), ["vault", "toolsets"]);
  assert.equal(manifest.user_config.vault?.type, "directory");
  assert.equal(manifest.user_config.vault?.required, true);
  assert.equal(manifest.user_config.toolsets?.default, "all");
  assert.deepEqual(manifest.server.mcp_config.args.slice(1, 3), ["serve", "--stdio"]);
  assert.ok(
    ALL_TOOLS.filter((tool) => tool.group === "find").every((tool) => tool.annotations.readOnlyHint),
    "the toolsets field's promise holds: find alone changes nothing",
  );
});

test("the packed bundle unpacks, validates, holds the built server, and serves the chosen vault as Claude Desktop launches it", async () => {
  const work = mkdtempSync(path.join(os.tmpdir(), "sbmcp-mcpb-"));
  const vault = tempVault(EDGE_VAULT);
  try {
    const built = buildBundle(path.join(work, "out"));
    assert.ok(existsSync(built.bundle), "the .mcpb file exists");
    const installed = path.join(work, "installed");
    mcpb(["unpack", built.bundle, installed]);
    assert.match(mcpb(["validate", path.join(installed, "manifest.json")]), /Manifest schema validation passes/);
    const manifest = readManifest(path.join(installed, "manifest.json"));
    assert.deepEqual(manifest.tools?.map((tool) => tool.name), ALL_TOOLS.map((tool) => tool.name));
    assert.ok(readFileSync(path.join(installed, manifest.server.entry_point)).equals(readFileSync(path.join(ROOT, "dist/cli.js"))), "the entry point is dist/cli.js");
    const entryDir = path.dirname(path.join(installed, manifest.server.entry_point));
    assert.ok(readFileSync(path.join(entryDir, "binary-worker.js")).equals(readFileSync(path.join(ROOT, "dist/binary-worker.js"))), "the PDF and image worker lies beside it");
    assert.ok(readFileSync(path.join(entryDir, "history-fs-worker.js")).equals(readFileSync(path.join(ROOT, "dist/history-fs-worker.js"))), "the history's file worker lies beside it");

    const home = path.join(work, "home");
    for (const [toolsets, expected] of [
      [undefined, ALL_TOOLS.map((tool) => tool.name)],
      ["find", ALL_TOOLS.filter((tool) => tool.group === "find").map((tool) => tool.name)],
    ] as const) {
      const client = new Client({ name: "claude-desktop-stand-in", version: "1.0.0" });
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: launchArgs(manifest, installed, { vault: vault.dir, ...(toolsets ? { toolsets } : {}) }),
          env: { ...getDefaultEnvironment(), HOME: home },
          stderr: "ignore",
        }),
      );
      try {
        assert.equal(manifest.server.mcp_config.command, "node");
        const { tools } = await client.listTools();
        assert.deepEqual(tools.map((tool) => tool.name), [...expected], `toolsets ${toolsets ?? "(default)"}`);
        const read = await client.callTool({ name: "note_read", arguments: { path: "wiki/index.md" } });
        assert.equal(read.isError, undefined, JSON.stringify(read.content));
      } finally {
        await client.close();
      }
    }
    assert.ok(existsSync(path.join(home, ".local", "share", "secondbrain-mcp")), "the index lives in the user's data folder, not in the bundle or the vault");
  } finally {
    vault.cleanup();
    rmSync(work, { recursive: true, force: true });
  }
});
