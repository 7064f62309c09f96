// The private history end to end: a real isomorphic-git repository in the data folder, driven through
// the headless server with the official SDK client. The user's own `.git` is never read or written;
// commits name tool, path and client; restores bring back exact bytes; a broken history never fails
// a write.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { promises as fsp, existsSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync, mkdirSync } from "node:fs";
import path from "node:path";
import * as git from "isomorphic-git";
import { vaultDataDir } from "../../src/hosts/node/host";
import { EDGE_VAULT, HELP_VAULT, tempVault } from "../support/vaults";
import { callTool, startTestServer, type TestServer } from "../support/server";

const fs = { promises: fsp };
const author = { name: "Vault Owner", email: "owner@example.org" };

/** Every file below a folder with its bytes' hash, size and mtime: equal maps mean nothing changed. */
function snapshot(root: string): Map<string, string> {
  const found = new Map<string, string>();
  const walk = (folder: string): void => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) walk(full);
      else {
        const stats = statSync(full);
        const digest = createHash("sha256").update(readFileSync(full)).digest("hex");
        found.set(path.relative(root, full), `${digest} ${stats.size} ${stats.mtimeMs} ${stats.mode}`);
      }
    }
  };
  walk(root);
  return found;
}

function gitdirOf(server: TestServer, name = "test"): string {
  return path.join(vaultDataDir(server.vault.dataDir, name, server.vault.dir), "history.git");
}

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

test("the user's own .git (index, hook, stash) is byte-identical after 100 tool writes, moves, deletes and restores", async () => {
  const vault = tempVault(EDGE_VAULT);
  // The user's repository: commits, a staged index, a hook, and a stash entry.
  await git.init({ fs, dir: vault.dir, defaultBranch: "main" });
  await git.setConfig({ fs, dir: vault.dir, path: "user.name", value: author.name });
  await git.setConfig({ fs, dir: vault.dir, path: "user.email", value: author.email });
  await git.add({ fs, dir: vault.dir, filepath: "wiki/index.md" });
  await git.commit({ fs, dir: vault.dir, message: "my notes", author });
  writeFileSync(path.join(vault.dir, "wiki/index.md"), `${readFileSync(path.join(vault.dir, "wiki/index.md"), "utf8")}\nwork in progress\n`);
  await git.stash({ fs, dir: vault.dir, op: "push", message: "wip" });
  await git.add({ fs, dir: vault.dir, filepath: "wiki/rate-limiting.md" });
  mkdirSync(path.join(vault.dir, ".git/hooks"), { recursive: true });
  writeFileSync(path.join(vault.dir, ".git/hooks/pre-commit"), "#!/bin/sh\nexit 0\n", { mode: 0o755 });
  assert.ok(existsSync(path.join(vault.dir, ".git/index")), "the user's index exists");
  assert.ok(existsSync(path.join(vault.dir, ".git/refs/stash")), "the user's stash exists");
  const before = snapshot(path.join(vault.dir, ".git"));

  const server = await startTestServer({ fixture: EDGE_VAULT, vault });
  try {
    let created = await server.call("note_create", { path: "wiki/churn.md", content: "start\n", reason: "churn" });
    assert.equal(created.isError, false, created.text);
    let hash = created.structured.content_hash as string;
    for (let i = 0; i < 100; i++) {
      if (i % 20 === 19) {
        const away = await server.call("note_move", { path: "wiki/churn.md", to: "archive/", reason: `move away ${i}` });
        assert.equal(away.isError, false, away.text);
        const back = await server.call("note_move", { path: "archive/churn.md", to: "wiki/", reason: `move back ${i}` });
        assert.equal(back.isError, false, back.text);
      } else if (i % 25 === 24) {
        const removed = await server.call("note_delete", { path: "wiki/churn.md", content_hash: hash, reason: `delete ${i}` });
        assert.equal(removed.isError, false, removed.text);
        created = await server.call("note_create", { path: "wiki/churn.md", content: `again ${i}\n`, reason: `recreate ${i}` });
        hash = created.structured.content_hash as string;
      } else if (i % 10 === 9) {
        const history = await server.call("note_history", { path: "wiki/churn.md", limit: 3 });
        const older = (history.structured.revisions as Array<{ commit: string }>)[2]!.commit;
        const restored = await server.call("note_restore", { path: "wiki/churn.md", revision: older, content_hash: hash });
        assert.equal(restored.isError, false, restored.text);
        hash = restored.structured.content_hash as string;
      } else {
        const written = await server.call("note_write", { path: "wiki/churn.md", content: `version ${i}\n`, content_hash: hash, reason: `write ${i}` });
        assert.equal(written.isError, false, written.text);
        hash = written.structured.content_hash as string;
      }
    }
    const log = await server.call("note_history", { path: "wiki/churn.md", limit: 200 });
    assert.ok((log.structured.revisions as unknown[]).length >= 100, "every write was recorded");
  } finally {
    await server.stop();
  }
  assert.deepEqual(snapshot(path.join(vault.dir, ".git")), before);
  // Git itself still sees the user's repository as the user left it: one commit, one file staged.
  assert.equal((await git.log({ fs, dir: vault.dir })).length, 1);
  assert.deepEqual(
    (await git.statusMatrix({ fs, dir: vault.dir, filepaths: ["wiki/rate-limiting.md"] })).map((row) => row.slice(1)),
    [[0, 2, 2]],
  );
  vault.cleanup();
});

