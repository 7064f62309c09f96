// Vault-wide changes as transactions (SPEC §9) on a real temp vault through the Node host: a crash at
// any durable point is completed at the next start (with its one summary commit), a change that met
// someone else's edit is put back without touching that edit, and a failure half way undoes itself.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ToolError } from "../../../src/core/errors";
import { decodeJournal, encodeJournal, type TransactionEvent, type TransactionPlan } from "../../../src/core/write/transaction";
import { NodeVaultHost, vaultDataDir } from "../../../src/hosts/node/host";
import { JsonLineLogger } from "../../../src/hosts/node/services";
import { vaultFiles } from "../../support/vaults";
import { within } from "../../support/poll";

const BEFORE: Record<string, string> = {
  "a.md": "# A\n\nSee [[b]] and [[c]].\n",
  "b.md": "# B\n\nThe note that moves.\n",
  "c.md": "# C\n\nOld words.\n",
  "gone.md": "# Gone\n\nRemoved by the change.\n",
  "untouched.md": "# Untouched\n",
};
const AFTER: Record<string, string> = {
  "a.md": "# A\n\nSee [[b2]] and [[c]].\n",
  "moved/b2.md": BEFORE["b.md"]!,
  "c.md": "# C\n\nNew words.\n",
  "new.md": "# New\n\nCreated by the change.\n",
  "untouched.md": BEFORE["untouched.md"]!,
};
const SUBJECT = "test_txn: five files";
/** journaled, one per step, applied, committed. */
const EVENTS = 1 + 5 + 1 + 1;

class Crash extends Error {}

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const hashOf = (data: Uint8Array): string => createHash("sha256").update(data).digest("hex").slice(0, 32);

function plan(overrides: Partial<Record<string, string>> = {}): TransactionPlan {
  const before = (file: string): Uint8Array => bytes(overrides[file] ?? BEFORE[file]!);
  return {
    tool: "test_txn",
    subject: SUBJECT,
    meta: { tool: "test_txn", reason: "transaction test" },
    commitPaths: ["a.md", "b.md", "moved/b2.md", "c.md", "new.md", "gone.md"],
    steps: [
      { kind: "rename", from: "b.md", to: "moved/b2.md" },
      { kind: "write", path: "a.md", before: before("a.md"), after: bytes(AFTER["a.md"]!) },
      { kind: "write", path: "c.md", before: before("c.md"), after: bytes(AFTER["c.md"]!) },
      { kind: "write", path: "new.md", before: null, after: bytes(AFTER["new.md"]!) },
      { kind: "remove", path: "gone.md", before: before("gone.md") },
    ],
  };
}

interface Fixture {
  root: string;
  data: string;
  logs: Array<Record<string, unknown>>;
  open(onEvent?: (event: TransactionEvent) => void, recover?: boolean): Promise<NodeVaultHost>;
  snapshot(): Record<string, string>;
  journals(): string[];
  cleanup(): void;
}

