// A crash between a write and its commit: the history records, before the file is written, which bytes
// the write will leave and the commit it will make. Opened again after the crash, it commits that
// version with the write's own message when the file holds exactly those bytes, and nothing when the
// crash came before the write or the file changed since.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, promises as fsp, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { LogRecord } from "../../src/core/ports";
import { GitHistory } from "../../src/history/git-history";

const clock = { now: () => Date.now() };
const meta = { tool: "note_edit", via: "Crash Client", user: "ada" };

interface Setup {
  base: string;
  dir: string;
  gitdir: string;
  logs: LogRecord[];
  open(): Promise<GitHistory>;
}

async function setup(): Promise<Setup & { history: GitHistory }> {
  const base = mkdtempSync(path.join(os.tmpdir(), "sb-intent-"));
  const dir = path.join(base, "vault");
  const gitdir = path.join(base, "data", "history.git");
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, "a.md"), "version one\n");
  const logs: LogRecord[] = [];
  const open = (): Promise<GitHistory> => GitHistory.open({ vault: "v", dir, gitdir, fs: fsp, logger: { log: (entry) => logs.push(entry) }, clock });
  const history = await open();
  assert.ok(await history.commit(["a.md"], "note_create: a.md", { tool: "note_create" }));
  return { base, dir, gitdir, logs, open, history };
}

/** The history as it stands after a crash: the first instance is dropped without closing, a new one opened and left to finish its start. */
async function afterCrash(context: Setup): Promise<GitHistory> {
  const reopened = await context.open();
  await reopened.idle();
  return reopened;
}

async function subjects(history: GitHistory, file: string): Promise<string[]> {
  return (await history.log(file, 10)).map((entry) => entry.message);
}

test("a write whose commit a crash prevented is committed at the next start, with its own message, reason and trailers", async () => {
  const context = await setup();
  try {
    const bytes = new TextEncoder().encode("version two\n");
    await context.history.intend("a.md", bytes, "note_edit: a.md", { ...meta, reason: "fix the typo" });
    writeFileSync(path.join(context.dir, "a.md"), bytes);
    // The process dies here: no commit.
    const reopened = await afterCrash(context);
    const [newest] = await reopened.log("a.md", 1);
    assert.equal(newest!.message, "note_edit: a.md\n\nfix the typo");
    assert.equal(newest!.via, "Crash Client");
    assert.equal(newest!.user, "ada");
    assert.deepEqual(await reopened.readAt("a.md", newest!.id), bytes);
    assert.deepEqual(await subjects(reopened, "a.md"), ["note_edit: a.md\n\nfix the typo", "note_create: a.md"]);
    assert.ok(context.logs.some((entry) => entry.event === "history_write_recovered"));
    assert.equal(existsSync(path.join(context.gitdir, "secondbrain-intent.json")), false, "the record is gone once handled");
    // A second start finds nothing left to do.
    await afterCrash(context);
    assert.equal((await reopened.log("a.md", 10)).length, 2);
  } finally {
    rmSync(context.base, { recursive: true, force: true });
  }
});

test("a deletion whose commit a crash prevented is committed at the next start", async () => {
  const context = await setup();
  try {
    await context.history.intend("a.md", null, "note_delete: a.md", { tool: "note_delete" });
    rmSync(path.join(context.dir, "a.md"));
    const reopened = await afterCrash(context);
    const [newest] = await reopened.log("a.md", 1);
    assert.equal(newest!.message, "note_delete: a.md");
    assert.equal(await reopened.readAt("a.md", newest!.id), null);
  } finally {
    rmSync(context.base, { recursive: true, force: true });
  }
});

test("a crash before the file was written, or a file changed since, commits nothing in the write's name", async () => {
  const context = await setup();
  try {
    // The crash came before the write: the file still holds version one, which the history has.
    await context.history.intend("a.md", new TextEncoder().encode("never written\n"), "note_edit: a.md", meta);
    let reopened = await afterCrash(context);
    assert.deepEqual(await subjects(reopened, "a.md"), ["note_create: a.md"]);

    // Written, then changed by someone else before the next start: those bytes are not the write's.
    await reopened.intend("a.md", new TextEncoder().encode("the write's version\n"), "note_edit: a.md", meta);
    writeFileSync(path.join(context.dir, "a.md"), "someone else's version\n");
    reopened = await afterCrash(context);
    assert.deepEqual(await subjects(reopened, "a.md"), ["note_create: a.md"]);
    assert.equal(existsSync(path.join(context.gitdir, "secondbrain-intent.json")), false);
  } finally {
    rmSync(context.base, { recursive: true, force: true });
  }
});

