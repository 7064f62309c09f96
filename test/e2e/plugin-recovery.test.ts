// The plugin completes a vault-wide change that Obsidian's exit cut short (SPEC §9): a journal left in
// the plugin folder is finished when the plugin loads, before it serves, with its summary commit; a
// rename goes through FileManager.renameFile, whose own link updates count as done.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { contentHash } from "../../src/core/notes/hash";
import { encodeJournal, type TransactionStep } from "../../src/core/write/transaction";
import { DEFAULT_VAULT_NAME } from "../../src/hosts/obsidian/settings";
import { installPlugin } from "../obsidian-stand-in/loader";
import { REPO_ROOT, startPlugin } from "../support/plugin";
import { EDGE_VAULT, tempVault, type TempVault } from "../support/vaults";

const hash = (bytes: Uint8Array): string => contentHash(bytes, (data) => createHash("sha256").update(data).digest("hex"));

/** Leaves a journal where the plugin keeps them, as a change interrupted after it was saved would. */
function leaveJournal(vault: TempVault, tool: string, subject: string, steps: TransactionStep[]): string {
  const pluginDir = installPlugin(vault.dir, REPO_ROOT);
  const folder = path.join(vault.dir, pluginDir, "transactions", DEFAULT_VAULT_NAME);
  mkdirSync(folder, { recursive: true });
  const paths = steps.flatMap((step) => (step.kind === "rename" ? [step.from, step.to] : [step.path]));
  const journal = encodeJournal(
    { format: 1, id: "txn-test-1", tool, subject, meta: { tool }, commit_paths: paths, started: Date.now(), files: new Set(paths).size, host_rewrites_links: true, state: "pending" },
    steps,
    hash,
  );
  const file = path.join(folder, "txn-test-1.journal");
  writeFileSync(file, journal);
  return file;
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let attempt = 0; attempt < 100 && !condition(); attempt++) await new Promise((resolve) => setTimeout(resolve, 20));
  assert.ok(condition(), what);
}

test("a journal left half applied is completed when the plugin loads, with its summary commit", async () => {
  const vault = tempVault(EDGE_VAULT);
  const file = (relative: string): string => path.join(vault.dir, ...relative.split("/"));
  try {
    // The vault has a history already: its first commit is not taken while the change is completed.
    await (await startPlugin({ fixture: EDGE_VAULT, vault })).stop();
    const orphan = readFileSync(file("archive/orphan.md"));
    const secrets = readFileSync(file("wiki/secrets.md"));
    const idea = readFileSync(file("inbox/2026-01-06-0930-idea.md"));
    const orphanAfter = Buffer.from(orphan.toString("utf8").replace("Nothing", "Nobody"));
    const secretsAfter = Buffer.from(secrets.toString("utf8").replace("placeholder", "stand-in"));
    const journal = leaveJournal(vault, "vault_replace", "vault_replace: 2 notes, 2 occurrences", [
      { kind: "write", path: "archive/orphan.md", before: orphan, after: orphanAfter },
      { kind: "write", path: "wiki/secrets.md", before: secrets, after: secretsAfter },
      { kind: "remove", path: "inbox/2026-01-06-0930-idea.md", before: idea },
    ]);
    // The first step had been made when Obsidian quit.
    writeFileSync(file("archive/orphan.md"), orphanAfter);
    const harness = await startPlugin({ fixture: EDGE_VAULT, vault });
    try {
      assert.deepEqual(readFileSync(file("archive/orphan.md")), orphanAfter);
      assert.deepEqual(readFileSync(file("wiki/secrets.md")), secretsAfter);
      assert.equal(existsSync(file("inbox/2026-01-06-0930-idea.md")), false);
      const listed = await harness.call("vault_list");
      const recovered = (listed.structured.vaults as Array<{ recovered?: Record<string, unknown> }>)[0]!.recovered;
      assert.deepEqual(recovered && { ...recovered, at: typeof recovered.at }, { operation: "vault_replace", outcome: "completed", files: 3, at: "string" });
      const history = await harness.call("note_history", { path: "wiki/secrets.md", limit: 5 });
      assert.equal((history.structured.revisions as Array<{ message: string }>)[0]?.message, "vault_replace: 2 notes, 2 occurrences");
      const search = await harness.call("note_search", { query: "stand-in" });
      assert.deepEqual((search.structured.hits as Array<{ path: string }>).map((hit) => hit.path), ["wiki/secrets.md"], "the index follows the recovery");
      await until(() => !existsSync(journal), "the journal is removed");
    } finally {
      await harness.stop();
    }
  } finally {
    vault.cleanup();
  }
});

test("a journaled rename is completed through FileManager.renameFile; the links Obsidian rewrote itself count as done", async () => {
  const vault = tempVault(EDGE_VAULT);
  const file = (relative: string): string => path.join(vault.dir, ...relative.split("/"));
  try {
    const index = readFileSync(file("wiki/index.md"));
    // Planned differently from what Obsidian writes: the host's own rewrite stands.
    const planned = Buffer.from(index.toString("utf8").replace("[[rate-limiting]]", "[[Rate limits]]"));
    leaveJournal(vault, "note_move", "note_move: wiki/rate-limiting.md -> archive/Rate limits.md (1 links updated)", [
      { kind: "rename", from: "wiki/rate-limiting.md", to: "archive/Rate limits.md" },
      { kind: "write", path: "wiki/index.md", before: index, after: planned },
    ]);
    const harness = await startPlugin({ fixture: EDGE_VAULT, vault });
    try {
      assert.equal(harness.app.fileManager.calls.renameFile, 1, "the rename went through FileManager.renameFile");
      assert.equal(existsSync(file("wiki/rate-limiting.md")), false);
      assert.ok(existsSync(file("archive/Rate limits.md")));
      const backlinks = await harness.call("note_backlinks", { path: "archive/Rate limits.md" });
      assert.ok((backlinks.structured.incoming as Array<{ path: string }>).some((entry) => entry.path === "wiki/index.md"));
      const listed = await harness.call("vault_list");
      const recovered = (listed.structured.vaults as Array<{ recovered?: Record<string, unknown> }>)[0]!.recovered;
      assert.deepEqual(recovered && { operation: recovered.operation, outcome: recovered.outcome }, { operation: "note_move", outcome: "completed" });
    } finally {
      await harness.stop();
    }
  } finally {
    vault.cleanup();
  }
});