test("note_history names tool, path, reason, the client (Via) and the user; the first start records a baseline", async () => {
  const server = await startTestServer({ fixture: EDGE_VAULT });
  try {
    const client = await server.connect(undefined, "Claude Code");
    const created = await callTool(client, "note_create", { path: "wiki/traced.md", content: "# Traced\n", reason: "a note to trace" });
    assert.equal(created.isError, false, created.text);
    const edited = await callTool(client, "note_section_edit", { path: "wiki/traced.md", heading: "Traced", mode: "append_to_section", content: "More.", reason: "add more" });
    assert.equal(edited.isError, false, edited.text);
    const history = await callTool(client, "note_history", { path: "wiki/traced.md" });
    assert.equal(history.isError, false, history.text);
    const revisions = history.structured.revisions as Array<Record<string, string>>;
    assert.equal(revisions.length, 2);
    assert.equal(revisions[0]!.message, "note_section_edit(append_to_section): wiki/traced.md");
    assert.equal(revisions[0]!.reason, "add more");
    assert.equal(revisions[0]!.via, "Claude Code");
    assert.equal(revisions[0]!.user, "default");
    assert.equal(revisions[1]!.message, "note_create: wiki/traced.md");
    assert.match(revisions[0]!.commit ?? "", /^[0-9a-f]{7}$/);

    // Untouched notes have the baseline version recorded at the first start.
    let baseline: Array<Record<string, string>> = [];
    await until(async () => {
      baseline = (await callTool(client, "note_history", { path: "wiki/index.md" })).structured.revisions as Array<Record<string, string>>;
      return baseline.length > 0;
    }, "the baseline commit");
    assert.match(baseline[0]!.message ?? "", /^initial: \d+ notes$/);

    const diff = await callTool(client, "note_diff", { path: "wiki/traced.md", from: revisions[1]!.commit, to: revisions[0]!.commit });
    assert.equal(diff.isError, false, diff.text);
    assert.match(diff.structured.diff as string, /^\+More\.$/m);
    const same = await callTool(client, "note_diff", { path: "wiki/traced.md", from: revisions[0]!.commit });
    assert.equal(same.structured.message, "(no difference)");

    // The history lives in the data folder, never in the vault.
    assert.ok(existsSync(path.join(gitdirOf(server), "HEAD")));
    assert.equal(existsSync(path.join(server.vault.dir, ".git")), false);
    const listed = await callTool(client, "vault_list", {});
    assert.equal((listed.structured.vaults as Array<{ versioned: boolean }>)[0]!.versioned, true);
  } finally {
    await server.stop();
  }
});