test("a write committed as usual leaves nothing to recover", async () => {
  const context = await setup();
  try {
    const bytes = new TextEncoder().encode("version two\n");
    await context.history.intend("a.md", bytes, "note_edit: a.md", meta);
    writeFileSync(path.join(context.dir, "a.md"), bytes);
    assert.ok(await context.history.commit(["a.md"], "note_edit: a.md", meta));
    const reopened = await afterCrash(context);
    assert.deepEqual(await subjects(reopened, "a.md"), ["note_edit: a.md", "note_create: a.md"]);
  } finally {
    rmSync(context.base, { recursive: true, force: true });
  }
});

test("writes of several notes whose commits a crash prevented are all committed at the next start, oldest first, each its own revision", async () => {
  const context = await setup();
  try {
    const encoder = new TextEncoder();
    // Commits run after the write lock is released, so more than one write can be waiting for its commit.
    await context.history.intend("a.md", encoder.encode("a two\n"), "note_edit: a.md", meta);
    writeFileSync(path.join(context.dir, "a.md"), "a two\n");
    await context.history.intend("b.md", encoder.encode("b one\n"), "note_create: b.md", { tool: "note_create" });
    writeFileSync(path.join(context.dir, "b.md"), "b one\n");
    const reopened = await afterCrash(context);
    const all = await reopened.log(null, 10);
    assert.deepEqual(
      all.map((entry) => entry.message),
      ["note_create: b.md", "note_edit: a.md", "note_create: a.md"],
    );
    assert.equal(new TextDecoder().decode((await reopened.readAt("a.md", all[1]!.id))!), "a two\n");
    assert.equal(await reopened.readAt("b.md", all[1]!.id), null, "b.md came in its own, later revision");
    assert.equal(existsSync(path.join(context.gitdir, "secondbrain-intent.json")), false);
  } finally {
    rmSync(context.base, { recursive: true, force: true });
  }
});

test("commits asked for together are written as one group: each write its own revision in order, the branch moved once per group", async () => {
  const context = await setup();
  try {
    const refWrites: string[] = [];
    const counting = {
      ...fsp,
      open: (file: string, flags: string) => {
        if (/refs[\\/]heads[\\/]main\.sb[0-9a-z]+\.lock$/.test(file)) refWrites.push(file);
        return fsp.open(file, flags);
      },
    } as typeof fsp;
    await context.history.close();
    const history = await GitHistory.open({ vault: "v", dir: context.dir, gitdir: context.gitdir, fs: counting, logger: { log: () => undefined }, clock });
    const encoder = new TextEncoder();
    const versions = Array.from({ length: 12 }, (_, index) => `version ${index + 2}\n`);
    const ids = await Promise.all(versions.map((text) => history.commit(["a.md"], "note_edit: a.md", meta, new Map([["a.md", encoder.encode(text)]]))));
    assert.equal(new Set(ids).size, versions.length, "every write is its own commit");
    const log = await history.log("a.md", 20);
    assert.deepEqual(log.slice(0, versions.length).map((entry) => entry.id), [...ids].reverse(), "in the order asked");
    for (const [index, id] of ids.entries()) assert.equal(new TextDecoder().decode((await history.readAt("a.md", id!))!), versions[index]);
    assert.ok(refWrites.length >= 1 && refWrites.length <= 2, `the branch moved ${refWrites.length} times for ${versions.length} commits`);
  } finally {
    rmSync(context.base, { recursive: true, force: true });
  }
});