function fixture(): Fixture {
  const base = mkdtempSync(path.join(os.tmpdir(), "sbmcp-txn-"));
  const root = path.join(base, "vault");
  const data = path.join(base, "data");
  for (const [file, text] of Object.entries(BEFORE)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
  const logs: Array<Record<string, unknown>> = [];
  const logger = new JsonLineLogger({ level: "debug", write: (line) => logs.push(JSON.parse(line) as Record<string, unknown>) });
  const journalDir = path.join(vaultDataDir(data, "txn", root), "transactions");
  return {
    root,
    data,
    logs,
    async open(onEvent, recover) {
      const host = new NodeVaultHost({ name: "txn", root, dataDir: data, logger, watch: false, ...(onEvent ? { onTransactionEvent: onEvent } : {}) });
      await host.start(recover === false ? { recover: false } : {});
      await host.historyIdle();
      return host;
    },
    snapshot: () => Object.fromEntries(vaultFiles(root).map((file) => [file, readFileSync(path.join(root, file), "utf8")])),
    journals: () => (existsSync(journalDir) ? readdirSync(journalDir).filter((name) => name.startsWith("txn-") && name.endsWith(".journal")) : []),
    cleanup: () => rmSync(base, { recursive: true, force: true }),
  };
}

function until(condition: () => boolean, what: string): Promise<number> {
  return within(2000, what, condition, 10);
}

/** Dies at the n-th durable event, as a SIGKILL would: nothing after it runs, nothing is put back. */
function crashAt(n: number): (event: TransactionEvent) => void {
  let seen = 0;
  return () => {
    if (++seen === n) throw new Crash(`crash at event ${n}`);
  };
}

async function summaryCommits(host: NodeVaultHost): Promise<number> {
  return (await host.engine.history()!.log(null, 50)).filter((entry) => entry.message.startsWith(SUBJECT)).length;
}

test("the journal keeps every copy with its hash; a damaged copy makes it unreadable", () => {
  const steps = plan().steps;
  const encoded = encodeJournal(
    { format: 1, id: "txn-x", tool: "t", subject: "s", meta: { tool: "t" }, commit_paths: [], started: 1, files: 6, host_rewrites_links: false, state: "pending" },
    steps,
    hashOf,
  );
  const decoded = decodeJournal(encoded, hashOf);
  assert.ok(decoded);
  assert.deepEqual(decoded.steps, steps);
  const damaged = encoded.slice();
  damaged[damaged.length - 3] = damaged[damaged.length - 3]! ^ 0xff;
  assert.equal(decodeJournal(damaged, hashOf), null);
  assert.equal(decodeJournal(encoded.subarray(0, encoded.length - 1), hashOf), null, "a truncated journal");
});

test(`a crash at each of the ${EVENTS} durable points is completed at the next start, with exactly one summary commit`, async () => {
  for (let point = 1; point <= EVENTS; point++) {
    const vault = fixture();
    try {
      const first = await vault.open(crashAt(point));
      await assert.rejects(first.engine.writes.transaction(plan()), Crash);
      await first.stop();
      assert.equal(vault.journals().length, 1, `the journal outlives the crash at event ${point}`);
      const second = await vault.open();
      try {
        assert.deepEqual(vault.snapshot(), AFTER, `crash at event ${point}: the change is complete`);
        assert.equal(await summaryCommits(second), 1, `crash at event ${point}: one summary commit`);
        const recovered = second.engine.lastRecovery();
        assert.deepEqual({ ...recovered, at: undefined }, { operation: "test_txn", outcome: "completed", files: 6, at: undefined });
        const searched = await second.engine.search("created", { limit: 10, offset: 0 });
        assert.deepEqual(searched.hits.map((hit) => hit.path), ["new.md"], "the index follows the recovery");
        await until(() => vault.journals().length === 0, "the journal is removed once the commit is in");
        const logged = vault.logs.find((record) => record.event === "transaction_recovered");
        assert.deepEqual(logged && { operation: logged.operation, outcome: logged.outcome, files: logged.files }, { operation: "test_txn", outcome: "completed", files: 6 });
      } finally {
        await second.stop();
      }
      const third = await vault.open();
      try {
        assert.equal(await summaryCommits(third), 1, "a later start changes nothing");
        assert.equal(third.engine.lastRecovery()?.outcome, "completed", "the last recovery is still reported");
      } finally {
        await third.stop();
      }
    } finally {
      vault.cleanup();
    }
  }
});

test("a crash followed by an edit of a file not yet changed is undone; that edit stays", async () => {
  const vault = fixture();
  try {
    const first = await vault.open(crashAt(3));
    await assert.rejects(first.engine.writes.transaction(plan()), Crash);
    await first.stop();
    writeFileSync(path.join(vault.root, "c.md"), "# C\n\nEdited by someone else.\n");
    const second = await vault.open();
    try {
      assert.deepEqual(vault.snapshot(), { ...BEFORE, "c.md": "# C\n\nEdited by someone else.\n" });
      assert.equal(await summaryCommits(second), 0);
      assert.deepEqual({ ...second.engine.lastRecovery(), at: undefined }, { operation: "test_txn", outcome: "rolled_back", files: 6, conflicts: ["c.md"], at: undefined });
      assert.deepEqual(vault.journals(), []);
    } finally {
      await second.stop();
    }
  } finally {
    vault.cleanup();
  }
});

test("undoing never overwrites an edit made after the change wrote that file", async () => {
  const vault = fixture();
  try {
    const first = await vault.open(crashAt(3));
    await assert.rejects(first.engine.writes.transaction(plan()), Crash);
    await first.stop();
    assert.equal(readFileSync(path.join(vault.root, "a.md"), "utf8"), AFTER["a.md"], "a.md was written before the crash");
    // Someone edits a.md after the crash, and another note is changed too, so the plan cannot finish.
    writeFileSync(path.join(vault.root, "a.md"), "# A\n\nRewritten by hand.\n");
    writeFileSync(path.join(vault.root, "gone.md"), "# Gone\n\nKept and edited.\n");
    const second = await vault.open();
    try {
      assert.deepEqual(vault.snapshot(), { ...BEFORE, "a.md": "# A\n\nRewritten by hand.\n", "gone.md": "# Gone\n\nKept and edited.\n" });
      assert.deepEqual(second.engine.lastRecovery()?.conflicts, ["a.md", "gone.md"]);
      const logged = vault.logs.find((record) => record.event === "transaction_recovered");
      assert.equal(logged?.level, "warn");
      assert.ok(!JSON.stringify(vault.logs).includes("Rewritten by hand"), "no note content in the log");
    } finally {
      await second.stop();
    }
  } finally {
    vault.cleanup();
  }
});

test("a step that meets someone else's edit puts back what was written and says nothing changed", async () => {
  const vault = fixture();
  try {
    let seen = 0;
    const host = await vault.open(() => {
      // Right after the rename, another program edits c.md, which the change has yet to write.
      if (++seen === 2) writeFileSync(path.join(vault.root, "c.md"), "# C\n\nChanged meanwhile.\n");
    });
    try {
      const error = await host.engine.writes.transaction(plan()).then(
        () => assert.fail("expected a conflict"),
        (caught: unknown) => caught,
      );
      assert.ok(error instanceof ToolError);
      assert.equal(error.code, "conflict");
      assert.equal(error.state, "not_applied");
      assert.match(error.message, /c\.md.*put back, so nothing changed\. Call test_txn again/);
      assert.deepEqual(vault.snapshot(), { ...BEFORE, "c.md": "# C\n\nChanged meanwhile.\n" });
      assert.deepEqual(vault.journals(), []);
      assert.equal(await summaryCommits(host), 0);
    } finally {
      await host.stop();
    }
  } finally {
    vault.cleanup();
  }
});

test("a plan whose files changed before it started is refused without a journal or a write", async () => {
  const vault = fixture();
  try {
    const host = await vault.open();
    try {
      await assert.rejects(host.engine.writes.transaction(plan({ "c.md": "# C\n\nWhat the planner saw.\n" })), (error: unknown) => {
        assert.ok(error instanceof ToolError);
        assert.equal(error.code, "conflict");
        assert.equal(error.state, "not_applied");
        assert.match(error.message, /"c\.md" changed after test_txn was planned; nothing was written/);
        return true;
      });
      assert.deepEqual(vault.snapshot(), BEFORE);
      assert.deepEqual(vault.journals(), []);
    } finally {
      await host.stop();
    }
  } finally {
    vault.cleanup();
  }
});

test("an unreadable journal is reported and kept; no file is touched", async () => {
  const vault = fixture();
  try {
    const first = await vault.open(crashAt(1));
    await assert.rejects(first.engine.writes.transaction(plan()), Crash);
    await first.stop();
    const dir = path.join(vaultDataDir(vault.data, "txn", vault.root), "transactions");
    const name = vault.journals()[0]!;
    const damaged = readFileSync(path.join(dir, name));
    damaged[damaged.length - 2] = damaged[damaged.length - 2]! ^ 0xff;
    writeFileSync(path.join(dir, name), damaged);
    const second = await vault.open();
    try {
      assert.deepEqual(vault.snapshot(), BEFORE);
      assert.equal(second.engine.lastRecovery()?.outcome, "unreadable");
      assert.deepEqual(vault.journals(), [name]);
      assert.ok(vault.logs.some((record) => record.event === "transaction_journal_unreadable" && record.level === "error"));
    } finally {
      await second.stop();
    }
  } finally {
    vault.cleanup();
  }
});

test("a start that does not serve (reindex, without the history) leaves the change for the next one, which commits it", async () => {
  const vault = fixture();
  try {
    const first = await vault.open(crashAt(3));
    await assert.rejects(first.engine.writes.transaction(plan()), Crash);
    await first.stop();
    const halfway = vault.snapshot();
    const reindex = await vault.open(undefined, false);
    await reindex.stop();
    assert.deepEqual(vault.snapshot(), halfway);
    assert.equal(vault.journals().length, 1);
    const serving = await vault.open();
    try {
      assert.deepEqual(vault.snapshot(), AFTER);
      assert.equal(await summaryCommits(serving), 1);
    } finally {
      await serving.stop();
    }
  } finally {
    vault.cleanup();
  }
});
