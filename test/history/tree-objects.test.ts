// The history writes its tree objects itself (see GitHistory.writeObject): byte for byte what
// isomorphic-git writes for the same entries, and what git itself reads, in git's order of names.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { promises as fsp } from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { inflateSync } from "node:zlib";
import * as git from "isomorphic-git";
import type { TreeEntry } from "isomorphic-git";
import { commitText } from "../../src/history/git-history";
import { patchTree, sortTree, treeContent, treeImage, type TreeImage } from "../../src/history/tree-image";

const blob = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391";

/** An object's content as isomorphic-git stored it: its loose file inflated, the `type size\0` header cut off. */
function storedContent(gitdir: string, oid: string): Buffer {
  const raw = inflateSync(readFileSync(path.join(gitdir, "objects", oid.slice(0, 2), oid.slice(2))));
  return raw.subarray(raw.indexOf(0) + 1);
}
const tree = "4b825dc642cb6eb9a060e54bf8d69288fbc4904b";

test("tree objects are isomorphic-git's bytes for the same entries: folders sort as if their name ended in '/', names by UTF-8 bytes, astral characters included", async () => {
  const names = ["a.md", "a", "a-b.md", "a0.md", "Zeta.md", "émile.md", "日本.md", "😀 smile.md", "\uFFFD.md", "b"];
  const entries = names.map((name) => (name === "a" || name === "b" ? { mode: "040000", path: name, oid: tree, type: "tree" as const } : { mode: "100644", path: name, oid: blob, type: "blob" as const }));
  const gitdir = mkdtempSync(path.join(os.tmpdir(), "sb-tree-"));
  try {
    await git.init({ fs: { promises: fsp }, gitdir, bare: true });
    for (const order of [entries, [...entries].reverse()]) {
      const expected = await git.writeTree({ fs: { promises: fsp }, gitdir, tree: order.map((entry) => ({ ...entry })) });
      assert.deepEqual(Buffer.from(treeContent(sortTree(order))), storedContent(gitdir, expected));
    }
    const sorted = sortTree(entries).map((entry) => entry.path);
    assert.ok(sorted.indexOf("a-b.md") < sorted.indexOf("a"), "'a-' sorts before the folder 'a/'");
    assert.ok(sorted.indexOf("a") < sorted.indexOf("a0.md"), "the folder 'a/' sorts before 'a0'");
    assert.ok(sorted.indexOf("\uFFFD.md") < sorted.indexOf("😀 smile.md"), "U+FFFD before an astral character, as in UTF-8");
    if (spawnSync("git", ["--version"]).status === 0) {
      const written = spawnSync("git", ["--git-dir", gitdir, "hash-object", "-t", "tree", "--stdin", "-w"], { input: Buffer.from(treeContent(sortTree(entries))) });
      assert.equal(written.status, 0, String(written.stderr));
      const fsck = spawnSync("git", ["--git-dir", gitdir, "fsck", "--strict", written.stdout.toString().trim()], { encoding: "utf8" });
      assert.doesNotMatch(`${fsck.stdout}${fsck.stderr}`, /error|notSorted|badTree/i);
    }
  } finally {
    rmSync(gitdir, { recursive: true, force: true });
  }
});

test("commit objects are isomorphic-git's bytes: time zones east and west, a message with carriage returns and blank lines around it, with and without a parent", async () => {
  const gitdir = mkdtempSync(path.join(os.tmpdir(), "sb-commit-"));
  try {
    await git.init({ fs: { promises: fsp }, gitdir, bare: true });
    const cases = [
      { offset: 0, message: "note_edit: a.md", parent: null },
      { offset: -90, message: "\n\nnote_edit: ü.md\r\n\r\nthe reason\r\n\nVia: Client\n\n\n", parent: "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391" },
      { offset: 300, message: "initial: 3 notes\n", parent: null },
    ];
    for (const { offset, message, parent } of cases) {
      const signature = { name: "Second Brain MCP", email: "secondbrain-mcp@localhost", timestamp: 1_765_000_000, timezoneOffset: offset };
      const expected = await git.writeCommit({ fs: { promises: fsp }, gitdir, commit: { message, tree, parent: parent ? [parent] : [], author: signature, committer: signature } });
      assert.equal(commitText(tree, parent, signature, message), storedContent(gitdir, expected).toString("utf8"));
    }
  } finally {
    rmSync(gitdir, { recursive: true, force: true });
  }
});

test("a tree patched entry by entry equals the tree built whole from the changed entries: files and folders added, replaced, turned into one another and removed, astral names included", () => {
  // A fixed pseudo-random sequence, so a failure repeats.
  let seed = 42;
  const random = (below: number): number => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed % below;
  };
  const names = ["a", "a.md", "a-b.md", "a0.md", "b", "Zeta.md", "émile.md", "日本.md", "😀 smile.md", "\uFFFD.md", ...Array.from({ length: 40 }, (_, at) => `note ${at}.md`)];
  const oid = (at: number): string => at.toString(16).padStart(40, "0");
  const entryOf = (name: string, folder: boolean, version: number): TreeEntry =>
    folder ? { mode: "040000", path: name, oid: oid(version), type: "tree" } : { mode: "100644", path: name, oid: oid(version), type: "blob" };
  let current = new Map<string, TreeEntry>();
  let image: TreeImage = treeImage([]);
  for (let round = 1; round <= 400; round++) {
    const updates = new Map<string, TreeEntry | null>();
    // Mostly one change a commit, as writes make them; now and then many, or all removed.
    const count = round % 97 === 0 ? names.length : round % 13 === 0 ? 1 + random(12) : 1;
    for (let change = 0; change < count; change++) {
      const name = names[random(names.length)]!;
      updates.set(name, round % 97 === 0 || random(5) === 0 ? null : entryOf(name, random(4) === 0, round * 100 + change));
    }
    image = patchTree(image, updates);
    const next = new Map(current);
    for (const [name, entry] of updates) {
      if (entry) next.set(name, entry);
      else next.delete(name);
    }
    current = next;
    const whole = treeImage([...current.values()]);
    assert.deepEqual(image.entries.map((entry) => entry.path), whole.entries.map((entry) => entry.path), `round ${round}: order`);
    assert.deepEqual(Buffer.from(image.content), Buffer.from(whole.content), `round ${round}: content`);
    assert.deepEqual([...image.offsets], [...whole.offsets], `round ${round}: offsets`);
  }
  assert.ok(image.entries.length > 0);
});
