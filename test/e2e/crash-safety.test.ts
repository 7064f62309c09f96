// A server killed with SIGKILL in the middle of a burst of writes leaves every note equal to one of
// its versions, never a mix; after a restart no temp file is left, the index agrees with the files, and
// the history holds every acknowledged version and the one each note is left with.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { promises as fsp, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import * as git from "isomorphic-git";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { vaultDataDir } from "../../src/hosts/node/host";
import { callTool } from "../support/server";
import { startCli } from "../support/cli";
import { within } from "../support/poll";
import { seededRandom } from "../support/random";
import { EDGE_VAULT, tempVault } from "../support/vaults";

const TOKEN = "crash-test-token-0123456789abcdef";
const NOTES = 6;
const ITERATIONS = 10;
// Kill points are random but reproducible: a failing run prints its seed; CRASH_SEED replays it.
const SEED = Number(process.env.CRASH_SEED ?? Date.now() % 1_000_000);

function walk(dir: string, base = dir): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? walk(full, base) : [path.relative(base, full)];
  });
}

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: "crash-writer", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }));
  return client;
}

/** Every version of each crash note that a commit of the history holds, as text. */
async function recordedVersions(gitdir: string): Promise<Map<string, Set<string>>> {
  const fs = { promises: fsp };
  const found = new Map<string, Set<string>>();
  for (const entry of await git.log({ fs, gitdir, ref: "main" })) {
    for (let note = 0; note < NOTES; note++) {
      const filepath = `crash/n${note}.md`;
      const blob = await git.readBlob({ fs, gitdir, oid: entry.oid, filepath }).catch(() => null);
      if (!blob) continue;
      const versions = found.get(filepath) ?? new Set<string>();
      versions.add(Buffer.from(blob.blob).toString("utf8"));
      found.set(filepath, versions);
    }
  }
  return found;
}

function versionText(note: number, version: number): string {
  // Big enough that a write takes a while, so the kill can land inside one.
  return `# Crash note ${note}\n\nversion ${version} token crashtok${note}v${version}\n\n${"filler text ".repeat(20_000)}\n`;
}

test(`SIGKILL at random points of a burst of writes, ${ITERATIONS} times: every note is an old or a new version; restart cleans up (seed ${SEED})`, async () => {
  const vault = tempVault(EDGE_VAULT);
  const next = seededRandom(SEED);
  try {
    mkdirSync(path.join(vault.dir, "crash"));
    const versions = new Map<number, Set<string>>();
    for (let note = 0; note < NOTES; note++) {
      writeFileSync(path.join(vault.dir, "crash", `n${note}.md`), versionText(note, 0));
      versions.set(note, new Set([versionText(note, 0)]));
    }
    // The history's first snapshot is recorded before the kills, so that no write waits behind it.
    const first = await startCli(["serve", "--vault", `crash=${vault.dir}`, "--data", vault.dataDir, "--port", "0"], { SECONDBRAIN_TOKEN: TOKEN });
    await first.waitForLog((record) => record.event === "history_baseline", 60_000);
    await first.stop();
    const acknowledged: Array<{ path: string; content: string }> = [];
    let version = 1;
    for (let iteration = 0; iteration < ITERATIONS; iteration++) {
      const cli = await startCli(["serve", "--vault", `crash=${vault.dir}`, "--data", vault.dataDir, "--port", "0"], { SECONDBRAIN_TOKEN: TOKEN });
      const client = await connect(cli.url);
      const burst: Array<Promise<boolean>> = [];
      for (let round = 0; round < 20; round++) {
        for (let note = 0; note < NOTES; note++) {
          const content = versionText(note, version++);
          versions.get(note)!.add(content);
          burst.push(
            // Every write is a history commit, so kills also land between a write and its commit; every
            // other one carries a reason, which is the commit's body.
            callTool(client, "note_create", { path: `crash/n${note}.md`, content, overwrite: true, ...(round % 2 === 0 ? { reason: `round ${round}` } : {}) }).then(
              (result) => {
                if (!result.isError) acknowledged.push({ path: `crash/n${note}.md`, content });
                return !result.isError;
              },
              () => false,
            ),
          );
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 60 + Math.floor(next() * 700)));
      cli.child.kill("SIGKILL");
      await cli.stop();
      const applied = (await Promise.all(burst)).filter(Boolean).length;
      assert.ok(applied < burst.length, `the kill landed inside the burst (${applied} of ${burst.length} writes answered; seed ${SEED})`);
      await client.close().catch(() => undefined);
      for (let note = 0; note < NOTES; note++) {
        const text = readFileSync(path.join(vault.dir, "crash", `n${note}.md`), "utf8");
        assert.ok(versions.get(note)!.has(text), `crash/n${note}.md is one whole version (iteration ${iteration}, seed ${SEED})`);
      }
    }
    const restarted = await startCli(["serve", "--vault", `crash=${vault.dir}`, "--data", vault.dataDir, "--port", "0"], { SECONDBRAIN_TOKEN: TOKEN });
    try {
      await restarted.waitForLog((record) => record.event === "index_reconciled");
      assert.deepEqual(walk(vault.dir).filter((file) => path.basename(file).startsWith(".sbtmp-")), [], "no temp file is left");
      const client = await connect(restarted.url);
      const listed = await callTool(client, "vault_list", {});
      assert.equal((listed.structured.vaults as Array<{ versioned: boolean }>)[0]!.versioned, true, "the history survived the kills");
      for (let note = 0; note < NOTES; note++) {
        const bytes = readFileSync(path.join(vault.dir, "crash", `n${note}.md`));
        const token = /token (crashtok\d+v\d+)/.exec(bytes.toString("utf8"))![1]!;
        const hits = await callTool(client, "note_search", { query: token });
        assert.deepEqual((hits.structured.hits as Array<{ path: string }>).map((hit) => hit.path), [`crash/n${note}.md`], `the index finds ${token}`);
        const read = await callTool(client, "note_read", { path: `crash/n${note}.md`, max_bytes: 256 });
        assert.equal(read.structured.content_hash, createHash("sha256").update(bytes).digest("hex").slice(0, 32));
      }
      // The last write before each kill may have missed its commit; the start commits it from its record.
      for (let note = 0; note < NOTES; note++) {
        await within(30_000, `crash/n${note}.md as it is on disk is recorded`, async () => {
          const diff = await callTool(client, "note_diff", { path: `crash/n${note}.md` });
          return diff.structured.message === "(no difference)";
        });
      }
      await client.close();
    } finally {
      await restarted.stop();
    }
    const recorded = await recordedVersions(path.join(vaultDataDir(vault.dataDir, "crash", vault.dir), "history.git"));
    for (const write of acknowledged) {
      assert.ok(recorded.get(write.path)?.has(write.content), `an acknowledged version of ${write.path} is in the history (seed ${SEED})`);
    }
    for (let note = 0; note < NOTES; note++) {
      const onDisk = readFileSync(path.join(vault.dir, "crash", `n${note}.md`), "utf8");
      assert.ok(recorded.get(`crash/n${note}.md`)?.has(onDisk), `the version crash/n${note}.md is left with is in the history (seed ${SEED})`);
    }
  } finally {
    vault.cleanup();
  }
});
