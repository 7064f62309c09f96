// The one write path (SPEC §8). Every mutation of a note goes through `write` or `remove`, in this
// order: resolve, lock, read, hash check, transform, touch, result, no-change, dry run, trash copy,
// atomic write, index update, history; vault-wide changes `prepare` each note the same way and apply
// them as one `transaction` (SPEC §9). Nothing else in the code base writes a note.
import { visit, type Document } from "yaml";
import { formatMoment } from "../dates-format";
import { describeFailure, ToolError } from "../errors";
import { FRONTMATTER_LIMIT_TEXT, FrontmatterParses, parseFrontmatter, splitFrontmatter, type FrontmatterSplit, type ParsedFrontmatter } from "../notes/frontmatter";
import { contentHash, sameHash } from "../notes/hash";
import { stripSubpath } from "../notes/paths";
import { parseNote } from "../notes/structure";
import type { Clock, FileStat, Hasher, HistoryMeta, Logger, TransactionStore, VaultPort, WritePort } from "../ports";
import { addedLines, unifiedDiff } from "./diff";
import { editFrontmatter, oversizeFrontmatterError } from "./frontmatter-edit";
import { VaultWriteLock } from "./lock";
import { findSecrets } from "./secrets";
import { decodeNote, encodeNote, NEW_NOTE_ENCODING, type NoteEncoding } from "./text";
import { trashPath } from "./trash";
import { memoryTransactionStore, TransactionRunner, type RecoveryReport, type TransactionEvent, type TransactionIO, type TransactionOutcome, type TransactionPlan } from "./transaction";

export interface WriteOperation {
  /** A path already through the resolver (SPEC §6). */
  path: string;
  /** The tool (and mode) asking, for results and history: `note_section_edit(append_to_section)`. */
  tool: string;
  expected_hash?: string;
  dry_run: boolean;
  reason?: string;
  /** `create`: the note must not exist; `update`: it must; `upsert`: either. */
  mode: "create" | "update" | "upsert";
  /**
   * The new text from the current one (LF, no BOM; null when creating). Throw ToolError to refuse.
   * `parses`: frontmatter parsed during this write; pass it on to whatever parses frontmatter, so the
   * write path's own checks do not parse the same YAML again.
   */
  transform(current: string | null, parses: FrontmatterParses): string;
  /** Bookkeeping writes (link rewrites, tag rename, replace, restore) leave created/updated alone. */
  skip_touch?: boolean;
  /**
   * The caller records this write in its own summary commit (vault_create's layout), so the write makes
   * no commit of its own; every other write is one revision in the history.
   */
  summary_commit?: boolean;
  allow_invalid_frontmatter?: boolean;
  /** Who asked, for the history trailers: the MCP client (`clientInfo.name`) and the user. */
  actor?: WriteActor;
  /** Byte form of the result (BOM, CRLF); default: the current file's. A restore brings back its own. */
  encoding?: NoteEncoding;
  /** The path is one the vault held before (a restore): the rules for new names do not apply to it. */
  existing_name?: boolean;
}

/** `queued`: the history is busy with its first snapshot; the commit follows it without the caller waiting. */
export type CommitOutcome = "recorded" | "queued";

const QUEUED_WARNING = "The history is still recording the vault's first snapshot; this change is queued and will be committed right after it.";

export interface WriteActor {
  via?: string;
  user?: string;
}

export interface WriteResult {
  [field: string]: unknown;
  vault: string;
  path: string;
  created: boolean;
  deleted?: boolean;
  dry_run: boolean;
  changed: boolean;
  hash_before: string | null;
  content_hash: string | null;
  bytes: number;
  diff: string;
  trash?: string;
  warnings: string[];
  message: string;
}

