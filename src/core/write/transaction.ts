// Vault-wide changes as transactions (SPEC §9). note_move, note_merge, note_split, tag_rename and
// vault_replace change many files; a crash between two of them used to leave the vault half changed.
// Before the first file is touched, the whole plan (every file with its bytes before and after, or the
// rename) is saved durably in a journal outside the vault. Each step is recognisable from the file's
// current hash (before, after, or neither), so no progress record is needed: a start after a crash
// finishes the plan when every file is still as planned, or puts back what was written from the
// journal's copies, and never overwrites a file someone changed after us.
import { ToolError } from "../errors";
import type { Clock, HistoryMeta, Logger, TransactionStore } from "../ports";

export type TransactionStep =
  /** `before` null: the file is created. */
  | { kind: "write"; path: string; before: Uint8Array | null; after: Uint8Array }
  | { kind: "remove"; path: string; before: Uint8Array }
  | { kind: "rename"; from: string; to: string };

export interface TransactionPlan {
  tool: string;
  /** The summary commit's subject, e.g. `tag_rename: #a -> #b (402 notes)`. */
  subject: string;
  meta: HistoryMeta;
  /** What the summary commit records. */
  commitPaths: readonly string[];
  steps: readonly TransactionStep[];
}

export interface TransactionOutcome {
  /** Trash copy of each changed file's previous bytes, by the path it has after the change. */
  trash: Map<string, string>;
  /** Notes the host's rename rewrote differently than planned (Obsidian's own link updates): their bytes now. */
  rewrittenByHost: Map<string, Uint8Array>;
  warnings: string[];
}

export interface RecoveryReport {
  operation: string;
  /**
   * `completed`: rolled forward to the after-state; `rolled_back`: put back to the before-state;
   * `unreadable`/`failed`: left as found, the journal kept for the next start.
   */
  outcome: "completed" | "rolled_back" | "unreadable" | "failed";
  /** Files in the plan. */
  files: number;
  /** ISO time of the recovery. */
  at: string;
  /** Files changed by someone else since: left as they are, so they may be neither before nor after. */
  conflicts?: string[];
}

/** What the runner needs from the write path; every call runs under the write lock the caller holds. */
export interface TransactionIO {
  /** The file's bytes, null when there is none. */
  read(path: string): Promise<Uint8Array | null>;
  hash(bytes: Uint8Array): string;
  /** Keeps a trash copy of `current`, writes atomically (refusing if the file is no longer `current`). */
  write(path: string, bytes: Uint8Array, current: Uint8Array | null): Promise<string | undefined>;
  remove(path: string, current: Uint8Array): Promise<string>;
  rename(from: string, to: string): Promise<void>;
  keepTrashCopy(path: string, bytes: Uint8Array): Promise<string>;
  /** Brings the index up to date with these files; never throws. */
  updateIndex(paths: readonly string[]): Promise<void>;
  /** The summary commit; resolves to warnings, never throws. */
  commit(paths: readonly string[], subject: string, meta: HistoryMeta): Promise<string[]>;
  /** Resolves once commits that were queued behind the history's first snapshot are done. */
  commitsSettled(): Promise<void>;
}

/** Points at which a transaction has made durable progress; a test hook may end the process at one. */
export type TransactionEvent = "journaled" | "step" | "applied" | "committed";

/** The event hook threw: the transaction stops where it is, as if the process had died there. */
class Halted extends Error {
  constructor(override readonly cause: unknown) {
    super("halted by the transaction event hook");
  }
}

export interface TransactionRunnerOptions {
  vault: string;
  store: TransactionStore;
  io: TransactionIO;
  clock: Clock;
  logger: Logger;
  hostRewritesLinks: boolean;
  /** Hears each durable point; if it throws, the transaction stops there without putting anything back (crash tests). */
  onEvent?: (event: TransactionEvent) => void;
}

/**
 * Steps applied at once between renames: each waits mostly on fsyncs (trash copy, temp file, folder),
 * which overlap; one after another, 400 notes took 15-25 s on a busy two-core machine.
 */
const CONCURRENT_STEPS = 8;
const MAGIC = "SBTXN1\n";
const JOURNAL_PREFIX = "txn-";
const LAST_RECOVERY = "last-recovery";
const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