test("writes of different notes asked for together are one commit, yet each note's history lists its own write with its own message, reason and trailers; a second write of a note is a revision of its own", async () => {
  const context = await setup();
  try {
    const encoder = new TextEncoder();
    const history = context.history;
    // Asked for at once, with the queue idle: one group of five.
    const first = history.commit(["a.md"], "note_edit: a.md", meta, new Map([["a.md", encoder.encode("a two\n")]]));
    const writes = [
      { path: "notes/b.md", text: "b one\n", meta: { tool: "note_create", via: "Client B", user: "bob", reason: "Via: not a trailer, a reason" } },
      { path: "notes/c: d.md", text: "c one\n", meta: { tool: "note_create", via: "Client C", user: "cy" } },
      { path: "a.md", text: "a three\n", meta: { tool: "note_edit", via: "Client A", user: "ada", reason: "the second write of a.md" } },
      { path: "notes/e.md", text: "e one\n", meta: { tool: "note_create" } },
    ];
    const ids = await Promise.all([first, ...writes.map((write) => history.commit([write.path], `${write.meta.tool}: ${write.path}`, write.meta, new Map([[write.path, encoder.encode(write.text)]])))]);
    assert.ok(ids[0] === ids[1] && ids[1] === ids[2], "a, b and c, of different notes, are one commit");
    assert.notEqual(ids[2], ids[3], "a second write of a.md starts a new commit");
    assert.equal(ids[3], ids[4], "e joins the commit of a.md's second write");
    assert.equal(new Set(ids).size, 2, "two commits for five writes");

    const entry = async (file: string): Promise<{ message: string; via?: string; user?: string }> => {
      const [latest] = await history.log(file, 1);
      return { message: latest!.message, ...(latest!.via !== undefined ? { via: latest!.via } : {}), ...(latest!.user !== undefined ? { user: latest!.user } : {}) };
    };
    assert.deepEqual(await entry("notes/b.md"), { message: "note_create: notes/b.md\n\nVia: not a trailer, a reason", via: "Client B", user: "bob" });
    assert.deepEqual(await entry("notes/c: d.md"), { message: "note_create: notes/c: d.md", via: "Client C", user: "cy" });
    assert.deepEqual(await entry("notes/e.md"), { message: "note_create: notes/e.md" });
    const aLog = await history.log("a.md", 10);
    assert.deepEqual(
      aLog.map((item) => item.message),
      ["note_edit: a.md\n\nthe second write of a.md", "note_edit: a.md", "note_create: a.md"],
      "every write of a.md is a revision of its own",
    );
    assert.equal(new TextDecoder().decode((await history.readAt("a.md", ids[0]!))!), "a two\n");
    assert.equal(new TextDecoder().decode((await history.readAt("a.md", ids[3]!))!), "a three\n");
    for (const [at, write] of writes.entries()) assert.equal(new TextDecoder().decode((await history.readAt(write.path, ids[at + 1]!))!), write.text);
    const [group] = await history.log(null, 1);
    assert.match(group!.message, /^2 writes: a\.md, notes\/e\.md\n/, "the whole history names the commit by its writes");
  } finally {
    await context.history.close();
    rmSync(context.base, { recursive: true, force: true });
  }
});

test("two writes of a note whose commits a crash prevented are both committed at the next start, the first from the blob stored before the second was recorded", async () => {
  const context = await setup();
  try {
    const encoder = new TextEncoder();
    await context.history.intend("a.md", encoder.encode("two\n"), "note_edit: a.md", { ...meta, reason: "first" });
    writeFileSync(path.join(context.dir, "a.md"), "two\n");
    // The first write's commit has not run when the second write of the same note is recorded and made.
    await context.history.intend("a.md", encoder.encode("three\n"), "note_edit: a.md", { ...meta, reason: "second" });
    writeFileSync(path.join(context.dir, "a.md"), "three\n");
    await context.history.intend("a.md", encoder.encode("four\n"), "note_edit: a.md", { ...meta, reason: "never written" });
    const reopened = await afterCrash(context);
    const log = await reopened.log("a.md", 10);
    assert.deepEqual(
      log.map((entry) => entry.message),
      ["note_edit: a.md\n\nsecond", "note_edit: a.md\n\nfirst", "note_create: a.md"],
      "both written versions, in order; the third record's bytes never reached the file",
    );
    assert.equal(new TextDecoder().decode((await reopened.readAt("a.md", log[1]!.id))!), "two\n");
    assert.equal(new TextDecoder().decode((await reopened.readAt("a.md", log[0]!.id))!), "three\n");
    // Started again, nothing is committed twice.
    await afterCrash(context);
    assert.equal((await reopened.log("a.md", 10)).length, 3);
  } finally {
    rmSync(context.base, { recursive: true, force: true });
  }
});