export interface WritePathOptions {
  vault: string;
  reader: VaultPort;
  writer: WritePort;
  hasher: Hasher;
  clock: Clock;
  logger: Logger;
  /** Obsidian's link resolution for broken-link warnings. */
  resolveLink(linkpath: string, sourcePath: string): string | null;
  /** Brings the index and metadata up to date after a write; failures only warn. */
  afterWrite(paths: string[]): Promise<void>;
  /** History commit (SPEC §9), when a history is configured; a rejection only warns. */
  commit?(paths: string[], message: string, meta: HistoryMeta, contents?: ReadonlyMap<string, Uint8Array | null>): Promise<CommitOutcome>;
  /** Before the file is written: the history records which bytes the write will leave (HistoryPort.intend). */
  intend?(path: string, bytes: Uint8Array | null, message: string, meta: HistoryMeta): Promise<void>;
  /** Throws a ToolError when a file about to be created would bring a name a Windows machine cannot hold. */
  checkNewPath?(path: string): void;
  /** Resolves once the commits answered with "queued" are done (or have failed). */
  commitsSettled?(): Promise<void>;
  /** Journals of vault-wide changes; without one they live in memory only (tests). */
  transactions?: TransactionStore;
  /** Test hook: hears each durable step of a transaction (see TransactionEvent). */
  onTransactionEvent?(event: TransactionEvent): void;
}

/** A write worked out but not made: the dry run's result and the exact bytes before and after. */
export interface PreparedWrite {
  result: WriteResult;
  /** null: the note does not exist yet. */
  before: Uint8Array | null;
  /** The bytes the write would leave; equal to `before` when nothing changes. */
  after: Uint8Array;
}

interface Planned {
  current: Current;
  result: WriteResult;
  bytes: Uint8Array;
}

interface Current {
  exists: boolean;
  text: string | null;
  bytes: Uint8Array | null;
  hash: string | null;
  encoding: NoteEncoding;
  /** When the existing file came to be, for a `created` it lacks; null when creating. */
  born: number | null;
}

/** Local calendar date, as a user reads `updated: 2026-12-02` in their own time zone. */
export function localDate(ms: number): string {
  return formatMoment(ms, "YYYY-MM-DD");
}

/**
 * When an existing file came to be: its birth time, or its modification time where the file system
 * keeps no birth time (0) or the birth time is later than the last change (a copy that kept the
 * original's modification time is younger on disk than its content).
 */
export function bornAt(stat: FileStat): number | null {
  const birth = stat.ctime > 0 ? stat.ctime : Number.POSITIVE_INFINITY;
  const born = Math.min(birth, stat.mtime > 0 ? stat.mtime : Number.POSITIVE_INFINITY);
  return Number.isFinite(born) ? born : null;
}

function localDateTime(ms: number): string {
  return formatMoment(ms, "YYYY-MM-DD[T]HH:mm:ss");
}

/** Whether `after` (whose split is given) has other frontmatter YAML than `before`. */
function changedFrontmatter(before: string | null, after: string, split: FrontmatterSplit): boolean {
  if (before === null) return true;
  const previous = splitFrontmatter(before);
  if (previous.exists !== split.exists) return true;
  return before.slice(previous.yamlStart, previous.yamlEnd) !== after.slice(split.yamlStart, split.yamlEnd);
}


function aliasCount(document: Document | null): number {
  let count = 0;
  if (document) visit(document, { Alias: () => void count++ });
  return count;
}

/**
 * The alias limit guards readers against alias bombs; a note already over it (200 plain `*name` uses)
 * must stay editable, so only a write that adds aliases is refused for it.
 */
function keepsAliasesAsTheyWere(parsed: ParsedFrontmatter, before: string | null, parses: FrontmatterParses): boolean {
  if (parsed.tooManyAliases !== true || before === null) return false;
  const previous = parseFrontmatter(before, parses);
  return previous.tooManyAliases === true && aliasCount(parsed.document) <= aliasCount(previous.document);
}

export class WritePath {
  private readonly options: WritePathOptions;
  private readonly lock = new VaultWriteLock();
  private readonly transactions: TransactionRunner;

  constructor(options: WritePathOptions) {
    this.options = options;
    this.transactions = new TransactionRunner({
      vault: options.vault,
      store: options.transactions ?? memoryTransactionStore(),
      io: this.transactionIO(),
      clock: options.clock,
      logger: options.logger,
      hostRewritesLinks: options.writer.renameRewritesLinks === true,
      ...(options.onTransactionEvent ? { onEvent: (event: TransactionEvent) => options.onTransactionEvent?.(event) } : {}),
    });
  }