interface BlobRef {
  hash: string;
  at: number;
  length: number;
}

type JournalStep =
  | { kind: "write"; path: string; before: BlobRef | null; after: BlobRef }
  | { kind: "remove"; path: string; before: BlobRef }
  | { kind: "rename"; from: string; to: string };

interface JournalHeader {
  format: 1;
  id: string;
  tool: string;
  subject: string;
  meta: HistoryMeta;
  commit_paths: string[];
  started: number;
  files: number;
  host_rewrites_links: boolean;
  /** `pending`: steps may be partly applied; `applied`: all are, only the summary commit may be missing. */
  state: "pending" | "applied";
  steps: JournalStep[];
}

interface Journal {
  header: JournalHeader;
  steps: TransactionStep[];
}

/** Where a step's file stands: as planned before or after, rewritten by the host's rename, or changed by someone else. */
type StepState = "before" | "after" | "host" | "other";

function filesOf(steps: readonly TransactionStep[]): number {
  const paths = new Set<string>();
  for (const step of steps) {
    if (step.kind === "rename") {
      paths.add(step.from);
      paths.add(step.to);
    } else paths.add(step.path);
  }
  return paths.size;
}

function stepPath(step: TransactionStep): string {
  return step.kind === "rename" ? step.from : step.path;
}

function pathsOf(step: TransactionStep): string[] {
  return step.kind === "rename" ? [step.from, step.to] : [step.path];
}

/** `SBTXN1\n`, the header's length in bytes and a newline, the header as JSON, then every file's bytes. */
export function encodeJournal(header: Omit<JournalHeader, "steps">, steps: readonly TransactionStep[], hash: (bytes: Uint8Array) => string): Uint8Array {
  const blobs: Uint8Array[] = [];
  let offset = 0;
  const ref = (bytes: Uint8Array): BlobRef => {
    const entry = { hash: hash(bytes), at: offset, length: bytes.byteLength };
    blobs.push(bytes);
    offset += bytes.byteLength;
    return entry;
  };
  const journalSteps: JournalStep[] = steps.map((step) => {
    switch (step.kind) {
      case "write":
        return { kind: "write", path: step.path, before: step.before === null ? null : ref(step.before), after: ref(step.after) };
      case "remove":
        return { kind: "remove", path: step.path, before: ref(step.before) };
      case "rename":
        return { kind: "rename", from: step.from, to: step.to };
    }
  });
  const json = encoder.encode(JSON.stringify({ ...header, steps: journalSteps }));
  const head = encoder.encode(`${MAGIC}${json.byteLength}\n`);
  const out = new Uint8Array(head.byteLength + json.byteLength + offset);
  out.set(head, 0);
  out.set(json, head.byteLength);
  let at = head.byteLength + json.byteLength;
  for (const blob of blobs) {
    out.set(blob, at);
    at += blob.byteLength;
  }
  return out;
}

