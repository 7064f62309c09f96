// The headless writer never loses what another program wrote: a write between the server's last
// check and its rename, a write through a handle opened before the rename, another program's own
// atomic save, a file made at a new note's path, a delete or a move racing an edit. Each such write
// is made at the exact step where it is hardest to see, through the writer's step hook. And a file
// keeps its mode (and owner, as root); a read-only one is refused.
import { afterEach, beforeEach, test } from "node:test";
import assert from "node:assert/strict";
import { appendFileSync, chmodSync, chownSync, closeSync, existsSync, openSync, promises, readdirSync, readFileSync, renameSync, statSync, writeFileSync, writeSync } from "node:fs";
import path from "node:path";
import { ToolError } from "../../../src/core/errors";
import { contentHash } from "../../../src/core/notes/hash";
import { FsVault } from "../../../src/hosts/node/fs-vault";
import { FsWriter, type WriteStep } from "../../../src/hosts/node/fs-writer";
import { nodeHasher } from "../../../src/hosts/node/services";
import { EDGE_VAULT, tempVault, type TempVault } from "../../support/vaults";

const NOTE = "wiki/raced.md";
const ORIGINAL = "# Raced\n\nfirst line\n";
const OURS = "# Raced\n\nfirst line\nthe server's line\n";
const encoder = new TextEncoder();
const asRoot = process.getuid?.() === 0;
const NOBODY = 65534;

let vault: TempVault;
let file: string;
/** What the other program does at a step of the next write; cleared after each test. */
let at: Partial<Record<WriteStep, () => void>> = {};
let writer: FsWriter;

function hashOf(text: string): string {
  return contentHash(encoder.encode(text), (bytes) => nodeHasher.sha256Hex(bytes));
}

function read(relative = NOTE): string {
  return readFileSync(path.join(vault.dir, ...relative.split("/")), "utf8");
}

function tempFilesLeft(): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name.startsWith(".sbtmp-")) found.push(path.join(dir, entry.name));
      else if (entry.isDirectory()) walk(path.join(dir, entry.name));
    }
  };
  walk(vault.dir);
  return found;
}

/** Another program's own atomic save: its temp file renamed over the path. */
function saveByRename(target: string, text: string): void {
  const temp = `${target}.editor-save`;
  writeFileSync(temp, text);
  renameSync(temp, target);
}

function isConflict(state: "not_applied" | "unknown", message: RegExp) {
  return (error: unknown): boolean => {
    assert.ok(error instanceof ToolError, String(error));
    assert.equal(error.code, "conflict", error.message);
    assert.equal(error.state, state, error.message);
    assert.match(error.message, message);
    return true;
  };
}

beforeEach(() => {
  vault = tempVault(EDGE_VAULT);
  file = path.join(vault.dir, ...NOTE.split("/"));
  writeFileSync(file, ORIGINAL);
  at = {};
  writer = new FsWriter(new FsVault(vault.dir), nodeHasher, (step) => {
    const act = at[step];
    delete at[step];
    act?.();
  });
});
afterEach(() => {
  assert.deepEqual(tempFilesLeft(), [], "no temp file or second name is left behind");
  vault.cleanup();
});

test("a write with no one else at work replaces the note and leaves no second name behind", async () => {
  const before = statSync(file);
  await writer.writeFile(NOTE, encoder.encode(OURS), hashOf(ORIGINAL));
  assert.equal(read(), OURS);
  assert.notEqual(statSync(file).ino, before.ino, "an atomic write: a new file renamed into place");
});

test("a line appended after the check and before the rename is kept: the other program's version goes back", async () => {
  const ino = statSync(file).ino;
  at.checked = () => appendFileSync(file, "appended after the check\n");
  await assert.rejects(writer.writeFile(NOTE, encoder.encode(OURS), hashOf(ORIGINAL)), isConflict("not_applied", /changed by another program.*back in place.*not applied/));
  assert.equal(read(), `${ORIGINAL}appended after the check\n`);
  assert.equal(statSync(file).ino, ino, "the very file the other program writes to is back");
});

test("a program that opened the note before the rename and writes after it: its bytes are seen and the note is put back", async () => {
  let fd = -1;
  at.checked = () => {
    fd = openSync(file, "a");
  };
  at.swapped = () => {
    writeSync(fd, "written through an old handle\n");
  };
  try {
    await assert.rejects(writer.writeFile(NOTE, encoder.encode(OURS), hashOf(ORIGINAL)), isConflict("not_applied", /back in place/));
    // It keeps writing to the same file, which is the note again.
    writeSync(fd, "and once more\n");
  } finally {
    closeSync(fd);
  }
  assert.equal(read(), `${ORIGINAL}written through an old handle\nand once more\n`);
});

