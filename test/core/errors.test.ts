// What a failure may say of itself in a tool error or a log line: never a path of the host.
import { test } from "node:test";
import assert from "node:assert/strict";
import { describeFailure, ToolError, withoutHostPaths } from "../../src/core/errors";

test("withoutHostPaths takes out POSIX, Windows and file: paths and keeps vault paths, URLs and fractions", () => {
  assert.equal(withoutHostPaths("EACCES: permission denied, open '/home/ada/vault/.sbtmp-4242-ab-x.md'"), "EACCES: permission denied, open '…'");
  assert.equal(withoutHostPaths("cannot read C:\\Users\\ada\\vault\\x.md now"), "cannot read … now");
  assert.equal(withoutHostPaths("see file:///home/ada/x.md"), "see …");
  assert.equal(withoutHostPaths("at /srv/data (root) and /tmp/x"), "at … (root) and …");
  const kept = "notes/a b.md, https://git.example.org/ada/notes.git, 1/2 of it, and / alone";
  assert.equal(withoutHostPaths(kept), kept);
});

test("describeFailure keeps a ToolError's own text and strips host paths from any other error", () => {
  assert.equal(describeFailure(new ToolError("conflict", 'Note "/odd/looking.md" changed')), 'Note "/odd/looking.md" changed');
  assert.equal(describeFailure(new Error("ENOSPC: no space left on device, write '/var/lib/sb/index.snapshot'")), "ENOSPC: no space left on device, write '…'");
  assert.equal(describeFailure("plain /etc/passwd"), "plain …");
});