/** The journal, or null when it is not one or any copy it holds does not match its hash. */
export function decodeJournal(bytes: Uint8Array, hash: (bytes: Uint8Array) => string): Journal | null {
  try {
    const magic = encoder.encode(MAGIC);
    if (bytes.byteLength < magic.byteLength || magic.some((byte, index) => bytes[index] !== byte)) return null;
    const newline = bytes.indexOf(0x0a, magic.byteLength);
    if (newline < 0) return null;
    const length = Number(decoder.decode(bytes.subarray(magic.byteLength, newline)));
    if (!Number.isSafeInteger(length) || length <= 0) return null;
    const start = newline + 1;
    const header = JSON.parse(decoder.decode(bytes.subarray(start, start + length))) as JournalHeader;
    if (header.format !== 1 || !Array.isArray(header.steps)) return null;
    const base = start + length;
    const blob = (ref: BlobRef): Uint8Array => {
      const end = base + ref.at + ref.length;
      if (ref.at < 0 || ref.length < 0 || end > bytes.byteLength) throw new Error("a copy lies past the end of the journal");
      const copy = bytes.slice(base + ref.at, end);
      if (hash(copy) !== ref.hash) throw new Error("a copy does not match its hash");
      return copy;
    };
    const steps = header.steps.map((step): TransactionStep => {
      switch (step.kind) {
        case "write":
          return { kind: "write", path: step.path, before: step.before === null ? null : blob(step.before), after: blob(step.after) };
        case "remove":
          return { kind: "remove", path: step.path, before: blob(step.before) };
        case "rename":
          return { kind: "rename", from: step.from, to: step.to };
        default:
          throw new Error("unknown step");
      }
    });
    return { header, steps };
  } catch {
    return null;
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export class TransactionRunner {
  private readonly options: TransactionRunnerOptions;
  private sequence = 0;
  private last: RecoveryReport | null = null;

  constructor(options: TransactionRunnerOptions) {
    this.options = options;
  }

  /** The last recovery at a start of this vault (this one or an earlier one), or null. */
  lastRecovery(): RecoveryReport | null {
    return this.last;
  }

  private hash(bytes: Uint8Array | null): string | null {
    return bytes === null ? null : this.options.io.hash(bytes);
  }

  private event(event: TransactionEvent): void {
    try {
      this.options.onEvent?.(event);
    } catch (error) {
      throw new Halted(error);
    }
  }

  private newName(): string {
    this.sequence += 1;
    const random = Math.floor(Math.random() * 36 ** 6).toString(36);
    return `${JOURNAL_PREFIX}${this.options.clock.now().toString(36)}-${this.sequence.toString(36)}-${random}`;
  }

  /**
   * Where each step stands. A rename not yet made carries its file along: a later step on the new path
   * reads the old one. After a rename by a host that rewrites links itself, a note that is neither as
   * it was nor as planned is the host's work (`host`), not a conflict.
   */
  private async states(steps: readonly TransactionStep[], hostRewritesLinks: boolean): Promise<StepState[]> {
    const states: StepState[] = [];
    const moving = new Map<string, string>();
    let renamed = false;
    for (const step of steps) {
      if (step.kind === "rename") {
        const from = await this.options.io.read(step.from);
        const to = await this.options.io.read(step.to);
        if (from !== null && to === null) {
          states.push("before");
          moving.set(step.to, step.from);
        } else if (from === null && to !== null) {
          states.push("after");
          renamed = true;
        } else states.push("other");
        continue;
      }
      const source = moving.get(step.path);
      const now = this.hash(await this.options.io.read(source ?? step.path));
      const before = this.hash(step.before);
      const after = step.kind === "write" ? this.hash(step.after) : null;
      if (source !== undefined) states.push(now === before ? "before" : "other");
      else if (now === after) states.push("after");
      else if (now === before) states.push("before");
      else if (renamed && hostRewritesLinks && step.kind === "write" && now !== null) states.push("host");
      else states.push("other");
    }
    return states;
  }

  /** Brings one step to its after-state (nothing to do when it is there already); throws a conflict otherwise. */
  private async forward(step: TransactionStep, tolerant: boolean, outcome: TransactionOutcome | null): Promise<void> {
    const io = this.options.io;
    if (step.kind === "rename") {
      const from = await io.read(step.from);
      const to = await io.read(step.to);
      if (from === null && to !== null) return;
      if (from === null || to !== null) throw this.conflict(step.to, to !== null ? `"${step.to}" exists already` : `"${step.from}" is gone`);
      await io.rename(step.from, step.to);
      return;
    }
    const current = await io.read(step.path);
    const now = this.hash(current);
    if (step.kind === "remove") {
      if (current === null) return;
      if (now !== this.hash(step.before)) throw this.conflict(step.path, "it changed");
      const trash = await io.remove(step.path, current);
      outcome?.trash.set(step.path, trash);
      return;
    }
    if (now === this.hash(step.after)) {
      // Made by the host's rename already: the trash still gets the version before it.
      if (outcome && step.before !== null) outcome.trash.set(step.path, await io.keepTrashCopy(step.path, step.before));
      return;
    }
    if (now === this.hash(step.before)) {
      const trash = await io.write(step.path, step.after, current);
      if (trash !== undefined) outcome?.trash.set(step.path, trash);
      return;
    }
    if (tolerant && current !== null) {
      if (outcome) {
        outcome.rewrittenByHost.set(step.path, current);
        if (step.before !== null) outcome.trash.set(step.path, await io.keepTrashCopy(step.path, step.before));
      }
      return;
    }
    throw this.conflict(step.path, current === null ? "it is gone" : "it changed");
  }

  private conflict(path: string, what: string): ToolError {
    return new ToolError("conflict", `"${path}" changed after the change was planned (${what}).`, { details: { path } });
  }

  /**
   * Puts every step in its after-state back, last first; steps still as they were need nothing. Files
   * changed by someone else since (neither state) are left alone and returned.
   */
  private async backward(steps: readonly TransactionStep[], hostRewritesLinks: boolean): Promise<string[]> {
    const states = await this.states(steps, hostRewritesLinks);
    const conflicts: string[] = [];
    const touched: string[] = [];
    try {
      for (let index = steps.length - 1; index >= 0; index--) {
        const step = steps[index]!;
        const state = states[index]!;
        if (state === "before" || state === "host") continue;
        if (state === "other") {
          conflicts.push(stepPath(step));
          continue;
        }
        try {
          await this.undo(step);
          touched.push(...pathsOf(step));
        } catch (error) {
          // Changed between the check and the undo: someone else's now, like the conflicts above.
          if (!(error instanceof ToolError && error.code === "conflict")) throw error;
          conflicts.push(stepPath(step));
        }
      }
    } finally {
      await this.options.io.updateIndex(touched);
    }
    return conflicts.reverse();
  }

  /**
   * Brings every step to its after-state, in order, except that the steps between two renames run a
   * few at a time (they touch different files, and a later step on a renamed path waits for the
   * rename). `started` hears each step begun, so a failure can put back exactly those.
   */
  private async forwardAll(steps: readonly TransactionStep[], tolerant: readonly boolean[], outcome: TransactionOutcome | null, started?: Set<number>): Promise<void> {
    let index = 0;
    while (index < steps.length) {
      let end = index + 1;
      if (steps[index]!.kind !== "rename") while (end < steps.length && steps[end]!.kind !== "rename") end++;
      const touched: string[] = [];
      let next = index;
      let failure: { error: unknown } | null = null;
      const worker = async (): Promise<void> => {
        while (failure === null && next < end) {
          const at = next++;
          started?.add(at);
          try {
            await this.forward(steps[at]!, tolerant[at]!, outcome);
          } catch (error) {
            failure ??= { error };
            return;
          }
          touched.push(...pathsOf(steps[at]!));
          try {
            this.event("step");
          } catch (error) {
            failure ??= { error };
            return;
          }
        }
      };
      try {
        await Promise.all(Array.from({ length: Math.min(CONCURRENT_STEPS, end - index) }, worker));
      } finally {
        await this.options.io.updateIndex(touched);
      }
      if (failure !== null) throw (failure as { error: unknown }).error;
      index = end;
    }
  }

  private async undo(step: TransactionStep): Promise<void> {
    const io = this.options.io;
    if (step.kind === "rename") {
      await io.rename(step.to, step.from);
      return;
    }
    const current = await io.read(step.path);
    if (step.kind === "remove") {
      if (current !== null) throw this.conflict(step.path, "it exists again");
      await io.write(step.path, step.before, null);
      return;
    }
    if (current === null || this.hash(current) !== this.hash(step.after)) throw this.conflict(step.path, "it changed");
    if (step.before === null) await io.remove(step.path, current);
    else await io.write(step.path, step.before, current);
  }

  private tolerance(steps: readonly TransactionStep[], hostRewritesLinks: boolean): boolean[] {
    let renamed = false;
    return steps.map((step) => {
      const tolerant = renamed && hostRewritesLinks && step.kind === "write";
      if (step.kind === "rename") renamed = true;
      return tolerant;
    });
  }

  /** The summary commit, then the journal goes once that commit is in (or has failed, which only warns). */
  private async finish(name: string, header: Omit<JournalHeader, "steps">): Promise<string[]> {
    const { io, store } = this.options;
    // From here on the change is complete: a crash must only add the missing commit, never undo it.
    await store.save(name, encodeJournal({ ...header, state: "applied" }, [], (bytes) => io.hash(bytes)));
    this.event("applied");
    const warnings = await io.commit(header.commit_paths, header.subject, header.meta);
    this.event("committed");
    void io
      .commitsSettled()
      .then(() => store.remove(name))
      .catch((error: unknown) => {
        this.options.logger.log({ level: "warn", event: "transaction_journal_not_removed", vault: this.options.vault, tool: header.tool, reason: errorText(error) });
      });
    return warnings;
  }

  /** Applies the plan as one transaction. Throws a ToolError when it could not; then nothing changed unless it says so. */
  async run(plan: TransactionPlan): Promise<TransactionOutcome> {
    try {
      return await this.apply(plan);
    } catch (error) {
      throw error instanceof Halted ? error.cause : error;
    }
  }

  private async apply(given: TransactionPlan): Promise<TransactionOutcome> {
    const { io, store } = this.options;
    const hostRewritesLinks = this.options.hostRewritesLinks;
    // A write that changes nothing would read as already done, and so as changed since it was planned.
    const plan = { ...given, steps: given.steps.filter((step) => !(step.kind === "write" && step.before !== null && io.hash(step.before) === io.hash(step.after))) };
    const states = await this.states(plan.steps, false);
    const stale = states.findIndex((state) => state !== "before");
    if (stale >= 0) {
      const path = stepPath(plan.steps[stale]!);
      throw new ToolError("conflict", `"${path}" changed after ${plan.tool} was planned; nothing was written. Call ${plan.tool} again.`, {
        state: "not_applied",
        retry: "inspect_state",
        details: { path },
      });
    }
    const name = this.newName();
    const header: Omit<JournalHeader, "steps"> = {
      format: 1,
      id: name,
      tool: plan.tool,
      subject: plan.subject,
      meta: plan.meta,
      commit_paths: [...plan.commitPaths],
      started: this.options.clock.now(),
      files: filesOf(plan.steps),
      host_rewrites_links: hostRewritesLinks,
      state: "pending",
    };
    try {
      await store.save(name, encodeJournal(header, plan.steps, (bytes) => io.hash(bytes)));
    } catch (error) {
      throw new ToolError("internal", `${plan.tool} could not save its journal (${errorText(error)}); nothing was written. Try again once the data folder is writable.`, {
        state: "not_applied",
        retry: "inspect_state",
      });
    }
    this.event("journaled");
    const outcome: TransactionOutcome = { trash: new Map(), rewrittenByHost: new Map(), warnings: [] };
    const tolerant = this.tolerance(plan.steps, hostRewritesLinks);
    const started = new Set<number>();
    try {
      await this.forwardAll(plan.steps, tolerant, outcome, started);
    } catch (error) {
      if (error instanceof Halted) throw error;
      throw await this.abandon(name, plan, started, error);
    }
    outcome.warnings.push(...(await this.finish(name, header)));
    return outcome;
  }

  /** A step failed: the steps begun are put back, and the error says what state the vault is in. */
  private async abandon(name: string, plan: TransactionPlan, started: ReadonlySet<number>, cause: unknown): Promise<ToolError> {
    const path = cause instanceof ToolError && typeof cause.details?.path === "string" ? cause.details.path : stepPath(plan.steps[Math.max(...started)]!);
    const why = errorText(cause);
    const code = cause instanceof ToolError ? cause.code : "internal";
    let conflicts: string[];
    try {
      conflicts = await this.backward(
        plan.steps.filter((_, index) => started.has(index)),
        this.options.hostRewritesLinks,
      );
    } catch (error) {
      this.options.logger.log({ level: "error", event: "transaction_not_undone", vault: this.options.vault, tool: plan.tool, reason: errorText(error) });
      return new ToolError(
        code,
        `${plan.tool} stopped at "${path}" (${why}), and putting back the notes already written failed too (${errorText(error)}). The server completes or undoes the change from its journal at its next start; restart it, then check with note_read.`,
        { state: "unknown", retry: "inspect_state", details: { path } },
      );
    }
    await this.options.store.remove(name).catch(() => undefined);
    // The failing step itself may have failed because someone else changed that file: not ours to report.
    const ours = conflicts.filter((conflict) => conflict !== path);
    if (ours.length > 0) {
      return new ToolError(
        code,
        `${plan.tool} stopped at "${path}" (${why}). The notes already written were put back except ${ours.join(", ")}, which someone changed meanwhile: check them with note_read (their trash copies hold the versions before).`,
        { state: "unknown", retry: "inspect_state", details: { path, conflicts: ours } },
      );
    }
    return new ToolError(code, `${plan.tool} stopped at "${path}" (${why}); the notes already written were put back, so nothing changed. Call ${plan.tool} again.`, {
      state: "not_applied",
      retry: "inspect_state",
      details: { path },
    });
  }

  /**
   * Completes or undoes every journal an earlier run left (call at start, before serving). Rolls
   * forward when every file is as it was or as planned; otherwise puts back what was written.
   */
  async recover(): Promise<RecoveryReport[]> {
    const { io, store, logger } = this.options;
    const reports: RecoveryReport[] = [];
    const names = (await store.list()).filter((name) => name.startsWith(JOURNAL_PREFIX)).sort();
    for (const name of names) {
      const bytes = await store.load(name);
      if (bytes === null) continue;
      const journal = decodeJournal(bytes, (data) => io.hash(data));
      const at = new Date(this.options.clock.now()).toISOString();
      if (journal === null) {
        logger.log({ level: "error", event: "transaction_journal_unreadable", vault: this.options.vault, journal: name });
        reports.push({ operation: "unknown", outcome: "unreadable", files: 0, at });
        continue;
      }
      let report: RecoveryReport;
      try {
        report = await this.complete(name, journal, at);
      } catch (error) {
        // The journal stays: the next start tries again.
        logger.log({ level: "error", event: "transaction_not_recovered", vault: this.options.vault, operation: journal.header.tool, reason: errorText(error) });
        reports.push({ operation: journal.header.tool, outcome: "failed", files: journal.header.files, at });
        continue;
      }
      logger.log({
        level: report.conflicts ? "warn" : "info",
        event: "transaction_recovered",
        vault: this.options.vault,
        operation: report.operation,
        outcome: report.outcome,
        files: report.files,
        ...(report.conflicts ? { conflicts: report.conflicts } : {}),
      });
      reports.push(report);
    }
    if (reports.length > 0) {
      this.last = reports[reports.length - 1]!;
      await store.save(LAST_RECOVERY, encoder.encode(JSON.stringify(this.last))).catch(() => undefined);
    } else {
      this.last = await this.loadLast();
    }
    return reports;
  }

  private async loadLast(): Promise<RecoveryReport | null> {
    try {
      const bytes = await this.options.store.load(LAST_RECOVERY);
      return bytes === null ? null : (JSON.parse(decoder.decode(bytes)) as RecoveryReport);
    } catch {
      return null;
    }
  }

  private async complete(name: string, journal: Journal, at: string): Promise<RecoveryReport> {
    const { header, steps } = journal;
    const report: RecoveryReport = { operation: header.tool, outcome: "completed", files: header.files, at };
    if (header.state === "applied") {
      await this.finish(name, header);
      return report;
    }
    const states = await this.states(steps, header.host_rewrites_links);
    if (!states.includes("other")) {
      const tolerant = this.tolerance(steps, header.host_rewrites_links);
      try {
        await this.forwardAll(steps, tolerant, null);
        await this.finish(name, header);
        return report;
      } catch (error) {
        this.options.logger.log({ level: "warn", event: "transaction_not_completed", vault: this.options.vault, tool: header.tool, reason: errorText(error) });
      }
    }
    const conflicts = await this.backward(steps, header.host_rewrites_links);
    await this.options.store.remove(name);
    report.outcome = "rolled_back";
    if (conflicts.length > 0) report.conflicts = conflicts;
    return report;
  }
}

/** A store that lives as long as the process, for engines built without a host's journal folder (tests). */
export function memoryTransactionStore(): TransactionStore {
  const files = new Map<string, Uint8Array>();
  return {
    save: (name, bytes) => {
      files.set(name, bytes.slice());
      return Promise.resolve();
    },
    load: (name) => Promise.resolve(files.get(name)?.slice() ?? null),
    remove: (name) => {
      files.delete(name);
      return Promise.resolve();
    },
    list: () => Promise.resolve([...files.keys()]),
  };
}
