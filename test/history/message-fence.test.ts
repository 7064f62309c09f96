// Commit messages (one-line subject, reason, trailers) and the file-system fence that keeps
// isomorphic-git inside the private git directory.
import { test } from "node:test";
import assert from "node:assert/strict";
import { promises as fsp, mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import fc from "fast-check";
import { commitMessage, groupMessage, parseGroupedWrite, parseMessage, SUBJECT_MAX } from "../../src/history/message";
import { FenceError, fenceFs } from "../../src/history/fenced-fs";
import { checkPlacement } from "../../src/history/git-history";

test("a commit message has one subject line of at most 140 characters, the reason, then Via/User trailers", () => {
  const message = commitMessage("note_edit: wiki/x.md", { tool: "note_edit", reason: "fix a typo\nin two lines", via: "Claude Code", user: "alice" });
  assert.equal(message, "note_edit: wiki/x.md\n\nfix a typo in two lines\n\nVia: Claude Code\nUser: alice\n");
  const long = commitMessage(`note_move: ${"a".repeat(300)}`, { tool: "note_move" });
  assert.equal([...long.split("\n")[0]!].length, SUBJECT_MAX);
  assert.ok(long.split("\n")[0]!.endsWith("…"));
});

test("parseMessage reads back what commitMessage wrote, for any subject, reason, client and user", () => {
  const text = fc.string({ minLength: 1, maxLength: 60 }).filter((value) => value.trim() !== "" && !/[\r\n\t]|\s{2}/.test(value) && value === value.trim());
  fc.assert(
    fc.property(text, fc.option(text), fc.option(text), fc.option(text), (subject, reason, via, user) => {
      const meta = { tool: "t", ...(reason ? { reason } : {}), ...(via ? { via } : {}), ...(user ? { user } : {}) };
      const parsed = parseMessage(commitMessage(subject, meta));
      assert.equal(parsed.text, reason ? `${subject}\n\n${reason}` : subject);
      assert.equal(parsed.via, via ?? undefined);
      assert.equal(parsed.user, user ?? undefined);
    }),
  );
});

test("parseGroupedWrite reads back each write of a commit of several, for any path, reason, client and user; a commit of one is not such a commit", () => {
  const text = fc.string({ minLength: 1, maxLength: 60 }).filter((value) => value.trim() !== "" && !/[\r\n\t]|\s{2}/.test(value) && value === value.trim());
  fc.assert(
    fc.property(fc.uniqueArray(text, { minLength: 2, maxLength: 5 }), fc.array(fc.tuple(fc.option(text), fc.option(text), fc.option(text)), { minLength: 5, maxLength: 5 }), (paths, metas) => {
      const writes = paths.map((path, at) => {
        const [reason, via, user] = metas[at]!;
        return { subject: `note_edit: ${path}`, meta: { tool: "note_edit", ...(reason ? { reason } : {}), ...(via ? { via } : {}), ...(user ? { user } : {}) } };
      });
      const message = groupMessage(writes, paths);
      for (const [at, path] of paths.entries()) {
        const [reason, via, user] = metas[at]!;
        const parsed = parseGroupedWrite(message, path);
        assert.ok(parsed, path);
        assert.equal(parsed.text, reason ? `note_edit: ${path}\n\n${reason}` : `note_edit: ${path}`);
        assert.equal(parsed.via, via ?? undefined);
        assert.equal(parsed.user, user ?? undefined);
      }
      assert.equal(parseGroupedWrite(message, `${paths.join("/")}/absent`), null, "no write of a path the commit does not hold");
      assert.equal(parseGroupedWrite(commitMessage(`note_edit: ${paths[0]!}`, { tool: "note_edit" }), paths[0]!), null);
    }),
  );
});

test("the fence lets the history write only in its git directory and read only visible vault files", async () => {
  const base = mkdtempSync(path.join(os.tmpdir(), "sb-fence-"));
  try {
    const dir = path.join(base, "vault");
    const gitdir = path.join(base, "data", "history.git");
    mkdirSync(path.join(dir, ".git"), { recursive: true });
    mkdirSync(gitdir, { recursive: true });
    writeFileSync(path.join(dir, "note.md"), "text");
    writeFileSync(path.join(dir, ".git", "config"), "[core]");
    const fence = fenceFs(fsp, { dir, gitdir });
    const fs = fence.client.promises;
    assert.equal(String(await fs.readFile(path.join(dir, "note.md"), "utf8")), "text");
    await fs.writeFile(path.join(gitdir, "HEAD"), "ref: refs/heads/main\n");
    await assert.rejects(fs.readFile(path.join(dir, ".git", "config")), FenceError);
    await assert.rejects(fs.readFile(path.join(dir, "sub", "..", ".git", "config")), FenceError, "dot segments are applied first");
    await assert.rejects(fs.writeFile(path.join(dir, "note.md"), "changed"), FenceError, "the history never writes the vault");
    await assert.rejects(fs.readdir(path.join(base)), FenceError);
    assert.equal(fence.refusals, 4);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});

test("the git directory may not be the user's .git, a visible vault folder, or around the vault", () => {
  assert.throws(() => checkPlacement("/v", "/v/.git"), /own \.git/);
  assert.throws(() => checkPlacement("/v", "/v/.git/secondbrain"), /own \.git/);
  assert.throws(() => checkPlacement("/v", "/v/history"), /visible folder/);
  assert.throws(() => checkPlacement("/v/inner", "/v"), /would contain the vault/);
  assert.doesNotThrow(() => checkPlacement("/v", "/v/.obsidian/plugins/secondbrain-mcp/history/default.git"));
  assert.doesNotThrow(() => checkPlacement("/v", "/data/vaults/v-123/history.git"));
});