  /** The transaction's file operations, each change with a trash copy first; the caller holds the lock. */
  private transactionIO(): TransactionIO {
    const { reader, writer } = this.options;
    return {
      read: async (path) => {
        if (!(await reader.stat(path))) return null;
        try {
          return await reader.readBytes(path);
        } catch (error) {
          if (error instanceof ToolError && error.code === "not_found") return null;
          throw error;
        }
      },
      hash: (bytes) => this.hash(bytes),
      write: async (path, bytes, current) => {
        const trash = current === null ? undefined : await this.copyToTrash(path, current);
        await writer.writeFile(path, bytes, current === null ? null : this.hash(current));
        return trash;
      },
      remove: async (path, current) => {
        const trash = await this.copyToTrash(path, current);
        await writer.removeFile(path, this.hash(current));
        return trash;
      },
      rename: (from, to) => writer.renameFile(from, to),
      keepTrashCopy: (path, bytes) => this.copyToTrash(path, bytes),
      updateIndex: (paths) => this.updateIndex([...paths], "transaction"),
      commit: (paths, subject, meta) => this.recordSummary(paths, subject, meta),
      commitsSettled: () => this.options.commitsSettled?.() ?? Promise.resolve(),
    };
  }

  private async updateIndex(paths: string[], tool: string): Promise<void> {
    try {
      await this.options.afterWrite(paths);
    } catch (error) {
      this.options.logger.log({ level: "warn", event: "index_update_failed", vault: this.options.vault, tool, reason: error instanceof Error ? error.message : String(error) });
    }
  }

  /**
   * A write of one note, beside writes of other notes (VaultWriteLock). One that creates the note runs
   * alone: a new name is checked against every other (checkNewPath), which a creation beside it could
   * make stale.
   */
  private async oneNote<T>(path: string, work: () => Promise<T>): Promise<T> {
    const beside = await this.lock.note(path, async () => ((await this.options.reader.stat(path)) ? { value: await work() } : null));
    return beside ? beside.value : this.lock.run(work);
  }

  private hash(bytes: Uint8Array): string {
    return contentHash(bytes, (b) => this.options.hasher.sha256Hex(b));
  }

  private async readCurrent(path: string): Promise<Current> {
    const stat = await this.options.reader.stat(path);
    if (!stat) return { exists: false, text: null, bytes: null, hash: null, encoding: NEW_NOTE_ENCODING, born: null };
    const bytes = await this.options.reader.readBytes(path);
    const { text, encoding } = decodeNote(bytes);
    return { exists: true, text, bytes, hash: this.hash(bytes), encoding, born: bornAt(stat) };
  }

  private checkExpectations(op: WriteOperation, current: Current): void {
    if (op.mode === "create" && current.exists) {
      throw new ToolError(
        "conflict",
        `Note "${op.path}" already exists. Read it with note_read and change it with note_edit or note_section_edit, or choose another path (then link it with [[${op.path.replace(/\.md$/, "")}]]).`,
        { retry: "correct_request", details: { path: op.path, content_hash: current.hash } },
      );
    }
    if (!current.exists && (op.mode === "update" || op.expected_hash !== undefined)) {
      throw new ToolError("not_found", `Note "${op.path}" does not exist in vault "${this.options.vault}". Check the path with note_search or note_list, or create it with note_create.`, {
        details: { path: op.path },
      });
    }
    if (op.expected_hash !== undefined && current.hash !== null && !sameHash(op.expected_hash, current.hash)) {
      throw new ToolError(
        "conflict",
        `Note "${op.path}" changed since you read it: content_hash is now ${current.hash}, not ${op.expected_hash}. Read it again with note_read, redo your change on the new text and pass the new content_hash.`,
        { retry: "inspect_state", details: { path: op.path, content_hash: current.hash } },
      );
    }
  }

  /** `born`: when the existing note came to be, its `created` if it has none; null for a new note. */
  private touch(text: string, born: number | null, parses: FrontmatterParses, warnings: string[]): string {
    const creating = born === null;
    const split = splitFrontmatter(text);
    if (!split.exists && !creating) return text;
    const parsed = split.exists ? parseFrontmatter(text, parses) : null;
    if (parsed?.oversize != null) {
      warnings.push(`created/updated were not stamped: the frontmatter is ${parsed.oversize} bytes, over the ${FRONTMATTER_LIMIT_TEXT} limit, so it is left exactly as it is.`);
      return text;
    }
    if (parsed && parsed.data === null) return text;
    const now = this.options.clock.now();
    const data = parsed?.data ?? {};
    const previous = data.updated;
    const stamp = typeof previous === "string" && previous.includes("T") ? localDateTime(now) : localDate(now);
    const changes: Array<{ key: string; value: unknown }> = [];
    if (data.created === undefined) changes.push({ key: "created", value: localDate(born ?? now) });
    changes.push({ key: "updated", value: stamp });
    return editFrontmatter(text, changes, { createIfMissing: true, parses });
  }

