// Faults a real vault meets: its folder renamed away and back, a note deleted between search and
// read, a snapshot from a future version. The server keeps answering and says what happened.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { decodeJson, decodeSnapshot, encodeJson, encodeSnapshot } from "../../src/core/search/snapshot";
import { startTestServer, type TestServer } from "../support/server";
import { EDGE_VAULT, tempVault } from "../support/vaults";

let server: TestServer;
before(async () => {
  server = await startTestServer({ fixture: EDGE_VAULT });
});
after(async () => server.stop());

async function settle(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 400));
  for (const host of server.server.hosts) await host.idle();
}

test("a note deleted between search and read is an instructive not_found", async () => {
  const search = await server.call("note_search", { query: "orphan" });
  const hit = (search.structured.hits as Array<{ path: string }>)[0];
  assert.equal(hit?.path, "archive/orphan.md");
  rmSync(path.join(server.vault.dir, "archive", "orphan.md"));
  const read = await server.call("note_read", { path: hit.path });
  assert.equal(read.isError, true);
  assert.equal((read.structured.error as { code: string }).code, "not_found");
  assert.match(read.text, /note_search|note_list/);
  await settle();
  const again = await server.call("note_search", { query: "orphan" });
  assert.ok(!(again.structured.hits as Array<{ path: string }>).some((entry) => entry.path === "archive/orphan.md"));
});

test("the vault folder renamed away and back: tools fail cleanly, then recover", async () => {
  const away = `${server.vault.dir}-away`;
  renameSync(server.vault.dir, away);
  const read = await server.call("note_read", { path: "wiki/index.md" });
  assert.equal(read.isError, true);
  assert.equal((read.structured.error as { code: string }).code, "not_found");
  const list = await server.call("note_list", {});
  assert.equal(list.isError, false, "listing still answers from the table");
  renameSync(away, server.vault.dir);
  const back = await server.call("note_read", { path: "wiki/index.md" });
  assert.equal(back.isError, false, back.text);
  writeFileSync(path.join(server.vault.dir, "wiki", "after-return.md"), "Ibexes came back.\n");
  for (const host of server.server.hosts) await host.engine.reconcile();
  const found = await server.call("note_search", { query: "ibexes" });
  assert.deepEqual((found.structured.hits as Array<{ path: string }>).map((entry) => entry.path), ["wiki/after-return.md"]);
});

test("a snapshot from a future version is discarded and rebuilt", async () => {
  const vault = tempVault(EDGE_VAULT);
  try {
    const first = await startTestServer({ fixture: EDGE_VAULT, vault });
    await first.stop();
    const snapshots: string[] = [];
    const walk = (dir: string): void => {
      for (const name of readdirSync(dir)) {
        const full = path.join(dir, name);
        if (statSync(full).isDirectory()) walk(full);
        // The notes' metadata file has a container of its own (metadata-file.ts), checked note by note.
        else if (name.endsWith(".snapshot") && !name.startsWith("index-metadata-")) snapshots.push(full);
      }
    };
    walk(vault.dataDir);
    assert.ok(snapshots.length > 0);
    for (const file of snapshots) {
      // Each file (the base, a journal) opens with a header section naming its version.
      const [header, ...rest] = decodeSnapshot(new Uint8Array(readFileSync(file)));
      const fields = decodeJson(header, "header") as { version: number };
      writeFileSync(file, encodeSnapshot([encodeJson({ ...fields, version: fields.version + 100 }), ...rest]));
    }
    const second = await startTestServer({ fixture: EDGE_VAULT, vault });
    try {
      assert.ok(second.logs.some((line) => line.includes('"index_discarded"')));
      const reconciled = second.logs.find((line) => line.includes('"index_reconciled"'));
      assert.match(reconciled ?? "", /"snapshot":"discarded"/);
      const found = await second.call("note_search", { query: "bucket refills" });
      assert.equal((found.structured.hits as Array<{ path: string }>)[0]?.path, "wiki/rate-limiting.md");
    } finally {
      await second.stop();
    }
  } finally {
    vault.cleanup();
  }
});
