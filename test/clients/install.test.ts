// The client matrix's install: pinned exactly, kept out of the project's own dependencies, and taken
// from its cache folder when that holds the same lockfile's install.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { cacheRoot, ensureClients, lockHash, PINNED, pins, prune } from "./install";

const CLIENT_PACKAGES = ["@anthropic-ai/claude-code", "@google/gemini-cli", "@openai/codex", "mcp-remote", "@modelcontextprotocol/inspector-cli"];

interface Manifest {
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

function readJson<T>(file: string): T {
  return JSON.parse(readFileSync(file, "utf8")) as T;
}

test("the clients are pinned exactly, the lockfile matches the pins, and the project's own install does not hold them", () => {
  const manifest = readJson<Manifest>(path.join(PINNED, "package.json"));
  const lock = readJson<{ packages: Record<string, { version?: string; dependencies?: Record<string, string> }> }>(path.join(PINNED, "package-lock.json"));
  assert.deepEqual(Object.keys(manifest.dependencies ?? {}).sort(), [...CLIENT_PACKAGES].sort());
  assert.deepEqual(lock.packages[""]?.dependencies, manifest.dependencies, "package-lock.json was regenerated after the last change of a pin (npm install --package-lock-only in test/clients/pinned)");
  for (const [name, version] of Object.entries(manifest.dependencies ?? {})) {
    assert.match(version, /^\d+\.\d+\.\d+$/, `${name} is pinned to one version`);
    assert.equal(lock.packages[`node_modules/${name}`]?.version, version, `the lockfile installs ${name}@${version}`);
  }
  assert.equal(pins().claudeCode, manifest.dependencies?.["@anthropic-ai/claude-code"]);
  const project = readJson<Manifest>(path.join(__dirname, "../../package.json"));
  for (const name of CLIENT_PACKAGES) {
    assert.ok(!(name in (project.dependencies ?? {})) && !(name in (project.devDependencies ?? {})), `${name} stays out of the project's npm install`);
  }
});

test("the cache folder is SECONDBRAIN_CLIENTS_CACHE, else under XDG_CACHE_HOME, else ~/.cache", () => {
  assert.equal(cacheRoot({ SECONDBRAIN_CLIENTS_CACHE: "/srv/clients", XDG_CACHE_HOME: "/x" }), "/srv/clients");
  assert.equal(cacheRoot({ XDG_CACHE_HOME: "/x" }), "/x/secondbrain-mcp/clients");
  assert.equal(cacheRoot({}), path.join(os.homedir(), ".cache", "secondbrain-mcp", "clients"));
});

test("an install of the same lockfile in the cache is reused without running npm", async () => {
  const root = mkdtempSync(path.join(os.tmpdir(), "sbmcp-clients-cache-"));
  try {
    const dir = path.join(root, lockHash());
    const entries = [
      "node_modules/.bin/claude",
      "node_modules/@google/gemini-cli/bundle/gemini.js",
      "node_modules/@openai/codex/bin/codex.js",
      "node_modules/mcp-remote/dist/proxy.js",
      "node_modules/@modelcontextprotocol/inspector-cli/build/cli.js",
    ];
    for (const entry of entries) {
      mkdirSync(path.dirname(path.join(dir, entry)), { recursive: true });
      writeFileSync(path.join(dir, entry), "");
    }
    // Without its marker the folder is an unfinished install: not used, and npm (not on this PATH) is called.
    await assert.rejects(ensureClients({ SECONDBRAIN_CLIENTS_CACHE: root, PATH: "/nonexistent" }), /ENOENT/);
    writeFileSync(path.join(dir, ".secondbrain-clients"), `${lockHash()}\n`);
    const clients = await ensureClients({ SECONDBRAIN_CLIENTS_CACHE: root, PATH: "/nonexistent" });
    assert.equal(clients.installed, false);
    assert.equal(clients.dir, dir);
    assert.equal(clients.codex, path.join(dir, "node_modules/@openai/codex/bin/codex.js"));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test("pruning removes other pins' installs and abandoned staging folders, and nothing else", () => {
  const root = mkdtempSync(path.join(os.tmpdir(), "sbmcp-clients-cache-"));
  try {
    const make = (name: string, marker: boolean): string => {
      const dir = path.join(root, name);
      mkdirSync(dir);
      if (marker) writeFileSync(path.join(dir, ".secondbrain-clients"), "x\n");
      return dir;
    };
    const keep = make("current", true);
    const older = make("older", true);
    const foreign = make("someone-elses", false);
    const abandoned = make(".install-abandoned", false);
    const running = make(".install-running", false);
    const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
    utimesSync(abandoned, twoHoursAgo, twoHoursAgo);
    prune(root, keep);
    assert.deepEqual(
      [keep, older, foreign, abandoned, running].map((dir) => existsSync(dir)),
      [true, false, true, false, true],
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test("the README's client section names the versions the matrix installs", () => {
  const readme = readFileSync(path.join(__dirname, "../../README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## Connecting clients"), readme.indexOf("## Tools"));
  const pinned = pins();
  for (const expected of [
    `**Claude Code** (tested: ${pinned.claudeCode})`,
    `**Gemini CLI** (tested: ${pinned.geminiCli})`,
    `**Codex** (tested: ${pinned.codex})`,
    `**mcp-remote** (tested: ${pinned.mcpRemote})`,
    `"mcp-remote@${pinned.mcpRemote}"`,
    `\`@modelcontextprotocol/inspector-cli\` ${pinned.inspectorCli}`,
    `@modelcontextprotocol/inspector-cli@${pinned.inspectorCli} --cli`,
  ]) {
    assert.ok(section.includes(expected), `README's "Connecting clients" says ${expected}`);
  }
});
