// Two processes with one history (several `serve --stdio` of one vault, one per client): each commit
// of each is on the branch, none moved over by the other's. Two GitHistory instances here stand for
// the two processes: each has its own commit queue and nothing in memory in common.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, promises as fsp, rmSync, utimesSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { GitHistory } from "../../src/history/git-history";
import { within } from "../support/poll";

const clock = { now: () => Date.now() };
const encoder = new TextEncoder();

test("two histories of one folder committing at once: every commit either made is on the branch, with its own version", async () => {
  const base = mkdtempSync(path.join(os.tmpdir(), "sb-shared-branch-"));
  const dir = path.join(base, "vault");
  const gitdir = path.join(base, "history.git");
  mkdirSync(dir, { recursive: true });
  try {
    const open = (): Promise<GitHistory> => GitHistory.open({ vault: "v", dir, gitdir, fs: fsp, logger: { log: () => undefined }, clock });
    const [first, second] = [await open(), await open()];
    const made = new Map<string, { file: string; text: string }>();
    const writer = async (history: GitHistory, name: string): Promise<void> => {
      for (let n = 0; n < 40; n++) {
        const file = `${name}/note ${n % 3}.md`;
        const text = `${name} version ${n}\n`;
        const id = await history.commit([file], `note_edit: ${file}`, { tool: "note_edit" }, new Map([[file, encoder.encode(text)]]));
        assert.ok(id, `${name} commit ${n}`);
        made.set(id, { file, text });
      }
    };
    await Promise.all([writer(first, "first"), writer(second, "second")]);
    await Promise.all([first.idle(), second.idle()]);
    const reader = await open();
    const onBranch = new Set((await reader.log(null, 1000)).map((entry) => entry.id));
    const lost = [...made.keys()].filter((id) => !onBranch.has(id));
    assert.deepEqual(lost, [], `${lost.length} of ${made.size} commits are not on the branch`);
    for (const [id, { file, text }] of made) assert.equal(new TextDecoder().decode((await reader.readAt(file, id))!), text);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});

test("the branch lock: a commit waits while another process holds it, and takes over one a crashed process left", async () => {
  const base = mkdtempSync(path.join(os.tmpdir(), "sb-branch-lock-"));
  const dir = path.join(base, "vault");
  const gitdir = path.join(base, "history.git");
  mkdirSync(dir, { recursive: true });
  try {
    const history = await GitHistory.open({ vault: "v", dir, gitdir, fs: fsp, logger: { log: () => undefined }, clock });
    const lock = path.join(gitdir, "secondbrain-branch-lock");
    const commit = (n: number): Promise<string | null> => history.commit([`a.md`], `note_edit: a.md`, { tool: "note_edit" }, new Map([["a.md", encoder.encode(`version ${n}\n`)]]));
    assert.ok(await commit(0));
    // Held by another process: the commit finishes only after that one lets go.
    writeFileSync(lock, "");
    let releasedAt = 0;
    const waiting = commit(1).then((id) => ({ id, at: Date.now() }));
    setTimeout(() => {
      releasedAt = Date.now();
      rmSync(lock);
    }, 300);
    const done = await waiting;
    assert.ok(done.id);
    assert.ok(releasedAt > 0 && done.at >= releasedAt, "the commit waited for the lock");
    // Left by a process that crashed a minute ago: taken over.
    writeFileSync(lock, "");
    const minuteAgo = new Date(Date.now() - 60_000);
    utimesSync(lock, minuteAgo, minuteAgo);
    assert.ok(await commit(2));
    assert.equal(existsSync(lock), false, "let go after the commit");
    assert.equal((await history.log("a.md", 10)).length, 3);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});

test("a server's history keeps the branch lock: a process sharing its folder is refused at once, commits chain on the known branch, and a lost or left lock is handled", async () => {
  const base = mkdtempSync(path.join(os.tmpdir(), "sb-kept-lock-"));
  const dir = path.join(base, "vault");
  const gitdir = path.join(base, "history.git");
  mkdirSync(dir, { recursive: true });
  const events: string[] = [];
  const open = (exclusive: boolean): Promise<GitHistory> =>
    GitHistory.open({ vault: "v", dir, gitdir, fs: fsp, logger: { log: (entry) => void events.push(String(entry.event)) }, clock, ...(exclusive ? { exclusive: true } : {}) });
  const commit = (history: GitHistory, file: string, n: number): Promise<string | null> =>
    history.commit([file], `note_edit: ${file}`, { tool: "note_edit" }, new Map([[file, encoder.encode(`version ${n}\n`)]]));
  const lock = path.join(gitdir, "secondbrain-branch-lock");
  try {
    const server = await open(true);
    assert.ok(existsSync(lock), "kept from the open on");
    const made: string[] = [];
    for (let n = 0; n < 5; n++) made.push((await commit(server, "a.md", n))!);
    const stdio = await open(false);
    const started = Date.now();
    await assert.rejects(commit(stdio, "b.md", 0), /server with the same data folder keeps this vault's history; connect this client to that server over HTTP/);
    assert.ok(Date.now() - started < 5_000, "refused at once, not after the 30 s a group's lock is waited for");
    // Lost (taken over as a stalled holder's): the server notices at its next renewal and locks each group again.
    rmSync(lock);
    await within(10_000, "the lost lock is noticed", () => events.includes("history_branch_lock_lost"));
    made.push((await commit(stdio, "b.md", 1))!);
    made.push((await commit(server, "a.md", 5))!);
    made.push((await commit(stdio, "b.md", 2))!);
    await server.close();
    await stdio.close();
    const reader = await open(false);
    const onBranch = new Set((await reader.log(null, 100)).map((entry) => entry.id));
    assert.deepEqual(made.filter((id) => !onBranch.has(id)), [], "every commit of both is on the branch");
    assert.equal((await reader.log("a.md", 10)).length, 6);
    // Left by a server killed a moment ago: the next server, holding the data folder, takes it over at once.
    writeFileSync(lock, JSON.stringify({ kept_by: "a server holding the vault's data folder" }));
    const next = await open(true);
    assert.ok(await commit(next, "a.md", 6));
    await next.close();
    assert.equal(existsSync(lock), false, "let go at close");
    assert.ok(await commit(reader, "b.md", 3), "a process sharing the folder commits once the server is gone");
    await reader.close();
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});