  private guard(op: WriteOperation, before: string | null, after: string, parses: FrontmatterParses): string[] {
    const parsed = parseFrontmatter(after, parses);
    // Frontmatter over the limit is never parsed, so it may only stay exactly as it was.
    if (parsed.oversize !== null && changedFrontmatter(before, after, parsed.split)) {
      throw oversizeFrontmatterError(parsed.oversize, { path: op.path, would: true });
    }
    if (
      parsed.split.exists &&
      parsed.oversize === null &&
      parsed.error !== null &&
      !op.allow_invalid_frontmatter &&
      !keepsAliasesAsTheyWere(parsed, before, parses)
    ) {
      throw new ToolError(
        "invalid_argument",
        `The resulting frontmatter of "${op.path}" would not be valid YAML (${parsed.error}). Fix the YAML between the --- lines, or pass allow_invalid_frontmatter: true if that is intended.`,
      );
    }
    const secrets = findSecrets(addedLines(before ?? "", after));
    if (secrets.length > 0) {
      const where = secrets.map((finding) => `line ${finding.line} (${finding.detector})`).join(", ");
      throw new ToolError(
        "forbidden",
        `Refused: the new text contains what looks like a credential at ${where}. Remove it or replace it with a placeholder such as <token>, then call again. Secrets do not belong in notes.`,
        { details: { lines: secrets.map((finding) => finding.line), detectors: secrets.map((finding) => finding.detector) } },
      );
    }
    return this.brokenLinkWarnings(op.path, before, after, parses);
  }

  private brokenLinkWarnings(path: string, before: string | null, after: string, parses: FrontmatterParses): string[] {
    const broken = (text: string | null): Map<string, number> => {
      const found = new Map<string, number>();
      if (text === null) return found;
      const cache = parseNote(text, parses);
      const refs = [...(cache.links ?? []), ...(cache.embeds ?? [])];
      for (const ref of refs) {
        const linkpath = stripSubpath(ref.link);
        if (linkpath === "" || this.options.resolveLink(linkpath, path) !== null) continue;
        if (!found.has(ref.link)) found.set(ref.link, ref.position.start.line + 1);
      }
      for (const ref of cache.frontmatterLinks ?? []) {
        const linkpath = stripSubpath(ref.link);
        if (linkpath !== "" && this.options.resolveLink(linkpath, path) === null && !found.has(ref.link)) found.set(ref.link, 1);
      }
      return found;
    };
    const previously = broken(before);
    const warnings: string[] = [];
    for (const [link, line] of broken(after)) {
      if (!previously.has(link)) warnings.push(`line ${line}: [[${link}]] does not resolve to any file (a new broken link); create the note or fix the link.`);
    }
    return warnings;
  }

  private async copyToTrash(path: string, bytes: Uint8Array): Promise<string> {
    const now = this.options.clock.now();
    for (let attempt = 0; attempt < 1000; attempt++) {
      const target = trashPath(path, now, attempt);
      if (await this.options.writer.writeHidden(target, bytes, path)) return target;
    }
    throw new ToolError("internal", `Could not find a free trash name for "${path}"; nothing was written. Try again.`, { retry: "inspect_state" });
  }

  /**
   * True for a writer's refusal that left the file untouched (a full disk before the rename); the trash
   * copy made for it is removed, since nothing replaced the bytes it holds.
   */
  private async notApplied(error: unknown, trash: string | undefined): Promise<boolean> {
    if (!(error instanceof ToolError) || error.state !== "not_applied") return false;
    if (trash !== undefined) {
      await this.options.writer.removeHidden(trash).catch((reason: unknown) => {
        this.options.logger.log({ level: "warn", event: "trash_copy_not_removed", vault: this.options.vault, path: trash, reason: reason instanceof Error ? reason.message : String(reason) });
      });
    }
    return true;
  }

