// The history's packs: what git itself verifies and reads (git verify-pack, git cat-file, git fsck),
// and what isomorphic-git reads, with deltas of tree and note versions against their newer neighbour.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { promises as fsp } from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { deflateSync } from "node:zlib";
import fc from "fast-check";
import * as git from "isomorphic-git";
import { applyDelta, crc32, deltaOf, encodePack, type PackInput, type PackObjectType } from "../../src/history/pack";
import { sortTree, treeContent } from "../../src/history/tree-image";

const codecs = {
  deflate: (bytes: Uint8Array): Promise<Uint8Array> => Promise.resolve(new Uint8Array(deflateSync(bytes))),
  sha1: (bytes: Uint8Array): string => createHash("sha1").update(bytes).digest("hex"),
};

function objectId(type: PackObjectType, content: Uint8Array): string {
  return createHash("sha1").update(`${type} ${content.length}\0`).update(content).digest("hex");
}

function input(type: PackObjectType, content: Uint8Array | string, base?: number): PackInput {
  const bytes = typeof content === "string" ? new TextEncoder().encode(content) : content;
  return { oid: objectId(type, bytes), type, content: bytes, ...(base === undefined ? {} : { base }) };
}

function gitRun(gitdir: string, args: string[], stdin?: string): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync("git", ["--git-dir", gitdir, ...args], { encoding: "utf8", input: stdin, maxBuffer: 64 * 1024 * 1024 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

test("a delta copies what two versions share and rebuilds the newer one; CRC-32 is ISO 3309's", () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 3000 }), fc.uint8Array({ maxLength: 300 }), fc.nat(), fc.nat(), (base, inserted, cutAt, cutLength) => {
      const from = base.length === 0 ? 0 : cutAt % base.length;
      const to = Math.min(base.length, from + (cutLength % 400));
      const target = new Uint8Array([...base.subarray(0, from), ...inserted, ...base.subarray(to)]);
      const delta = deltaOf(base, target);
      if (delta === null) return target.length - (base.length - (to - from)) > 0;
      assert.deepEqual(applyDelta(base, delta), target);
      return true;
    }),
    { numRuns: 300 },
  );
  // A copy longer than 0x10000 bytes, and one of exactly 0x10000 (written without size bytes).
  for (const size of [0x10000, 0x10000 + 7, 0x30000]) {
    const base = new Uint8Array(size).map((_, at) => at % 251);
    const target = new Uint8Array([...base, 1, 2, 3]);
    assert.deepEqual(applyDelta(base, deltaOf(base, target)!), target);
  }
  assert.equal(crc32(new TextEncoder().encode("123456789")), 0xcbf43926);
  assert.throws(() => applyDelta(new Uint8Array(3), Uint8Array.from([4, 1, 0x91, 0, 2])), /another base/);
});

test("a pack of commits, trees and notes with deltas against their newer versions is what git verifies and reads, and isomorphic-git reads", async () => {
  const gitdir = mkdtempSync(path.join(os.tmpdir(), "sb-pack-"));
  try {
    await git.init({ fs: { promises: fsp }, gitdir, bare: true });
    // Ten versions of a folder of 300 notes, one note changed a version, newest first as compaction lays them out.
    const entries: PackInput[] = [];
    const names = Array.from({ length: 300 }, (_, n) => `note ${n}.md`);
    let tree: Array<{ mode: string; path: string; oid: string; type: "blob" | "tree" }> = [];
    const versions: Array<{ tree: PackInput; blob: PackInput }> = [];
    for (let version = 0; version < 10; version++) {
      const blob = input("blob", `# Note\n\n${"line of text\n".repeat(200)}version ${version}\n`);
      tree = names.map((name, n) => ({ mode: "100644", path: name, oid: n === 7 ? blob.oid : objectId("blob", new TextEncoder().encode(name)), type: "blob" as const }));
      versions.push({ tree: input("tree", treeContent(sortTree(tree))), blob });
    }
    versions.reverse();
    for (const [at, { tree: treeEntry, blob }] of versions.entries()) {
      const previous = at === 0 ? undefined : entries.length;
      entries.push({ ...treeEntry, ...(previous === undefined ? {} : { base: previous - 2 }) });
      entries.push({ ...blob, ...(previous === undefined ? {} : { base: previous - 1 }) });
    }
    const commit = input("commit", `tree ${versions[0]!.tree.oid}\nauthor A <a@b> 1700000000 +0000\ncommitter A <a@b> 1700000000 +0000\n\nnewest\n`);
    entries.unshift(commit);
    for (const entry of entries) if (entry.base !== undefined) entry.base += 1;
    for (const name of names) if (name !== "note 7.md") entries.push(input("blob", name));

    const encoded = await encodePack(entries, codecs);
    const loose = entries.reduce((sum, entry) => sum + deflateSync(entry.content).length, 0);
    assert.ok(encoded.pack.length < loose / 4, `the pack is ${encoded.pack.length} bytes against ${loose} loose`);
    mkdirSync(path.join(gitdir, "objects", "pack"), { recursive: true });
    writeFileSync(path.join(gitdir, "objects", "pack", `pack-${encoded.name}.pack`), encoded.pack);
    writeFileSync(path.join(gitdir, "objects", "pack", `pack-${encoded.name}.idx`), encoded.index);

    const verified = gitRun(gitdir, ["verify-pack", "-v", path.join(gitdir, "objects", "pack", `pack-${encoded.name}.idx`)]);
    assert.equal(verified.status, 0, verified.stderr);
    assert.match(verified.stdout, /chain length = 9: 2 objects/, "each path's oldest version lies 9 deltas from its newest");
    // git's own index of the same pack is byte for byte ours.
    const indexed = gitRun(gitdir, ["index-pack", "-o", path.join(gitdir, "git-made.idx"), path.join(gitdir, "objects", "pack", `pack-${encoded.name}.pack`)]);
    assert.equal(indexed.status, 0, indexed.stderr);
    assert.deepEqual(await fsp.readFile(path.join(gitdir, "git-made.idx")), Buffer.from(encoded.index));
    const fsck = gitRun(gitdir, ["fsck", "--strict", "--no-dangling"]);
    assert.equal(fsck.status, 0, fsck.stderr);

    for (const entry of entries) {
      const shown = spawnSync("git", ["--git-dir", gitdir, "cat-file", entry.type, entry.oid]);
      assert.equal(shown.status, 0, String(shown.stderr));
      assert.deepEqual(new Uint8Array(shown.stdout), entry.content, `git reads ${entry.type} ${entry.oid}`);
      const where = { fs: { promises: fsp }, gitdir, oid: entry.oid, cache: {} };
      if (entry.type === "blob") assert.deepEqual((await git.readBlob(where)).blob, entry.content, `isomorphic-git reads blob ${entry.oid}`);
      if (entry.type === "tree") assert.deepEqual(treeContent(sortTree((await git.readTree(where)).tree)), entry.content, `isomorphic-git reads tree ${entry.oid}`);
      if (entry.type === "commit") assert.equal((await git.readCommit(where)).commit.tree, versions[0]!.tree.oid, `isomorphic-git reads commit ${entry.oid}`);
    }
  } finally {
    rmSync(gitdir, { recursive: true, force: true });
  }
});

test("a base after its delta, or an object twice, is refused before anything is written", async () => {
  const first = input("blob", "one\n");
  await assert.rejects(encodePack([{ ...first, base: 0 }], codecs), /does not come before it/);
  await assert.rejects(encodePack([first, first], codecs), /twice/);
});
