// Faults a real vault meets: its folder renamed away and back, a note deleted between search and
// read, a snapshot from a future version. The server keeps answering and says what happened.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { decodeJson, decodeSnapshot, encodeJson, encodeSnapshot } from "../../src/core/search/snapshot";
import { startTestServer, type TestServer } from "../support/server";
import { EDGE_VAULT, tempVault } from "../support/vaults";
import { within } from "../support/poll";

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


test("the vault folder moved away: every tool refuses, nothing recreates it, the index is kept; moved back, it is served again", async () => {
  const vault = tempVault(EDGE_VAULT);
  const away = `${vault.dir}-away`;
  let own = await startTestServer({ fixture: EDGE_VAULT, vault, name: "notes" });
  try {
    const host = own.server.hosts[0]!;
    const files = host.engine.files().length;
    renameSync(vault.dir, away);
    const calls: Array<[string, Record<string, unknown>]> = [
      ["note_list", {}],
      ["note_search", { query: "bucket refills" }],
      ["note_read", { path: "wiki/index.md" }],
      ["note_create", { path: "wiki/new.md", content: "Created into nothing.\n" }],
      ["note_create", { path: "brand/new/folder/note.md", content: "Created into nothing.\n" }],
      ["vault_stats", {}],
    ];
    for (const [tool, args] of calls) {
      const result = await own.call(tool, args);
      assert.equal(result.isError, true, `${tool}: ${result.text}`);
      assert.equal((result.structured.error as { code: string }).code, "unavailable", tool);
      assert.match(result.text, /The folder of vault "notes" is missing; it was moved or deleted\. Restore it/, tool);
      assert.ok(!result.text.includes(path.dirname(vault.dir)), `${tool} names no absolute path`);
    }
    assert.equal(existsSync(vault.dir), false, "no tool recreated the vault folder");
    const listed = await own.call("vault_list");
    const entry = (listed.structured.vaults as Array<Record<string, unknown>>)[0]!;
    assert.equal(entry.available, false);
    assert.match(String(entry.unavailable), /folder of vault "notes" is missing/);
    assert.equal((entry.notes as number) + (entry.attachments as number), files, "vault_list still counts what the index holds");

    await within(3000, "the server notices", () => own.logs.some((line) => line.includes('"vault_folder_missing"')));
    // A reconcile would read the missing folder as every note deleted: it is refused, the table kept.
    await assert.rejects(host.engine.reconcile(), (error: { code?: string }) => error.code === "unavailable");
    await assert.rejects(host.engine.recheck(), (error: { code?: string }) => error.code === "unavailable");
    // A write already past the tool's check when the folder vanished cannot bring it back either.
    const bytes = new TextEncoder().encode("late\n");
    await assert.rejects(host.writer.writeFile("late/folder/note.md", bytes, null), (error: { code?: string }) => error.code === "unavailable");
    await assert.rejects(host.writer.writeFile("late.md", bytes, null));
    await assert.rejects(host.writer.writeHidden(".trash/secondbrain/late.md", bytes), (error: { code?: string }) => error.code === "unavailable");
    assert.equal(existsSync(vault.dir), false, "no write recreated the vault folder");
    assert.equal(host.engine.files().length, files, "the index kept every file");

    renameSync(away, vault.dir);
    await within(5000, "search answers again", async () => {
      const found = await own.call("note_search", { query: "bucket refills" });
      return !found.isError && (found.structured.hits as Array<{ path: string }>)[0]?.path === "wiki/rate-limiting.md";
    });
    const back = await own.call("vault_list");
    assert.equal((back.structured.vaults as Array<Record<string, unknown>>)[0]!.available, true);
    assert.equal((await own.call("note_read", { path: "wiki/index.md" })).isError, false);
    // Watched again: an edit in the returned folder is found without a reconcile by hand.
    writeFileSync(path.join(vault.dir, "wiki", "after-return.md"), "Ibexes came back.\n");
    await within(3000, "an edit after the return", async () => {
      const found = await own.call("note_search", { query: "ibexes" });
      return (found.structured.hits as Array<{ path: string }>).some((hit) => hit.path === "wiki/after-return.md");
    });

    // The index persisted through all this still holds every file: a restart reconciles nothing away.
    await own.stop();
    own = await startTestServer({ fixture: EDGE_VAULT, vault, name: "notes" });
    const reconciled = own.logs.find((line) => line.includes('"index_reconciled"')) ?? "";
    assert.match(reconciled, /"snapshot":"loaded"/);
    assert.match(reconciled, /"added":0,"removed":0/);
    assert.equal(own.server.hosts[0]!.engine.files().length, files + 1);
  } finally {
    await own.stop();
    if (existsSync(away)) rmSync(away, { recursive: true, force: true });
    vault.cleanup();
  }
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