test("every tool write is its own revision, with or without a reason; vault-wide changes keep one summary commit", async () => {
  const server = await startTestServer({ fixture: EDGE_VAULT });
  try {
    const client = await server.connect(undefined, "Plain Writer");
    const ok = (result: { isError: boolean; text: string; structured: Record<string, unknown> }): string => {
      assert.equal(result.isError, false, result.text);
      return result.structured.content_hash as string;
    };
    let hash = ok(await callTool(client, "note_create", { path: "wiki/every.md", content: "# Every\n\n- [ ] first task\n" }));
    hash = ok(await callTool(client, "note_edit", { path: "wiki/every.md", old_string: "first task", new_string: "the first task", content_hash: hash }));
    hash = ok(await callTool(client, "note_section_edit", { path: "wiki/every.md", heading: "Every", mode: "append_to_section", content: "Appended.", content_hash: hash }));
    hash = ok(await callTool(client, "note_frontmatter", { path: "wiki/every.md", set: { status: "draft" }, content_hash: hash }));
    hash = ok(await callTool(client, "task_toggle", { path: "wiki/every.md", text: "the first task", content_hash: hash }));
    ok(await callTool(client, "note_write", { path: "wiki/every.md", content: "# Every\n\nRewritten.\n", content_hash: hash, reason: "start over" }));
    // Each revision holds the bytes that write left: the edit's version has the edited task, not a later one.
    const before = (await callTool(client, "note_history", { path: "wiki/every.md" })).structured.revisions as Array<Record<string, string>>;
    const edited = await callTool(client, "note_diff", { path: "wiki/every.md", from: before[5]!.commit, to: before[4]!.commit });
    assert.equal(edited.isError, false, edited.text);
    assert.match(edited.structured.diff as string, /^\+- \[ \] the first task$/m);
    assert.doesNotMatch(edited.structured.diff as string, /Appended|status/);
    ok(await callTool(client, "note_create", { path: "wiki/pointer.md", content: "See [[wiki/every]].\n" }));
    ok(await callTool(client, "note_move", { path: "wiki/every.md", to: "archive/" }));

    const revisions = (await callTool(client, "note_history", { path: "wiki/every.md" })).structured.revisions as Array<Record<string, string>>;
    assert.deepEqual(
      revisions.map((revision) => [revision.message, revision.reason ?? null]),
      [
        ["note_move: wiki/every.md -> archive/every.md (1 links updated)", null],
        ["note_write: wiki/every.md", "start over"],
        ["task_toggle: wiki/every.md", null],
        ["note_frontmatter: wiki/every.md", null],
        ["note_section_edit(append_to_section): wiki/every.md", null],
        ["note_edit: wiki/every.md", null],
        ["note_create: wiki/every.md", null],
      ],
    );
    assert.ok(revisions.every((revision) => revision.via === "Plain Writer" && revision.user === "default"), JSON.stringify(revisions));
    // The link rewrite of the move is bookkeeping: the linking note has its own write and the move's summary, nothing more.
    const pointer = (await callTool(client, "note_history", { path: "wiki/pointer.md" })).structured.revisions as Array<Record<string, string>>;
    assert.deepEqual(
      pointer.map((revision) => revision.message),
      ["note_move: wiki/every.md -> archive/every.md (1 links updated)", "note_create: wiki/pointer.md"],
    );
  } finally {
    await server.stop();
  }
});

test("note_restore brings back the exact bytes of an old revision (BOM, CRLF) and keeps a trash copy of what it replaces", async () => {
  const server = await startTestServer({ fixture: EDGE_VAULT });
  try {
    const file = path.join(server.vault.dir, "wiki/bom-crlf.md");
    const original = readFileSync(file);
    assert.equal(original[0], 0xef, "the fixture starts with a BOM");
    const read = await server.call("note_read", { path: "wiki/bom-crlf.md" });
    const written = await server.call("note_write", { path: "wiki/bom-crlf.md", content: "replaced\nline two\n", content_hash: read.structured.content_hash, reason: "first edit" });
    assert.equal(written.isError, false, written.text);
    const afterFirst = readFileSync(file);
    const second = await server.call("note_write", { path: "wiki/bom-crlf.md", content: "second\n", content_hash: written.structured.content_hash, reason: "second edit" });
    assert.equal(second.isError, false, second.text);
    const replaced = readFileSync(file);

    const history = await server.call("note_history", { path: "wiki/bom-crlf.md" });
    const revisions = history.structured.revisions as Array<{ commit: string; message: string }>;
    // Newest first: second edit, first edit, baseline (the original bytes).
    let baseline = revisions.find((revision) => revision.message.startsWith("initial:"));
    if (!baseline) {
      await until(async () => {
        const again = (await server.call("note_history", { path: "wiki/bom-crlf.md" })).structured.revisions as Array<{ commit: string; message: string }>;
        baseline = again.find((revision) => revision.message.startsWith("initial:"));
        return baseline !== undefined;
      }, "the baseline commit");
    }
    const dry = await server.call("note_restore", { path: "wiki/bom-crlf.md", revision: baseline!.commit, dry_run: true });
    assert.equal(dry.isError, false, dry.text);
    assert.deepEqual(readFileSync(file), replaced, "a dry run writes nothing");
    const restored = await server.call("note_restore", { path: "wiki/bom-crlf.md", revision: baseline!.commit });
    assert.equal(restored.isError, false, restored.text);
    assert.deepEqual(readFileSync(file), original, "the exact original bytes are back");
    const trash = restored.structured.trash as string;
    assert.deepEqual(readFileSync(path.join(server.vault.dir, trash)), replaced, "the replaced state has its trash copy");

    const toFirst = await server.call("note_restore", { path: "wiki/bom-crlf.md", revision: revisions[1]!.commit });
    assert.equal(toFirst.isError, false, toFirst.text);
    assert.deepEqual(readFileSync(file), afterFirst);
    const newest = (await server.call("note_history", { path: "wiki/bom-crlf.md", limit: 1 })).structured.revisions as Array<{ message: string }>;
    assert.equal(newest[0]!.message, "note_restore(history): wiki/bom-crlf.md");

    const unknown = await server.call("note_restore", { path: "wiki/bom-crlf.md", revision: "0000000" });
    assert.equal(unknown.isError, true);
    assert.match(unknown.text, /note_history/);
  } finally {
    await server.stop();
  }
});