  /** The history metadata of a write that makes its own commit; null for one a summary commit records. */
  private commitMeta(op: Pick<WriteOperation, "tool" | "reason" | "actor" | "summary_commit">): HistoryMeta | null {
    if (op.summary_commit || !this.options.commit) return null;
    const meta: HistoryMeta = { tool: op.tool };
    if (op.reason !== undefined && op.reason !== "") meta.reason = op.reason;
    if (op.actor?.via !== undefined) meta.via = op.actor.via;
    if (op.actor?.user !== undefined) meta.user = op.actor.user;
    return meta;
  }

  /** The trash copy (when there is an old version) and the history's record, side by side; a failed trash copy refuses the write once the record is done. */
  private async beforeChange(trash: Promise<string> | undefined, intent: Promise<void>): Promise<string | undefined> {
    const [copied] = await Promise.allSettled([trash, intent]);
    if (copied.status === "rejected") throw copied.reason;
    return copied.value;
  }

  /**
   * Tells the history which bytes the write is about to leave, before they are written, so a crash
   * before the commit does not lose this version. A failure only logs: the commit that follows
   * reports its own.
   */
  private async intend(op: WriteOperation | { path: string; tool: string; reason?: string; actor?: WriteActor }, bytes: Uint8Array | null): Promise<void> {
    const meta = this.commitMeta(op);
    if (!meta || !this.options.intend) return;
    try {
      await this.options.intend(op.path, bytes, `${op.tool}: ${op.path}`, meta);
    } catch (error) {
      this.options.logger.log({ level: "warn", event: "history_intent_failed", vault: this.options.vault, tool: op.tool, path: op.path, reason: describeFailure(error) });
    }
  }

  /**
   * `bytes`: what the write left at `op.path` (null: deleted), committed as it is even if the file
   * changes meanwhile. Called under the write lock, it asks for the commit there, so commits keep the
   * order of the writes, and hands back its completion: the caller awaits it after releasing the lock,
   * so the next write runs while this one's commit is written, and commits that wait together are
   * written as one group.
   */
  private async finish(op: WriteOperation, paths: string[], warnings: string[], bytes: Uint8Array | null): Promise<{ recorded: Promise<void> }> {
    try {
      await this.options.afterWrite(paths);
    } catch (error) {
      warnings.push(`The search index could not be updated (${describeFailure(error)}); it will catch up on the next reconcile.`);
    }
    const meta = this.commitMeta(op);
    if (!meta || !this.options.commit) return { recorded: Promise.resolve() };
    const recorded = this.options.commit(paths, `${op.tool}: ${op.path}`, meta, new Map([[op.path, bytes]])).then(
      (outcome) => {
        if (outcome === "queued") warnings.push(QUEUED_WARNING);
      },
      (error: unknown) => {
        const reason = describeFailure(error);
        this.options.logger.log({ level: "warn", event: "history_commit_failed", vault: this.options.vault, tool: op.tool, path: op.path, reason });
        warnings.push(`The change was written but not recorded in history (${reason}); the trash copy still holds the previous version.`);
      },
    );
    return { recorded };
  }

  /**
   * The one history commit of a vault-wide change (note_move, tag_rename, vault_replace, …): its
   * per-file writes make no commit of their own; this records all of their paths at once,
   * e.g. `vault_replace: 12 notes, 31 occurrences`. Resolves to warnings; a failure never throws.
   */
  async recordSummary(paths: readonly string[], subject: string, meta: HistoryMeta): Promise<string[]> {
    if (!this.options.commit || paths.length === 0) return [];
    try {
      return (await this.options.commit([...paths], subject, meta)) === "queued" ? [QUEUED_WARNING] : [];
    } catch (error) {
      const reason = describeFailure(error);
      this.options.logger.log({ level: "warn", event: "history_commit_failed", vault: this.options.vault, tool: meta.tool, paths: paths.length, reason });
      return [`The changes were written but not recorded in history (${reason}); the trash copies still hold the previous versions.`];
    }
  }