test("lines appended to the server's version before it is put back go on the end of the other program's", async () => {
  let fd = -1;
  at.checked = () => {
    fd = openSync(file, "a");
  };
  at.swapped = () => {
    writeSync(fd, "through the old handle\n");
    appendFileSync(file, "appended by path, to the server's version\n");
  };
  try {
    await assert.rejects(writer.writeFile(NOTE, encoder.encode(OURS), hashOf(ORIGINAL)), isConflict("not_applied", /back in place/));
  } finally {
    closeSync(fd);
  }
  assert.equal(read(), `${ORIGINAL}through the old handle\nappended by path, to the server's version\n`);
});

test("a line another program is still writing to the server's version when it is put back is moved whole", async () => {
  let old = -1;
  let ours = -1;
  at.checked = () => {
    old = openSync(file, "a");
  };
  at.swapped = () => {
    writeSync(old, "through the old handle\n");
    ours = openSync(file, "a");
    writeSync(ours, "appended by path, the first half");
  };
  at.put_back = () => {
    writeSync(ours, " and the second\n");
  };
  try {
    await assert.rejects(writer.writeFile(NOTE, encoder.encode(OURS), hashOf(ORIGINAL)), isConflict("not_applied", /back in place/));
  } finally {
    closeSync(old);
    closeSync(ours);
  }
  assert.equal(read(), `${ORIGINAL}through the old handle\nappended by path, the first half and the second\n`);
});

test("another program's own atomic save after the check is never replaced", async () => {
  at.checked = () => saveByRename(file, "saved by an editor\n");
  await assert.rejects(writer.writeFile(NOTE, encoder.encode(OURS), hashOf(ORIGINAL)), isConflict("not_applied", /changed by someone else/));
  assert.equal(read(), "saved by an editor\n");
});

test("a note made at the path of a new one after the check is never replaced", async () => {
  const fresh = "wiki/fresh.md";
  at.checked = () => writeFileSync(path.join(vault.dir, "wiki", "fresh.md"), "made by someone else\n");
  await assert.rejects(writer.writeFile(fresh, encoder.encode("the server's note\n"), null), isConflict("not_applied", /made by someone else while this write was prepared \(content_hash [0-9a-f]+\); it was left as it is/));
  assert.equal(read(fresh), "made by someone else\n");
});

test("a delete: a program still writing through an old handle after the removal gets its note back", async () => {
  chmodSync(file, 0o640);
  const fd = openSync(file, "a");
  at.swapped = () => {
    writeSync(fd, "written while it was deleted\n");
  };
  try {
    await assert.rejects(writer.removeFile(NOTE, hashOf(ORIGINAL)), isConflict("not_applied", /changed by another program while it was being deleted.*nothing was deleted/));
  } finally {
    closeSync(fd);
  }
  assert.equal(read(), `${ORIGINAL}written while it was deleted\n`);
  assert.equal(statSync(file).mode & 0o777, 0o640, "with its mode");
});

test("a delete: a line still being written when the note is restored comes back whole, and the error gives its hash", async () => {
  const fd = openSync(file, "a");
  at.swapped = () => {
    writeSync(fd, "written while it was deleted, the first half");
  };
  at.put_back = () => {
    writeSync(fd, " and the second\n");
  };
  const whole = `${ORIGINAL}written while it was deleted, the first half and the second\n`;
  try {
    await assert.rejects(writer.removeFile(NOTE, hashOf(ORIGINAL)), (error: unknown) => {
      isConflict("not_applied", /nothing was deleted/)(error);
      assert.equal((error as ToolError).details?.content_hash, hashOf(whole));
      return true;
    });
  } finally {
    closeSync(fd);
  }
  assert.equal(read(), whole);
});

test("a delete: the version checked is removed, one saved at the path meanwhile stays", async () => {
  at.checked = () => writeFileSync(file, "saved after the check\n");
  await writer.removeFile(NOTE, hashOf(ORIGINAL));
  assert.equal(read(), "saved after the check\n");
});

test("a delete of a note changed since it was read is refused, and the note is back whole", async () => {
  appendFileSync(file, "changed\n");
  await assert.rejects(writer.removeFile(NOTE, hashOf(ORIGINAL)), isConflict("not_applied", /changed by someone else/));
  assert.equal(read(), `${ORIGINAL}changed\n`);
});

test("a move: a version saved at the old path while moving stays there, and nothing is moved", async () => {
  at.checked = () => saveByRename(file, "saved while it was moved\n");
  await assert.rejects(writer.renameFile(NOTE, "wiki/moved.md"), isConflict("not_applied", /replaced by another program while it was being moved.*nothing was moved/));
  assert.equal(read(), "saved while it was moved\n");
  assert.equal(existsSync(path.join(vault.dir, "wiki", "moved.md")), false);
});

