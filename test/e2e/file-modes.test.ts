// A note keeps its permissions through the server's writes: a private note (600) stays private, and
// so does its trash copy; run as root, the server gives a note back to its owner. A note that no one
// may write (444) is refused, not replaced. A server started as another user writes only what that
// user may write, keeping the mode.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, chownSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { startTestServer, type TestServer } from "../support/server";
import { EDGE_VAULT, tempVault } from "../support/vaults";

const asRoot = process.getuid?.() === 0;
const NOBODY = 65534;
let server: TestServer;

before(async () => {
  server = await startTestServer({ fixture: EDGE_VAULT });
});
after(async () => server.stop());

function onDisk(relative: string): string {
  return path.join(server.vault.dir, ...relative.split("/"));
}

function trashCopies(): string[] {
  try {
    return readdirSync(onDisk(".trash/secondbrain"));
  } catch {
    return [];
  }
}

function owner(file: string): { uid: number; gid: number; mode: number } {
  const stats = statSync(file);
  return { uid: stats.uid, gid: stats.gid, mode: stats.mode & 0o777 };
}

test("a private note edited through the server stays private, with its owner (as root), and so does its trash copy", async () => {
  const note = "wiki/private.md";
  writeFileSync(onDisk(note), "# Private\n\nonly for me\n");
  chmodSync(onDisk(note), 0o600);
  if (asRoot) chownSync(onDisk(note), NOBODY, NOBODY);
  const expected = { uid: asRoot ? NOBODY : process.getuid!(), gid: asRoot ? NOBODY : statSync(onDisk(note)).gid, mode: 0o600 };

  const read = await server.call("note_read", { path: note });
  const edited = await server.call("note_edit", { path: note, old_string: "only for me", new_string: "only for me, edited", content_hash: read.structured.content_hash });
  assert.equal(edited.isError, false, edited.text);
  assert.equal(readFileSync(onDisk(note), "utf8"), "# Private\n\nonly for me, edited\n");
  assert.deepEqual(owner(onDisk(note)), expected, "the note");
  const trash = edited.structured.trash as string;
  assert.deepEqual(owner(onDisk(trash)), expected, "its trash copy");

  const deleted = await server.call("note_delete", { path: note });
  assert.equal(deleted.isError, false, deleted.text);
  assert.deepEqual(owner(onDisk(deleted.structured.trash as string)), expected, "the trash copy of the deleted note");
});

test("a read-only note (444) is refused by note_write and note_edit, unchanged and without a trash copy left", async () => {
  const note = "wiki/locked.md";
  const text = "# Locked\n\nhands off\n";
  writeFileSync(onDisk(note), text);
  chmodSync(onDisk(note), 0o444);
  const copies = trashCopies().length;
  const read = await server.call("note_read", { path: note });
  const hash = read.structured.content_hash as string;
  const attempts = [
    await server.call("note_write", { path: note, content: "# Locked\n\nreplaced\n", content_hash: hash }),
    await server.call("note_edit", { path: note, old_string: "hands off", new_string: "hands on", content_hash: hash }),
    await server.call("note_section_edit", { path: note, heading: "Locked", mode: "append_to_section", content: "more" }),
    await server.call("note_delete", { path: note }),
  ];
  for (const result of attempts) {
    assert.equal(result.isError, true, result.text);
    const error = result.structured.error as { code: string; state: string };
    assert.equal(error.code, "forbidden", result.text);
    assert.equal(error.state, "not_applied");
    assert.match(result.text, /read-only file: wiki\/locked\.md — .*Make it writable first/);
  }
  assert.equal(readFileSync(onDisk(note), "utf8"), text);
  assert.equal(statSync(onDisk(note)).mode & 0o777, 0o444);
  assert.equal(trashCopies().length, copies, "each refused write took its trash copy back");
});

test("a server started as another user writes only what that user may write, and keeps the mode", { skip: asRoot ? false : "needs root to start a process as another user" }, () => {
  const vault = tempVault(EDGE_VAULT);
  try {
    // The other user reaches the vault and may make files in its folder.
    chmodSync(path.dirname(vault.dir), 0o755);
    chmodSync(vault.dir, 0o777);
    const wiki = path.join(vault.dir, "shared");
    mkdirSync(wiki, { mode: 0o777 });
    chmodSync(wiki, 0o777);
    const make = (name: string, mode: number, uid: number): string => {
      const file = path.join(wiki, name);
      writeFileSync(file, `# ${name}\n`);
      chownSync(file, uid, uid);
      chmodSync(file, mode);
      return file;
    };
    const open = make("open.md", 0o666, 0);
    const theirs = make("theirs.md", 0o644, 0);
    const locked = make("locked.md", 0o444, NOBODY);
    const mine = make("mine.md", 0o600, NOBODY);
    const steps = [
      { write: "shared/open.md", text: "written\n" },
      { write: "shared/theirs.md", text: "written\n" },
      { write: "shared/locked.md", text: "written\n" },
      { write: "shared/mine.md", text: "written\n" },
      { trash: ".trash/secondbrain/mine-copy.md", copyOf: "shared/mine.md" },
    ];
    mkdirSync(path.join(vault.dir, ".trash", "secondbrain"), { recursive: true });
    chmodSync(path.join(vault.dir, ".trash"), 0o777);
    chmodSync(path.join(vault.dir, ".trash", "secondbrain"), 0o777);
    const script = path.resolve(__dirname, "../support/write-as-user.ts");
    const run = spawnSync(process.execPath, ["--import", "tsx", script, vault.dir, JSON.stringify(steps)], {
      uid: NOBODY,
      gid: NOBODY,
      cwd: path.resolve(__dirname, "../.."),
      encoding: "utf8",
      timeout: 60_000,
    });
    assert.equal(run.status, 0, run.stderr);
    const outcomes = run.stdout.trim().split("\n").map((line) => JSON.parse(line) as { ok?: true; code?: string; message?: string });
    // Writable for everyone: written, the mode kept; the owner becomes the server's user (README).
    assert.deepEqual(outcomes[0], { ok: true });
    assert.equal(readFileSync(open, "utf8"), "written\n");
    assert.deepEqual(owner(open), { uid: NOBODY, gid: NOBODY, mode: 0o666 }, "nobody is not in root's group, so the group is nobody's too");
    // Another user's note this one may only read: refused, where a rename would have replaced it.
    assert.equal(outcomes[1]?.code, "forbidden");
    assert.match(outcomes[1]?.message ?? "", /^permission denied: shared\/theirs\.md — the server's user may not write this file/);
    assert.equal(readFileSync(theirs, "utf8"), "# theirs.md\n");
    assert.deepEqual(owner(theirs), { uid: 0, gid: 0, mode: 0o644 });
    // Its own note without a write bit: read-only.
    assert.equal(outcomes[2]?.code, "forbidden");
    assert.match(outcomes[2]?.message ?? "", /^read-only file: shared\/locked\.md/);
    assert.equal(readFileSync(locked, "utf8"), "# locked.md\n");
    // Its own private note: written, still private, and so is the trash copy.
    assert.deepEqual(outcomes[3], { ok: true });
    assert.deepEqual(owner(mine), { uid: NOBODY, gid: NOBODY, mode: 0o600 });
    assert.deepEqual(outcomes[4], { ok: true });
    assert.deepEqual(owner(path.join(vault.dir, ".trash", "secondbrain", "mine-copy.md")), { uid: NOBODY, gid: NOBODY, mode: 0o600 });
  } finally {
    vault.cleanup();
  }
});