  /** Steps 3-9 of the write path: everything but the writing. */
  private async plan(op: WriteOperation): Promise<Planned> {
    const current = await this.readCurrent(op.path);
    this.checkExpectations(op, current);
    const creating = !current.exists;
    const parses = new FrontmatterParses();
    if (creating && !op.existing_name) this.options.checkNewPath?.(op.path);
    let next = op.transform(current.text, parses);
    const warnings = this.guard(op, current.text, next, parses);
    if (!op.skip_touch && next !== current.text) next = this.touch(next, creating ? null : (current.born ?? this.options.clock.now()), parses, warnings);
    const encoding = op.encoding ?? current.encoding;
    const bytes = encodeNote(next, encoding);
    const reencoded = current.exists && (encoding.bom !== current.encoding.bom || encoding.crlf !== current.encoding.crlf);
    const result: WriteResult = {
      vault: this.options.vault,
      path: op.path,
      created: creating,
      dry_run: op.dry_run,
      changed: next !== current.text || reencoded,
      hash_before: current.hash,
      content_hash: this.hash(bytes),
      bytes: bytes.byteLength,
      diff: unifiedDiff(op.path, current.text, next),
      warnings,
      message: "",
    };
    if (!result.changed) {
      result.content_hash = current.hash;
      result.message = "No change: the note already has this content; nothing was written.";
    } else if (op.dry_run) {
      result.message = "Dry run: nothing was written. Call again without dry_run to apply this diff.";
    }
    return { current, result, bytes };
  }

  /**
   * The write worked out as a dry run, with the bytes it would write: vault-wide changes prepare every
   * note first (so a guard's refusal writes nothing) and then apply them as one transaction.
   */
  async prepare(op: Omit<WriteOperation, "dry_run">): Promise<PreparedWrite> {
    return this.oneNote(op.path, async () => {
      const { current, result, bytes } = await this.plan({ ...op, dry_run: true });
      return { result, before: current.bytes, after: result.changed ? bytes : (current.bytes ?? bytes) };
    });
  }

  async write(op: WriteOperation): Promise<WriteResult> {
    let recorded: Promise<void> = Promise.resolve();
    const written = await this.oneNote(op.path, async () => {
      const { current, result, bytes } = await this.plan(op);
      if (!result.changed || op.dry_run) return result;
      const warnings = result.warnings;
      const creating = result.created;
      // Both must be on disk before the note changes, and neither needs the other.
      const trash = await this.beforeChange(current.exists && current.bytes ? this.copyToTrash(op.path, current.bytes) : undefined, this.intend(op, bytes));
      if (trash !== undefined) result.trash = trash;
      try {
        await this.options.writer.writeFile(op.path, bytes, current.hash);
      } catch (error) {
        // A conflict, or a host's file-system error already worded with the note's path and state;
        // one that wrote nothing also takes back the trash copy made for it.
        if (await this.notApplied(error, result.trash)) throw error;
        if (error instanceof ToolError) throw error;
        throw new ToolError(
          "internal",
          `Writing "${op.path}" failed (${describeFailure(error)}); the note may or may not have changed. Read it with note_read before trying again.`,
          { state: "unknown", retry: "inspect_state" },
        );
      }
      ({ recorded } = await this.finish(op, [op.path], warnings, bytes));
      result.message = creating ? `Created ${op.path}.` : `Updated ${op.path}.`;
      return result;
    });
    await recorded;
    return written;
  }

  /** A deletion worked out as a dry run, with the bytes it would remove (for a transaction's plan). */
  async prepareRemove(op: { path: string; tool: string; expected_hash?: string }): Promise<{ result: WriteResult; before: Uint8Array }> {
    return this.oneNote(op.path, async () => {
      const { current, result } = await this.planRemove({ ...op, dry_run: true });
      return { result, before: current.bytes ?? new Uint8Array() };
    });
  }

  private async planRemove(op: { path: string; tool: string; expected_hash?: string; dry_run: boolean }): Promise<{ current: Current; result: WriteResult }> {
    const current = await this.readCurrent(op.path);
    this.checkExpectations({ ...op, mode: "update", transform: (text) => text ?? "" }, current);
    const result: WriteResult = {
      vault: this.options.vault,
      path: op.path,
      created: false,
      deleted: !op.dry_run,
      dry_run: op.dry_run,
      changed: true,
      hash_before: current.hash,
      content_hash: null,
      bytes: 0,
      diff: unifiedDiff(op.path, current.text, null),
      warnings: [],
      message: "",
    };
    if (op.dry_run) result.message = "Dry run: nothing was deleted. Call again without dry_run to move the note to the trash.";
    return { current, result };
  }