test("a move with no one else at work keeps the file itself", async () => {
  const ino = statSync(file).ino;
  await writer.renameFile(NOTE, "wiki/moved.md");
  assert.equal(existsSync(file), false);
  assert.equal(statSync(path.join(vault.dir, "wiki", "moved.md")).ino, ino);
});

test("a write keeps the note's mode, and its trash copy has it too", async () => {
  chmodSync(file, 0o600);
  await writer.writeFile(NOTE, encoder.encode(OURS), hashOf(ORIGINAL));
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.equal(await writer.writeHidden(".trash/secondbrain/copy.md", encoder.encode(OURS), NOTE), true);
  assert.equal(statSync(path.join(vault.dir, ".trash", "secondbrain", "copy.md")).mode & 0o777, 0o600);
  chmodSync(file, 0o640);
  await writer.writeFile(NOTE, encoder.encode(ORIGINAL), hashOf(OURS));
  assert.equal(statSync(file).mode & 0o777, 0o640);
  // A new note gets the default mode, as before.
  await writer.writeFile("wiki/new.md", encoder.encode("new\n"), null);
  const reference = path.join(vault.dir, "wiki", "made-by-hand.md");
  writeFileSync(reference, "by hand\n");
  assert.equal(statSync(path.join(vault.dir, "wiki", "new.md")).mode & 0o777, statSync(reference).mode & 0o777);
});

test("a note owned by another user keeps its owner and mode when the server runs as root", { skip: asRoot ? false : "needs root to give a file to another user" }, async () => {
  chmodSync(file, 0o600);
  chownSync(file, NOBODY, NOBODY);
  await writer.writeFile(NOTE, encoder.encode(OURS), hashOf(ORIGINAL));
  const after = statSync(file);
  assert.deepEqual([after.uid, after.gid, after.mode & 0o777], [NOBODY, NOBODY, 0o600]);
  await writer.writeHidden(".trash/secondbrain/copy.md", encoder.encode(OURS), NOTE);
  const copy = statSync(path.join(vault.dir, ".trash", "secondbrain", "copy.md"));
  assert.deepEqual([copy.uid, copy.gid, copy.mode & 0o777], [NOBODY, NOBODY, 0o600]);
});

test("a read-only note (no write bit) is refused, not replaced or deleted, even for root", async () => {
  chmodSync(file, 0o444);
  const refused = (error: unknown): boolean => {
    assert.ok(error instanceof ToolError);
    assert.equal(error.code, "forbidden");
    assert.equal(error.state, "not_applied");
    assert.match(error.message, /^read-only file: wiki\/raced\.md — .*\(444\).*Make it writable first/);
    return true;
  };
  await assert.rejects(writer.writeFile(NOTE, encoder.encode(OURS), hashOf(ORIGINAL)), refused);
  await assert.rejects(writer.removeFile(NOTE, hashOf(ORIGINAL)), refused);
  assert.equal(read(), ORIGINAL);
  assert.equal(statSync(file).mode & 0o777, 0o444);
});

test("without hard links (FAT, some network shares) an old handle holds the file: a late append still comes back", async (t) => {
  // As link() fails there: the writer falls back to its handle and a copy.
  const link = t.mock.method(promises, "link", () => Promise.reject(Object.assign(new Error("operation not permitted"), { code: "EPERM" })));
  chmodSync(file, 0o640);
  let fd = -1;
  at.checked = () => {
    fd = openSync(file, "a");
  };
  at.swapped = () => {
    writeSync(fd, "written through an old handle\n");
  };
  try {
    await assert.rejects(writer.writeFile(NOTE, encoder.encode(OURS), hashOf(ORIGINAL)), isConflict("not_applied", /back in place/));
  } finally {
    closeSync(fd);
  }
  assert.equal(read(), `${ORIGINAL}written through an old handle\n`);
  assert.equal(statSync(file).mode & 0o777, 0o640, "the copy put back has the note's mode");
  at.checked = () => writeFileSync(path.join(vault.dir, "wiki", "fresh.md"), "made by someone else\n");
  await assert.rejects(writer.writeFile("wiki/fresh.md", encoder.encode("the server's note\n"), null), isConflict("not_applied", /changed by someone else/));
  assert.equal(read("wiki/fresh.md"), "made by someone else\n");
  await writer.writeFile(NOTE, encoder.encode(OURS), hashOf(read()));
  assert.equal(read(), OURS);
  await writer.renameFile(NOTE, "wiki/moved.md");
  assert.equal(read("wiki/moved.md"), OURS);
  assert.ok(link.mock.callCount() >= 4, "every step found no hard links");
});
