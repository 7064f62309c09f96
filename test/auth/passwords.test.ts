import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { LogRecord } from "../../src/core/ports";
import { PasswordChecker, passwordReferenceProblem, readPasswordReference } from "../../src/auth/passwords";

test("a password reference is env:NAME or file:/absolute/path, never a password", () => {
  assert.equal(passwordReferenceProblem("env:ALICE_PASSWORD"), null);
  assert.equal(passwordReferenceProblem("file:/run/secrets/alice"), null);
  for (const refused of ["hunter2", "env:", "env:1BAD", "file:relative/path", "$2b$12$abcdefghijklmnopqrstuuABCDEFGHIJKLMNOPQRSTUVWXYZ01234"]) {
    assert.match(String(passwordReferenceProblem(refused)), /must be env:NAME .* or file:\/absolute\/path/, refused);
  }
});

test("references read the variable or the file without its trailing newline; a missing one reads as nothing", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "sbm-password-"));
  try {
    writeFileSync(path.join(dir, "alice"), "from a file\n");
    assert.equal(await readPasswordReference(`file:${path.join(dir, "alice")}`), "from a file");
    assert.equal(await readPasswordReference(`file:${path.join(dir, "missing")}`), null);
    assert.equal(await readPasswordReference("env:PW", { PW: "from env" }), "from env");
    assert.equal(await readPasswordReference("env:PW", {}), null);
    assert.equal(await readPasswordReference("env:PW", { PW: "" }), null);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the checker accepts the right password only, for a user that has one, and logs a missing secret by the kind of its reference only", async () => {
  const logs: LogRecord[] = [];
  const secrets: Record<string, string> = { "env:ALICE": "alice's password" };
  const read: string[] = [];
  const checker = new PasswordChecker(
    () => new Map([["alice", "env:ALICE"], ["bob", "env:BOB"]]),
    { log: (record) => void logs.push(record) },
    (reference) => {
      read.push(reference);
      return Promise.resolve(secrets[reference] ?? null);
    },
  );
  assert.equal(await checker.verify("alice", "alice's password"), true);
  assert.equal(await checker.verify("alice", "alice's passwore"), false);
  assert.equal(await checker.verify("alice", ""), false);
  assert.equal(await checker.verify("nobody", "alice's password"), false);
  assert.equal(await checker.verify("bob", ""), false, "a secret that cannot be read matches nothing, not even an empty password");
  assert.deepEqual(read, ["env:ALICE", "env:ALICE", "env:ALICE", "env:BOB"]);
  assert.deepEqual(logs.map((record) => [record.event, record.user, record.source]), [["password_unavailable", "bob", "env"]]);
  assert.ok(!JSON.stringify(logs).includes("alice's password"));
});
