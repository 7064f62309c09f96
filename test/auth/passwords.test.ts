import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { LogRecord } from "../../src/core/ports";
import bcrypt from "bcryptjs";
import { hashPassword, PasswordChecker, passwordKind, passwordSettingProblem, readPasswordReference } from "../../src/auth/passwords";

/** Cost 4, the lowest, keeps the tests quick; the cost is part of the hash. */
const HASH_4 = bcrypt.hashSync("alice's password", 4);

test("a password setting is a bcrypt hash ($2a$, $2b$, $2y$), env:NAME or file:/absolute/path, never a password", () => {
  for (const accepted of ["env:ALICE_PASSWORD", "file:/run/secrets/alice", HASH_4, HASH_4.replace("$2b$", "$2a$"), HASH_4.replace("$2b$", "$2y$")]) {
    assert.equal(passwordSettingProblem(accepted), null, accepted);
  }
  assert.equal(passwordKind(HASH_4), "bcrypt");
  assert.equal(passwordKind("env:X"), "env");
  assert.equal(passwordKind("file:/x"), "file");
  for (const refused of ["hunter2", "correct horse battery staple"]) {
    assert.match(String(passwordSettingProblem(refused)), /plain text is refused.*`secondbrain-mcp hash-password`.*htpasswd -nBC 12/, refused);
  }
  assert.match(String(passwordSettingProblem("env:")), /must name an environment variable/);
  assert.match(String(passwordSettingProblem("env:1BAD")), /must name an environment variable/);
  assert.match(String(passwordSettingProblem("file:relative/path")), /must name an absolute path/);
  for (const broken of [HASH_4.slice(0, -1), HASH_4.replace("$2b$", "$2x$"), HASH_4.replace("$04$", "$4$"), HASH_4.replace("$04$", "$32$")]) {
    assert.match(String(passwordSettingProblem(broken)), /is not a whole bcrypt hash/, broken);
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

test("a bcrypt hash in the config, or in the variable or file a reference names, is compared with bcrypt", async () => {
  const carolHash = await hashPassword("carol's password", 4);
  const checker = new PasswordChecker(
    () => new Map([["alice", HASH_4], ["carol", "env:CAROL"]]),
    { log: () => undefined },
    (reference) => Promise.resolve(reference === "env:CAROL" ? carolHash : null),
  );
  assert.equal(await checker.verify("alice", "alice's password"), true);
  assert.equal(await checker.verify("alice", "alice's passwore"), false);
  assert.equal(await checker.verify("alice", HASH_4), false, "the hash itself is no password");
  assert.equal(await checker.verify("carol", "carol's password"), true);
  assert.equal(await checker.verify("carol", carolHash), false);
  assert.equal(await checker.verify("nobody", "alice's password"), false);
  // htpasswd -B writes $2y$: the same algorithm, accepted as such.
  const htpasswd = new PasswordChecker(() => new Map([["dave", HASH_4.replace("$2b$", "$2y$")]]), { log: () => undefined });
  assert.equal(await htpasswd.verify("dave", "alice's password"), true);
});

test("every check costs one bcrypt comparison: an unknown user, a plain reference and an unreadable one are compared against a dummy at the config's highest cost", async () => {
  const compared: string[] = [];
  const original = bcrypt.compare;
  const hash6 = bcrypt.hashSync("x", 6);
  const counting = (password: string, hash: string): Promise<boolean> => {
    compared.push(hash);
    return original(password, hash);
  };
  (bcrypt as { compare: unknown }).compare = counting;
  try {
    const checker = new PasswordChecker(
      () => new Map([["alice", HASH_4], ["bob", hash6], ["carol", "env:CAROL"], ["erin", "env:ERIN"]]),
      { log: () => undefined },
      (reference) => Promise.resolve(reference === "env:CAROL" ? "carol's password" : null),
    );
    assert.equal(await checker.verify("nobody", "x"), false);
    assert.equal(await checker.verify("carol", "carol's password"), true);
    assert.equal(await checker.verify("erin", ""), false);
    assert.equal(await checker.verify("alice", "alice's password"), true);
    assert.equal(compared.length, 4, "one bcrypt comparison per check");
    const [unknown, plain, unreadable, known] = compared;
    assert.equal(known, HASH_4);
    for (const dummy of [unknown, plain, unreadable]) {
      assert.match(String(dummy), /^\$2b\$06\$[./A-Za-z0-9]{53}$/, "a well-formed dummy at the highest configured cost");
      assert.notEqual(dummy, hash6);
    }
  } finally {
    (bcrypt as { compare: unknown }).compare = original;
  }
});
