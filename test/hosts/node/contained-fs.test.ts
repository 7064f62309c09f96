// A folder swapped for a symbolic link to outside the vault at the worst moments of a read or write:
// after its folder was opened, after the temp file was made, right before the rename. Both ways of
// reaching an open folder are tried: through /proc/self/fd (Linux) and by its real path (elsewhere).
import { afterEach, beforeEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ToolError } from "../../../src/core/errors";
import { contentHash } from "../../../src/core/notes/hash";
import type { Hasher } from "../../../src/core/ports";
import { OutsideVaultError, procFdWorks } from "../../../src/hosts/node/contained-fs";
import { FsVault } from "../../../src/hosts/node/fs-vault";
import { FsWriter } from "../../../src/hosts/node/fs-writer";
import { nodeHasher } from "../../../src/hosts/node/services";

const INSIDE = "# Inside\n";
const OUTSIDE = "# Outside, private\n";

let base: string;
let root: string;
let outside: string;

beforeEach(() => {
  base = mkdtempSync(path.join(os.tmpdir(), "sbmcp-contained-"));
  root = path.join(base, "vault");
  outside = path.join(base, "outside");
  mkdirSync(path.join(root, "a"), { recursive: true });
  mkdirSync(path.join(outside, "a"), { recursive: true });
  writeFileSync(path.join(root, "a", "note.md"), INSIDE);
  writeFileSync(path.join(outside, "a", "note.md"), OUTSIDE);
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

/** vault/a moves to vault/a-moved and a link to outside/a takes its place. */
function swap(): void {
  renameSync(path.join(root, "a"), path.join(root, "a-moved"));
  symlinkSync(path.join(outside, "a"), path.join(root, "a"));
}

function assertOutsideUntouched(): void {
  assert.deepEqual(readdirSync(path.join(outside, "a")), ["note.md"], "nothing was made outside");
  assert.equal(readFileSync(path.join(outside, "a", "note.md"), "utf8"), OUTSIDE, "the outside note is unchanged");
}

const outsideRefusal = (error: unknown): boolean => error instanceof OutsideVaultError || (error instanceof ToolError && error.code === "invalid_path" && /leads outside the vault/.test(error.message));

for (const proc of [true, false]) {
  describe(proc ? "through /proc/self/fd" : "by real paths", { skip: proc && !procFdWorks() ? "no /proc/self/fd here" : false }, () => {
    const vaultOf = (): FsVault => new FsVault(root, "v", { proc });

    test("swapped after the folder was opened, before the temp file: nothing is written outside", async () => {
      const vault = vaultOf();
      const folder = vault.contained.openFolder(path.join(root, "a"));
      try {
        swap();
        if (proc) {
          // The open folder is the one that moved: the write lands there, inside.
          const temp = await vault.contained.createTemp(folder);
          await temp.handle.writeFile("# New\n");
          await temp.handle.close();
          folder.recheck();
          await fs.rename(temp.path, folder.at("note.md"));
          assert.equal(readFileSync(path.join(root, "a-moved", "note.md"), "utf8"), "# New\n");
        } else {
          // The temp file lands outside through the link: seen, removed again, refused.
          await assert.rejects(vault.contained.createTemp(folder), outsideRefusal);
        }
      } finally {
        folder.close();
      }
      assertOutsideUntouched();
    });

    test("swapped after the temp file was made, before the rename: the rename never reaches outside", async () => {
      const vault = vaultOf();
      const folder = vault.contained.openFolder(path.join(root, "a"));
      try {
        const temp = await vault.contained.createTemp(folder);
        await temp.handle.writeFile("# New\n");
        await temp.handle.close();
        swap();
        if (proc) {
          folder.recheck();
          await fs.rename(temp.path, folder.at("note.md"));
          assert.equal(readFileSync(path.join(root, "a-moved", "note.md"), "utf8"), "# New\n");
        } else {
          assert.throws(() => folder.recheck(), OutsideVaultError);
          // Even unchecked, the rename finds no temp file through the link: it fails, it does not write outside.
          await assert.rejects(fs.rename(temp.path, folder.at("note.md")), (error: { code?: string }) => error.code === "ENOENT");
        }
      } finally {
        folder.close();
      }
      assertOutsideUntouched();
    });

    test("a write whose folder is swapped between its hash check and its rename writes nothing outside", async () => {
      const vault = vaultOf();
      // The hash check right before the rename is where the swap happens.
      let swapped = false;
      const swapping: Hasher = {
        sha256Hex(bytes) {
          if (!swapped) {
            swapped = true;
            swap();
          }
          return nodeHasher.sha256Hex(bytes);
        },
      };
      const writer = new FsWriter(vault, swapping);
      const expected = contentHash(new TextEncoder().encode(INSIDE), (bytes) => nodeHasher.sha256Hex(bytes));
      const write = writer.writeFile("a/note.md", new TextEncoder().encode("# Edited\n"), expected);
      if (proc) {
        await write;
        assert.equal(readFileSync(path.join(root, "a-moved", "note.md"), "utf8"), "# Edited\n");
      } else {
        await assert.rejects(write, outsideRefusal);
      }
      assert.ok(swapped);
      assertOutsideUntouched();
    });

    test("swapped after the folder was opened, before the read: the outside note is never read", async () => {
      const vault = vaultOf();
      const folder = vault.contained.openFolder(path.join(root, "a"));
      try {
        swap();
        if (proc) {
          const { fd } = vault.contained.openRead(folder, "note.md");
          assert.equal(readFileSync(fd, "utf8"), INSIDE);
        } else {
          assert.throws(() => vault.contained.openRead(folder, "note.md"), OutsideVaultError);
        }
      } finally {
        folder.close();
      }
      // Read by its path now, it leads outside: refused.
      await assert.rejects(vault.readBytes("a/note.md"), outsideRefusal);
      assert.equal(await vault.stat("a/note.md"), null);
    });

    test("folders are made one level at a time, never through a link that leads outside", async () => {
      const vault = vaultOf();
      symlinkSync(outside, path.join(root, "out"));
      symlinkSync(path.join(root, "a"), path.join(root, "alias"));
      const writer = new FsWriter(vault, nodeHasher);
      const bytes = new TextEncoder().encode("x\n");
      await assert.rejects(writer.writeFile("out/made/note.md", bytes, null), outsideRefusal);
      assert.equal(existsSync(path.join(outside, "made")), false);
      await assert.rejects(writer.writeHidden("out/.hidden/copy.md", bytes), outsideRefusal);
      assert.equal(existsSync(path.join(outside, ".hidden")), false);
      // A link that stays inside is followed.
      await writer.writeFile("alias/made/note.md", bytes, null);
      assert.equal(readFileSync(path.join(root, "a", "made", "note.md"), "utf8"), "x\n");
      assertOutsideUntouched();
    });

    test("a note that is a link to outside is neither read, listed, replaced nor deleted", async () => {
      const vault = vaultOf();
      symlinkSync(path.join(outside, "a", "note.md"), path.join(root, "leak.md"));
      const writer = new FsWriter(vault, nodeHasher);
      await assert.rejects(vault.readBytes("leak.md"), outsideRefusal);
      assert.equal(await vault.stat("leak.md"), null);
      assert.ok(!(await vault.listFiles()).some((file) => file.path === "leak.md"));
      assert.ok(!(await vault.scanFiles(async () => undefined)).some((file) => file.path === "leak.md"));
      const hash = contentHash(new TextEncoder().encode(OUTSIDE), (bytes) => nodeHasher.sha256Hex(bytes));
      await assert.rejects(writer.removeFile("leak.md", hash), outsideRefusal);
      assertOutsideUntouched();
    });
  });
}