test("a history that breaks never fails a write: it is logged and reported as a warning", async () => {
  const server = await startTestServer({ fixture: EDGE_VAULT });
  try {
    const created = await server.call("note_create", { path: "wiki/fragile.md", content: "one\n", reason: "first" });
    assert.equal(created.isError, false, created.text);
    // The repository becomes unwritable: its object store is replaced by a file.
    const objects = path.join(gitdirOf(server), "objects");
    rmSync(objects, { recursive: true, force: true });
    writeFileSync(objects, "not a folder");
    const written = await server.call("note_write", { path: "wiki/fragile.md", content: "two\n", content_hash: created.structured.content_hash, reason: "second" });
    assert.equal(written.isError, false, written.text);
    assert.equal(readFileSync(path.join(server.vault.dir, "wiki/fragile.md"), "utf8"), "two\n");
    const warnings = written.structured.warnings as string[];
    assert.ok(warnings.some((warning) => /not recorded in history/.test(warning)), JSON.stringify(warnings));
    assert.ok(server.logs.some((line) => line.includes('"event":"history_commit_failed"')), "the failure is logged");
  } finally {
    await server.stop();
  }
});

test("a vault whose history cannot be opened keeps working and says why (versioned: false)", async () => {
  const vault = tempVault(EDGE_VAULT);
  const gitdir = path.join(vaultDataDir(vault.dataDir, "test", vault.dir), "history.git");
  mkdirSync(path.dirname(gitdir), { recursive: true });
  writeFileSync(gitdir, "occupied");
  const server = await startTestServer({ fixture: EDGE_VAULT, vault });
  try {
    const listed = await server.call("vault_list");
    const entry = (listed.structured.vaults as Array<{ versioned: boolean; history_unavailable?: string }>)[0]!;
    assert.equal(entry.versioned, false);
    assert.match(entry.history_unavailable ?? "", /not a folder/);
    const created = await server.call("note_create", { path: "wiki/plain.md", content: "still works\n", reason: "no history" });
    assert.equal(created.isError, false, created.text);
    const history = await server.call("note_history", { path: "wiki/plain.md" });
    assert.equal(history.isError, true);
    assert.equal((history.structured.error as { code: string }).code, "unsupported");
    assert.match(history.text, /vault_list/);
  } finally {
    await server.stop();
    vault.cleanup();
  }
});

test("a write during the first snapshot does not wait for it: it is queued, says so, and is committed after it", async () => {
  const server = await startTestServer({ fixture: HELP_VAULT, quiet: false });
  try {
    const created = await server.call("note_create", { path: "early.md", content: "written at once\n", reason: "early bird" });
    assert.equal(created.isError, false, created.text);
    const warnings = created.structured.warnings as string[];
    assert.ok(warnings.some((warning) => /first snapshot; this change is queued/.test(warning)), JSON.stringify(warnings));
    const edited = await server.call("note_edit", { path: "early.md", old_string: "at once", new_string: "right after", content_hash: created.structured.content_hash });
    assert.equal(edited.isError, false, edited.text);
    await server.server.historyIdle();
    const revisions = (await server.call("note_history", { path: "early.md" })).structured.revisions as Array<{ message: string; commit: string }>;
    assert.deepEqual(revisions.map((revision) => revision.message), ["note_edit: early.md", "note_create: early.md"]);
    // The queued commits hold each write's own version, not the file as it was when they ran.
    const diff = await server.call("note_diff", { path: "early.md", from: revisions[1]!.commit, to: revisions[0]!.commit });
    assert.match(diff.structured.diff as string, /^-written at once$/m);
    const baseline = (await server.call("note_history", { path: "Home.md" })).structured.revisions as Array<{ message: string }>;
    assert.match(baseline[baseline.length - 1]!.message, /^initial: \d+ notes$/);
  } finally {
    await server.stop();
  }
});