test("after a crash that came between a group's commits and the cleanup of its records, nothing is committed twice", async () => {
  const context = await setup();
  try {
    const encoder = new TextEncoder();
    await context.history.intend("a.md", encoder.encode("two\n"), "note_edit: a.md", meta);
    writeFileSync(path.join(context.dir, "a.md"), "two\n");
    const record = path.join(context.gitdir, "secondbrain-intent.json");
    const saved = readFileSync(record);
    await context.history.commit(["a.md"], "note_edit: a.md", meta, new Map([["a.md", encoder.encode("two\n")]]));
    await context.history.idle();
    // The record as it was before the cleanup that the crash prevented.
    writeFileSync(record, saved);
    const reopened = await afterCrash(context);
    assert.deepEqual(await subjects(reopened, "a.md"), ["note_edit: a.md", "note_create: a.md"]);
  } finally {
    rmSync(context.base, { recursive: true, force: true });
  }
});

test("processes that share the history keep their records apart: one still running is left alone, one gone is recovered by the next start of another, a server's start included", async () => {
  const context = await setup();
  try {
    writeFileSync(path.join(context.dir, "b.md"), "b one\n");
    assert.ok(await context.history.commit(["b.md"], "note_create: b.md", { tool: "note_create" }));
    const alive = new Set(["p1", "p2"]);
    const open = (self?: string): Promise<GitHistory> =>
      GitHistory.open({
        vault: "v",
        dir: context.dir,
        gitdir: context.gitdir,
        fs: fsp,
        logger: { log: (entry) => context.logs.push(entry) },
        clock,
        intentOwners: { ...(self ? { self } : {}), running: (owner) => alive.has(owner) },
      });
    const first = await open("p1");
    const second = await open("p2");
    const a = new TextEncoder().encode("a by the first\n");
    const b = new TextEncoder().encode("b by the second\n");
    await first.intend("a.md", a, "note_edit: a.md", { ...meta, via: "First" });
    writeFileSync(path.join(context.dir, "a.md"), a);
    await second.intend("b.md", b, "note_edit: b.md", { ...meta, via: "Second" });
    writeFileSync(path.join(context.dir, "b.md"), b);
    // Both die here, before their commits; the second's process is gone, the first's still runs.
    assert.ok(existsSync(path.join(context.gitdir, "secondbrain-intent.p1.json")));
    assert.ok(existsSync(path.join(context.gitdir, "secondbrain-intent.p2.json")));
    assert.equal(existsSync(path.join(context.gitdir, "secondbrain-intent.json")), false, "no process writes the shared file");
    alive.delete("p2");
    const third = await open("p3");
    await third.idle();
    assert.deepEqual(await subjects(third, "b.md"), ["note_edit: b.md", "note_create: b.md"]);
    assert.equal((await third.log("b.md", 1))[0]!.via, "Second");
    assert.equal(existsSync(path.join(context.gitdir, "secondbrain-intent.p2.json")), false, "the gone process's file is removed once recovered");
    assert.deepEqual(await subjects(third, "a.md"), ["note_create: a.md"], "a running process's record is its own to commit");
    assert.ok(existsSync(path.join(context.gitdir, "secondbrain-intent.p1.json")));
    alive.delete("p1");
    const server = await open();
    await server.idle();
    assert.deepEqual(await subjects(server, "a.md"), ["note_edit: a.md", "note_create: a.md"]);
    assert.deepEqual(await server.readAt("a.md", (await server.log("a.md", 1))[0]!.id), a);
    assert.equal(existsSync(path.join(context.gitdir, "secondbrain-intent.p1.json")), false);
    assert.equal((await server.log("b.md", 10)).length, 2, "recovered once, not again");
    assert.ok(context.logs.some((entry) => entry.event === "history_left_records_recovered"));
  } finally {
    rmSync(context.base, { recursive: true, force: true });
  }
});
