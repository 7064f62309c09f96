// File-system failures reach the agent as instructive tool errors naming the vault-relative path:
// never the host's absolute path, user name or process id that Node's own messages carry.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, readdirSync } from "node:fs";
import path from "node:path";
import { ToolError } from "../../../src/core/errors";
import { nodeHasher } from "../../../src/hosts/node/services";
import { fsToolError } from "../../../src/hosts/node/fs-errors";
import { FsVault } from "../../../src/hosts/node/fs-vault";
import { FsWriter } from "../../../src/hosts/node/fs-writer";
import { EDGE_VAULT, tempVault, type TempVault } from "../../support/vaults";

let vault: TempVault;
let reader: FsVault;
let writer: FsWriter;

before(() => {
  vault = tempVault(EDGE_VAULT);
  reader = new FsVault(vault.dir);
  writer = new FsWriter(reader, nodeHasher);
});
after(() => {
  chmodSync(path.join(vault.dir, "wiki"), 0o755);
  vault.cleanup();
});

const bytes = new TextEncoder().encode("# A note\n");

/** The error as Node makes it: its message and path name the host's folder and the temp file's pid. */
function nodeError(code: string): Error {
  const where = `/home/alice-example/vaults/work/notes/.sbtmp-${process.pid}-a1b2c3-x.md`;
  return Object.assign(new Error(`${code}: something failed, open '${where}'`), { code, errno: -1, syscall: "open", path: where });
}

function assertHostFree(text: string): void {
  assert.ok(!text.includes(vault.dir) && !text.includes(path.dirname(vault.dir)), `no absolute vault path: ${text}`);
  assert.ok(!text.includes("/home/") && !text.includes("alice-example"), `no host folder or user: ${text}`);
  assert.ok(!new RegExp(`(?<!\\d)${process.pid}(?!\\d)`).test(text), `no process id: ${text}`);
}

test("each file-system error code becomes an instructive tool error with the vault-relative path", () => {
  const expected: Array<[string, string, RegExp]> = [
    ["EACCES", "forbidden", /^permission denied: notes\/x\.md — the server's user may not write this file/],
    ["EPERM", "forbidden", /^permission denied: notes\/x\.md/],
    ["EROFS", "forbidden", /^read-only file system: notes\/x\.md/],
    ["ENAMETOOLONG", "invalid_path", /^name too long: notes\/x\.md — .*255 bytes/],
    ["ENOTDIR", "invalid_path", /^not a folder: a part of notes\/x\.md is a file/],
    ["EISDIR", "invalid_path", /notes\/x\.md is a folder, not a file/],
    ["ENOSPC", "internal", /^no space left/],
    ["EMFILE", "internal", /^the host is busy \(EMFILE\)/],
    ["EIO", "internal", /^the host's file system failed \(EIO\) to write notes\/x\.md/],
  ];
  for (const [code, kind, message] of expected) {
    const mapped = fsToolError(nodeError(code), "notes/x.md", "write");
    assert.ok(mapped instanceof ToolError, code);
    assert.equal(mapped.code, kind, code);
    assert.match(mapped.message, message);
    assert.deepEqual(mapped.details, { path: "notes/x.md", cause: code });
    assertHostFree(JSON.stringify({ message: mapped.message, details: mapped.details }));
  }
  assert.equal((fsToolError(nodeError("ENOSPC"), "n.md", "write", "unknown") as ToolError).state, "unknown");
});

test("a ToolError or an error that is not the file system's passes through unchanged", () => {
  const conflict = new ToolError("conflict", "changed meanwhile");
  assert.equal(fsToolError(conflict, "n.md", "write"), conflict);
  const plain = new RangeError("out of range");
  assert.equal(fsToolError(plain, "n.md", "write"), plain);
});

test("a name over 255 bytes fails as 'name too long' at the port, naming the vault path only", async () => {
  const relative = `notes/${"n".repeat(300)}.md`;
  await assert.rejects(writer.writeFile(relative, bytes, null), (error: unknown) => {
    assert.ok(error instanceof ToolError);
    assert.equal(error.code, "invalid_path");
    assert.match(error.message, /^name too long: notes\/n+\.md/);
    assert.equal(error.details?.cause, "ENAMETOOLONG");
    assertHostFree(error.message);
    return true;
  });
  await assert.rejects(reader.isContained(relative), (error: unknown) => error instanceof ToolError && /^name too long/.test(error.message), "not 'outside the vault'");
  await assert.rejects(reader.readBytes(relative), (error: unknown) => error instanceof ToolError && error.code === "invalid_path");
});

test("a file where a folder is expected (ENOTDIR) is 'not a folder', not 'outside the vault'", async () => {
  assert.equal(await reader.isContained("README.md/child.md"), true, "nothing below a file can lead outside");
  for (const relative of ["README.md/child.md", "README.md/deeper/child.md"]) {
    await assert.rejects(writer.writeFile(relative, bytes, null), (error: unknown) => {
      assert.ok(error instanceof ToolError);
      assert.equal(error.code, "invalid_path");
      assert.equal(error.state, "not_applied");
      assert.match(error.message, new RegExp(`^not a folder: a part of ${relative.replace(/[./]/g, "\\$&")} is a file`));
      assertHostFree(error.message);
      return true;
    });
  }
  await assert.rejects(writer.renameFile("wiki/index.md", "README.md/moved.md"), (error: unknown) => error instanceof ToolError && /^not a folder/.test(error.message));
  assert.ok(!readdirSync(vault.dir).some((name) => name.startsWith(".sbtmp-")), "no temp file is left behind");
});

test("a folder the server may not write (EACCES) is 'permission denied' with the vault path", { skip: process.getuid?.() === 0 ? "runs as root, for whom chmod does not deny access; the mapping itself is tested above" : false }, async () => {
  const folder = path.join(vault.dir, "wiki");
  mkdirSync(path.join(folder, "locked"), { recursive: true });
  chmodSync(path.join(folder, "locked"), 0o500);
  try {
    await assert.rejects(writer.writeFile("wiki/locked/new.md", bytes, null), (error: unknown) => {
      assert.ok(error instanceof ToolError);
      assert.equal(error.code, "forbidden");
      assert.match(error.message, /^permission denied: wiki\/locked\/new\.md — the server's user may not write/);
      assert.equal(error.details?.cause, "EACCES");
      assertHostFree(error.message);
      return true;
    });
  } finally {
    chmodSync(path.join(folder, "locked"), 0o755);
  }
});