  /** Deletes a note after copying it to the trash; the hash, when given, must still match. */
  async remove(op: { path: string; tool: string; expected_hash?: string; dry_run: boolean; reason?: string; actor?: WriteActor }): Promise<WriteResult> {
    let recorded: Promise<void> = Promise.resolve();
    const removed = await this.oneNote(op.path, async () => {
      const { current, result } = await this.planRemove(op);
      if (op.dry_run) return result;
      result.trash = (await this.beforeChange(this.copyToTrash(op.path, current.bytes ?? new Uint8Array()), this.intend(op, null)))!;
      try {
        await this.options.writer.removeFile(op.path, current.hash ?? "");
      } catch (error) {
        // A refused delete (a conflict, a read-only note) leaves the note, so its trash copy goes.
        if (await this.notApplied(error, result.trash)) throw error;
        if (error instanceof ToolError) throw error;
        throw new ToolError("internal", `Deleting "${op.path}" failed (${describeFailure(error)}); check with note_read whether it is still there.`, { state: "unknown", retry: "inspect_state" });
      }
      ({ recorded } = await this.finish({ ...op, mode: "update", transform: () => "" }, [op.path], result.warnings, null));
      result.message = `Deleted ${op.path}; a copy is in the trash (${result.trash}).`;
      return result;
    });
    await recorded;
    return removed;
  }

  /**
   * Applies prepared changes as one transaction (SPEC §9): journaled before the first file is touched,
   * put back if a step fails, one summary commit at the end. Holds the write lock throughout, so no
   * other write of this server lands between its steps.
   */
  async transaction(plan: TransactionPlan): Promise<TransactionOutcome> {
    return this.lock.run(() => this.transactions.run(plan));
  }

  /** Completes or undoes the transactions a crash interrupted; call at start, before serving. */
  async recover(): Promise<RecoveryReport[]> {
    return this.lock.run(() => this.transactions.recover());
  }

  /** The last recovery of this vault (at this start or an earlier one), for vault_list. */
  lastRecovery(): RecoveryReport | null {
    return this.transactions.lastRecovery();
  }

  /** Attachments: raw bytes, overwrite only when asked, the old bytes to the trash first. */
  async writeBinary(op: { path: string; tool: string; bytes: Uint8Array; overwrite: boolean; dry_run: boolean; reason?: string; actor?: WriteActor; existing_name?: boolean }): Promise<WriteResult> {
    let recorded: Promise<void> = Promise.resolve();
    const written = await this.oneNote(op.path, async () => {
      const stat = await this.options.reader.stat(op.path);
      if (!stat && !op.existing_name) this.options.checkNewPath?.(op.path);
      const before = stat ? await this.options.reader.readBytes(op.path) : null;
      const hashBefore = before ? this.hash(before) : null;
      if (before && !op.overwrite) {
        throw new ToolError("conflict", `"${op.path}" already exists. Pass overwrite: true to replace it (the old file goes to the trash), or choose another name.`, {
          retry: "correct_request",
          details: { path: op.path, content_hash: hashBefore },
        });
      }
      const result: WriteResult = {
        vault: this.options.vault,
        path: op.path,
        created: before === null,
        dry_run: op.dry_run,
        changed: hashBefore === null || hashBefore !== this.hash(op.bytes),
        hash_before: hashBefore,
        content_hash: this.hash(op.bytes),
        bytes: op.bytes.byteLength,
        diff: "",
        warnings: [],
        message: "",
      };
      if (!result.changed) {
        result.message = "No change: the file already has these bytes.";
        return result;
      }
      if (op.dry_run) {
        result.message = "Dry run: nothing was written.";
        return result;
      }
      const trash = await this.beforeChange(before ? this.copyToTrash(op.path, before) : undefined, this.intend(op, op.bytes));
      if (trash !== undefined) result.trash = trash;
      try {
        await this.options.writer.writeFile(op.path, op.bytes, hashBefore);
      } catch (error) {
        if (await this.notApplied(error, result.trash)) throw error;
        if (error instanceof ToolError) throw error;
        throw new ToolError("internal", `Writing "${op.path}" failed (${describeFailure(error)}); check with attachment_list whether it changed.`, { state: "unknown", retry: "inspect_state" });
      }
      ({ recorded } = await this.finish({ ...op, mode: "upsert", transform: () => "" }, [op.path], result.warnings, op.bytes));
      result.message = result.created ? `Created ${op.path}.` : `Replaced ${op.path}.`;
      return result;
    });
    await recorded;
    return written;
  }
}
