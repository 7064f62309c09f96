// The vault's private history (SPEC §9): an isomorphic-git repository whose git directory lies outside
// the user's own `.git`, with the vault root as work tree. Commits are built from trees directly —
// blob, tree and commit objects plus one ref — so there is no index file, no `.gitignore` lookup and
// no walk of the work tree: a commit reads exactly the paths it was given and writes only below the
// private git directory (the fence in fenced-fs.ts enforces both).
import {
  expandOid,
  init,
  push,
  readBlob,
  readCommit,
  readTree,
  resolveRef,
  writeRef,
  type HttpClient,
  type ReadCommitResult,
  type TreeEntry,
} from "isomorphic-git";
import { describeFailure, isNoSpace, noSpaceText, ToolError } from "../core/errors";
import type { Clock, HistoryEntry, HistoryMeta, HistoryPort, Logger } from "../core/ports";
import { WriteLock } from "../core/write/lock";
import { durableFs, sha1Hex, type DurableFs } from "./durable-fs";
import { fenceFs, hasHiddenSegment, normalizeFsPath, relativeTo, type Fence, type FencedFsClient, type HistoryFs } from "./fenced-fs";
import { commitMessage, groupMessage, parseGroupedWrite, parseMessage } from "./message";
import { EMPTY_TREE, findEntry, patchTree, treeImage, type TreeImage } from "./tree-image";
import { looseObjects, packLoose, removePackLeftovers, type PackBudget } from "./compaction";

export const DEFAULT_AUTHOR = { name: "Second Brain MCP", email: "secondbrain-mcp@localhost" } as const;
export const DEFAULT_BRANCH = "main";
/** Baseline blobs written at once: enough to overlap reads, few enough to stay far from file-handle limits. */
const BASELINE_PARALLEL = 8;
/** Trees kept in memory for the next commits and reads, the least recently used dropped first. */
const TREE_CACHE_MAX = 2048;
const TREE_CACHE_BYTES = 64 * 1024 * 1024;
/** Objects written or found whole since opening, so a second write of one costs nothing; cleared past this. */
const KNOWN_OBJECTS_MAX = 200_000;
/** Object files written at once in the background: overlaps their I/O, far from file-handle limits. */
const OBJECT_WRITES_PARALLEL = 16;
/**
 * Loose objects past the count left after the last packing start the next; none by default. Packing
 * beside a steady stream of writes took a third of the 20k load's calls a second, so it stays off until
 * it waits for quiet moments; GitHistoryOptions.packing turns it on.
 */
const PACK_AFTER_LOOSE = Number.POSITIVE_INFINITY;
/** What one pack takes at most (compaction.ts): its objects' contents are held in memory while it is made. */
const PACK_BUDGET: PackBudget = { objects: 2048, bytes: 8 * 1024 * 1024 };
/**
 * How long isomorphic-git's cache lives: it keeps every pack it read whole in memory, so a long-running
 * server that read old versions from many packs would hold them all.
 */
const READ_CACHE_MS = 60_000;
/** The lock around reading and moving the branch (underBranchLock); not `*.lock`, which names a file being written. */
const BRANCH_LOCK = "secondbrain-branch-lock";
/** A commit group moves the branch well within this; a lock older is one a crashed process left. */
const BRANCH_LOCK_STALE_MS = 10_000;
const BRANCH_LOCK_WAIT_MS = 30_000;
/** How often a history that keeps the branch lock (GitHistoryOptions.exclusive) renews it, well inside BRANCH_LOCK_STALE_MS. */
const BRANCH_LOCK_RENEW_MS = 2_000;
/** What a kept branch lock holds; a commit group's own lock is an empty file. */
const KEPT_BRANCH_LOCK = JSON.stringify({ kept_by: "a server holding the vault's data folder" });
/** The writes not yet committed (see HistoryPort.intend), in the git directory; git itself ignores it. */
const INTENT_FILE = "secondbrain-intent.json";
/** The records of one process of several (GitHistoryOptions.intentOwners): `secondbrain-intent.<owner>.json`. */
const OWNED_INTENT_FILE = /^secondbrain-intent\.([A-Za-z0-9_-]{1,64})\.json$/;
const FILE_MODE = "100644";
const TREE_MODE = "040000";

export interface PushSettings {
  /** An http(s) URL; credentials belong in `token`, never in the URL. */
  url: string;
  token?: string;
  /** Sent with the token as HTTP basic auth; most hosts accept any name with a token as password. */
  username?: string;
  /** isomorphic-git's HTTP client for the host (`isomorphic-git/http/node`, or `/http/web`). */
  http: HttpClient;
}

export interface GitHistoryOptions {
  /** The vault's name, for log lines. */
  vault: string;
  /** The vault root: the work tree. */
  dir: string;
  /** The private git directory; never the user's `<dir>/.git`, never a visible folder of the vault. */
  gitdir: string;
  fs: HistoryFs;
  logger: Logger;
  clock: Clock;
  author?: { name: string; email: string };
  /**
   * The vault's visible notes (vault-relative). Given, a repository without commits first records them
   * all as one commit (`initial: N notes`), so history starts from the real content.
   */
  baseline?: () => Promise<string[]>;
  push?: PushSettings;
  /**
   * How the vault's own files are read: the host's reads, which find a file whose name on disk is
   * another Unicode form of its path and follow no symbolic link out of the vault. Without it they are
   * read through `fs` below `dir`.
   */
  vaultFiles?: VaultFiles;
  /**
   * zlib's deflate of a new object, for a file system without placeSynced (which deflates as it
   * places). Without it the platform's CompressionStream.
   */
  deflate?: (bytes: Uint8Array) => Promise<Uint8Array>;
  /** The object's SHA-1 in hex (the host's native one). Without it WebCrypto's, whose job per object costs more than the hash. */
  sha1?: (bytes: Uint8Array) => string;
  /** When loose objects are packed and how much a pack takes; tests make them small. */
  packing?: { afterLoose: number; budget: PackBudget };
  /**
   * Whether this process alone commits to the history, as a server holding the vault's data-folder
   * lock does: it then keeps the branch lock from open to close, and knows where the branch is without
   * reading it. Unset: other processes may commit too (`serve --stdio`, one per client), so each
   * commit group takes the lock and reads the branch.
   */
  exclusive?: boolean;
  /**
   * Whose crash records are whose, where several processes write to the vault (`serve --stdio`, one
   * per client): with `self`, this process keeps its records in a file of its own, so one that
   * starts or ends never replaces or recovers another's. At open, the files of owners no longer
   * `running` are recovered and removed. Without `self`, the history's own file is INTENT_FILE.
   */
  intentOwners?: { self?: string; running(owner: string): boolean };
}

/** A path of the vault as the history records it: a file's bytes, a folder's visible entries, or nothing. */
export type VaultEntry = { file: Uint8Array } | { folder: string[] } | null;

export interface VaultFiles {
  entry(path: string): Promise<VaultEntry>;
}

type Change = { segments: string[]; oid: string | null; mode: string };

/** A write's intent as stored: the path, the id of the blob it leaves (null: deleted) and its full commit message. */
interface Intent {
  path: string;
  oid: string | null;
  message: string;
  /** In memory only: the bytes, until the commit is done, for a later write of the path to store first. */
  bytes?: Uint8Array | null;
  /** In memory only: the blob is on disk, so recovery has these bytes though the file moved on. */
  stored?: boolean;
}

/** A commit waiting for the next group (see `commitWaiting`). */
interface WaitingCommit {
  paths: readonly string[];
  message: string;
  meta: HistoryMeta;
  contents: ReadonlyMap<string, Uint8Array | null> | undefined;
  resolve(id: string | null): void;
  reject(error: unknown): void;
}

function toIntent(value: unknown): Intent | null {
  if (typeof value !== "object" || value === null) return null;
  const { path, oid, message } = value as Partial<Intent>;
  if (typeof path !== "string" || typeof message !== "string") return null;
  if (oid !== null && (typeof oid !== "string" || !/^[0-9a-f]{40}$/.test(oid))) return null;
  return { path, oid, message };
}

/** The writes not yet committed, oldest first; a record of one write (as older versions kept) reads as a list of one. */
/** What a read with "utf8" gives: a string, or bytes where the file system ignores the encoding. */
function textOf(read: string | Uint8Array): string {
  return typeof read === "string" ? read : new TextDecoder().decode(read);
}

function parseIntents(text: string): Intent[] {
  try {
    const value: unknown = JSON.parse(text);
    const list = Array.isArray(value) ? value : [value];
    return list.map(toIntent).filter((intent): intent is Intent => intent !== null);
  } catch {
    return [];
  }
}

const encoder = new TextEncoder();

/** The bytes git hashes and stores: `type size\0` and the content. */
function gitObject(type: "blob" | "tree" | "commit", content: Uint8Array): Uint8Array {
  const header = encoder.encode(`${type} ${content.byteLength}\0`);
  const object = new Uint8Array(header.byteLength + content.byteLength);
  object.set(header);
  object.set(content, header.byteLength);
  return object;
}

/** With the platform's own SHA-1 and zlib (Node and Electron alike), as isomorphic-git uses them. */

async function streamDeflate(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new CompressionStream("deflate"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

interface Signature {
  name: string;
  email: string;
  timestamp: number;
  /** As Date#getTimezoneOffset gives it: minutes west of UTC. */
  timezoneOffset: number;
}

/** `+hhmm` east of UTC, as git writes it (and isomorphic-git, whose commits these are byte for byte). */
function formatOffset(minutesWest: number): string {
  const east = -minutesWest;
  const sign = east < 0 ? "-" : "+";
  const minutes = Math.abs(east);
  return `${sign}${String(Math.floor(minutes / 60)).padStart(2, "0")}${String(minutes % 60).padStart(2, "0")}`;
}

/** A commit object's text: headers, a blank line, the message without carriage returns or leading blank lines, ending in one newline. */
export function commitText(tree: string, parent: string | null, signature: Signature, message: string): string {
  const person = `${signature.name} <${signature.email}> ${signature.timestamp} ${formatOffset(signature.timezoneOffset)}`;
  const body = `${message.replace(/\r/g, "").replace(/^\n+/, "").replace(/\n+$/, "")}\n`;
  return `tree ${tree}\n${parent ? `parent ${parent}\n` : ""}author ${person}\ncommitter ${person}\n\n${body}`;
}

function isCode(error: unknown, code: string): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === code;
}

function joinPath(root: string, relative: string): string {
  return `${root.replace(/[\\/]+$/, "")}/${relative}`;
}

/** Vault paths as the write path hands them over: relative, `/`-separated, no `..`, no hidden segment. */
function vaultSegments(path: string): string[] | null {
  const segments = path.split("/");
  if (path === "" || path.startsWith("/") || segments.some((segment) => segment === "" || segment === "." || segment === "..")) {
    throw new Error(`"${path}" is not a vault-relative path`);
  }
  return hasHiddenSegment(path) ? null : segments;
}

/** Where the git directory may live: not the vault, not around it, not the user's repository, not visible in it. */
export function checkPlacement(dir: string, gitdir: string): void {
  const root = normalizeFsPath(dir);
  const git = normalizeFsPath(gitdir);
  if (relativeTo(git, root) !== null) throw new Error(`the history folder ${gitdir} would contain the vault`);
  const inside = relativeTo(root, git);
  if (inside === null) return;
  const first = inside.split("/")[0];
  if (first === ".git") throw new Error(`the history folder ${gitdir} lies inside the vault's own .git repository`);
  if (!hasHiddenSegment(inside)) throw new Error(`the history folder ${gitdir} is a visible folder of the vault; its files would show up as notes`);
}

/**
 * The waiting commits in order, cut into batches that can be one commit: writes that carry their bytes
 * (one note's write each), none naming a path an earlier one in the batch names, so no version of a
 * note is lost. A commit of paths as they are on disk (a vault-wide change's summary) stays alone.
 */
function batchesOf(group: readonly WaitingCommit[]): WaitingCommit[][] {
  const batches: WaitingCommit[][] = [];
  let current: WaitingCommit[] = [];
  let paths = new Set<string>();
  for (const request of group) {
    const joins = request.contents !== undefined && current.every((earlier) => earlier.contents !== undefined) && request.paths.every((path) => !paths.has(path));
    if (!joins && current.length > 0) {
      batches.push(current);
      current = [];
      paths = new Set();
    }
    current.push(request);
    for (const path of request.paths) paths.add(path);
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

/** The unavailable history: the vault works, the history tools explain why they cannot. */
export class UnavailableHistory implements HistoryPort {
  constructor(readonly reason: string) {}

  status(): { versioned: false; reason: string } {
    return { versioned: false, reason: this.reason };
  }

  commit(): Promise<string | null> {
    return Promise.resolve(null);
  }

  log(): Promise<HistoryEntry[]> {
    return Promise.reject(new ToolError("unsupported", `This vault has no history (${this.reason}).`));
  }

  readAt(): Promise<Uint8Array | null> {
    return Promise.reject(new ToolError("unsupported", `This vault has no history (${this.reason}).`));
  }
}

export class GitHistory implements HistoryPort {
  private readonly options: GitHistoryOptions;
  private readonly fence: Fence;
  private readonly durable: DurableFs;
  private readonly fs: FencedFsClient;
  private readonly gitdir: string;
  private readonly branchRef = `refs/heads/${DEFAULT_BRANCH}`;
  private readonly queue = new WriteLock();
  private readCache: { cache: object; since: number } | null = null;
  /** Loose objects, counted at opening and as written; packing starts past `looseFloor` plus the setting. */
  private loose = 0;
  private looseFloor = 0;
  private packing = false;
  private readonly trees = new Map<string, TreeImage>();
  private treeBytes = 0;
  private readonly objects = new Set<string>();
  /** Object files being written, by id: null once written, the failure if it failed (kept until reported). */
  private readonly inflight = new Map<string, Promise<unknown>>();
  private writing = 0;
  private pending: Promise<unknown> = Promise.resolve();
  private pushing: Promise<void> | null = null;
  private pushAgain = false;
  private closed = false;
  private baselining = false;
  /** The last commit this history moved the branch to, and its tree: the next group starts there without reading it. */
  private tip: { id: string; tree: string } | null = null;
  /** Renews the branch lock this history keeps (GitHistoryOptions.exclusive); null while it keeps none. */
  private keeper: ReturnType<typeof setInterval> | null = null;
  /** Where the branch is, once read or moved, while the branch lock is kept; undefined: not known. */
  private knownHead: string | null | undefined = undefined;
  /** Commits asked for and not yet taken by a group, in the order asked. */
  private waiting: WaitingCommit[] = [];
  /** Writes recorded in this process's file of records and not yet committed, oldest first. */
  private intents: Intent[] = [];
  private readonly intentFile = new WriteLock();
  /** INTENT_FILE, or this process's own file of records (GitHistoryOptions.intentOwners). */
  private readonly intentPath: string;
  /** The save of the records asked for and not yet started (saveIntents). */
  private intentSaveWaiting: Promise<void> | null = null;
  /** The recovery of a crash's records, while it runs: new records wait so none replaces one unread. */
  private recovering: Promise<void> | null = null;
  private readonly vaultFiles: VaultFiles;

  private constructor(options: GitHistoryOptions) {
    this.options = options;
    this.gitdir = options.gitdir;
    const owner = options.intentOwners?.self;
    if (owner !== undefined && !OWNED_INTENT_FILE.test(`secondbrain-intent.${owner}.json`)) throw new Error(`"${owner}" cannot name a file of crash records: letters, digits, _ and - only`);
    this.intentPath = joinPath(options.gitdir, owner === undefined ? INTENT_FILE : `secondbrain-intent.${owner}.json`);
    this.durable = durableFs(options.fs, options.gitdir, {
      onDamaged: (path) => options.logger.log({ level: "warn", event: "history_object_damaged", vault: options.vault, path, action: "written again" }),
    });
    this.fence = fenceFs(this.durable.fs, { dir: options.dir, gitdir: options.gitdir });
    this.fs = this.fence.client;
    this.vaultFiles = options.vaultFiles ?? this.fsVaultFiles();
  }

  /** The vault's files through the fenced file system, by their paths as given. */
  private fsVaultFiles(): VaultFiles {
    const fs = this.fs.promises;
    return {
      entry: async (path) => {
        const full = joinPath(this.options.dir, path);
        const stat = await fs.stat(full).catch((error: unknown) => {
          if (isCode(error, "ENOENT") || isCode(error, "ENOTDIR")) return null;
          throw error;
        });
        if (!stat) return null;
        if (stat.isDirectory()) return { folder: (await fs.readdir(full)).filter((name) => !name.startsWith(".")) };
        if (!stat.isFile()) return null;
        try {
          const bytes = await fs.readFile(full);
          return { file: typeof bytes === "string" ? new TextEncoder().encode(bytes) : bytes };
        } catch (error) {
          // Gone since the stat.
          if (isCode(error, "ENOENT") || isCode(error, "EISDIR")) return null;
          throw error;
        }
      },
    };
  }

  /** Opens (or creates) the repository; rejects with the reason when it cannot be used. */
  static async open(options: GitHistoryOptions): Promise<GitHistory> {
    checkPlacement(options.dir, options.gitdir);
    if (options.push && !/^https?:\/\//i.test(options.push.url)) throw new Error("the history remote must be an http(s) URL");
    const history = new GitHistory(options);
    try {
      await history.prepare();
    } catch (error) {
      await history.letBranchLockGo().catch(() => undefined);
      throw error;
    }
    return history;
  }

  /** isomorphic-git's cache for reads, renewed every READ_CACHE_MS so the packs it holds are let go. */
  private get cache(): object {
    const now = this.options.clock.now();
    if (!this.readCache || now - this.readCache.since > READ_CACHE_MS) this.readCache = { cache: {}, since: now };
    return this.readCache.cache;
  }

  /** Refusals by the file-system fence since opening: always 0 unless something tried to leave it. */
  get refusals(): number {
    return this.fence.refusals;
  }

  private async prepare(): Promise<void> {
    const raw = this.options.fs;
    const stat = await raw.lstat(this.gitdir).catch((error: unknown) => {
      if (isCode(error, "ENOENT")) return null;
      throw error;
    });
    if (stat === null) {
      await raw.mkdir(this.gitdir, { recursive: true });
    } else if (stat.isSymbolicLink() || !stat.isDirectory()) {
      throw new Error(`the history folder ${this.gitdir} is not a folder`);
    }
    const removed = (await this.durable.removeTemps()) + (await removePackLeftovers(raw, this.gitdir));
    if (removed > 0) this.options.logger.log({ level: "info", event: "history_temp_files_removed", vault: this.options.vault, count: removed });
    // Counted only where packing is on: a readdir of every object folder is start-up work for nothing otherwise.
    if (Number.isFinite((this.options.packing ?? { afterLoose: PACK_AFTER_LOOSE }).afterLoose)) this.loose = (await looseObjects(raw, this.gitdir)).size;
    const hasHead = await raw.stat(joinPath(this.gitdir, "HEAD")).then(
      () => true,
      () => false,
    );
    if (!hasHead) {
      if ((await raw.readdir(this.gitdir)).length > 0) throw new Error(`the history folder ${this.gitdir} is not empty and not a git repository`);
      await init({ fs: this.fs, gitdir: this.gitdir, bare: true, defaultBranch: DEFAULT_BRANCH });
    }
    if (this.options.exclusive === true) await this.keepBranchLock();
    const head = await this.head();
    if (head) await readCommit({ fs: this.fs, gitdir: this.gitdir, oid: head, cache: this.cache });
    this.options.logger.log({ level: "info", event: "history_opened", vault: this.options.vault, head: head?.slice(0, 7) ?? null });
    const intents = await this.readIntents();
    // Without a head the first snapshot records the files as they are, the interrupted writes' included.
    if (intents.length > 0 && head) {
      this.intents = intents;
      const recovery = this.queue
        .run(() => this.recoverIntents(intents))
        .then(() => undefined)
        .finally(() => (this.recovering = null));
      this.recovering = recovery;
      this.track(recovery);
    } else if (intents.length > 0) {
      await this.removeIntent();
    }
    if (head && this.options.intentOwners) await this.recoverLeftRecords(this.options.intentOwners);
    const baseline = this.options.baseline;
    if (!head && baseline) {
      this.baselining = true;
      this.track(
        this.queue
          .run(() => this.recordBaseline(baseline))
          .finally(() => {
            this.baselining = false;
            this.packWhenDue();
          }),
      );
    } else {
      this.packWhenDue();
    }
  }

  /**
   * Starts packing once enough loose objects have gathered. It runs beside commits, not between them:
   * objects never change, a commit only adds loose ones, and a loose copy is removed only once its pack
   * is in place, so a commit never waits for a pack.
   */
  private packWhenDue(): void {
    const settings = this.options.packing ?? { afterLoose: PACK_AFTER_LOOSE, budget: PACK_BUDGET };
    if (this.packing || this.closed || this.loose < this.looseFloor + settings.afterLoose) return;
    this.packing = true;
    this.track(this.packAll(settings.budget).finally(() => (this.packing = false)));
  }

  private async packAll(budget: PackBudget): Promise<void> {
    try {
      for (let more = true; more && !this.closed; ) {
        await this.assertGitdir();
        const started = this.options.clock.now();
        const outcome = await packLoose({
          fs: this.options.fs,
          git: this.fs,
          gitdir: this.gitdir,
          cache: this.cache,
          deflate: this.options.deflate ?? streamDeflate,
          sha1: this.options.sha1 ?? sha1Hex,
          head: await this.head(),
          budget,
        });
        if (outcome.packed > 0) {
          this.options.logger.log({ level: "info", event: "history_packed", vault: this.options.vault, objects: outcome.packed, bytes: outcome.bytes, duration_ms: this.options.clock.now() - started });
        }
        more = outcome.more && outcome.packed > 0;
      }
      // What is left loose (written meanwhile, or reachable from no commit) counts toward the next packing, not this one.
      this.loose = (await looseObjects(this.options.fs, this.gitdir)).size;
      this.looseFloor = this.loose;
    } catch (error) {
      this.looseFloor = this.loose;
      this.options.logger.log({ level: "warn", event: "history_pack_failed", vault: this.options.vault, reason: describeFailure(this.explain(error)) });
    }
  }

  status(): { versioned: true } {
    return { versioned: true };
  }

  busy(): boolean {
    return this.baselining;
  }

  private track(work: Promise<unknown>): void {
    const settled = work.catch(() => undefined);
    const previous = this.pending;
    this.pending = Promise.all([previous, settled]);
  }

  /** Waits for queued commits and a running push (tests, shutdown). */
  async idle(): Promise<void> {
    // Packing runs beside commits and starts after them: waited for until neither is left.
    do {
      await this.pending;
      await this.queue.run(async () => undefined);
    } while (this.packing || this.waiting.length > 0);
    while (this.pushing) await this.pushing;
  }

  /** Stops a baseline in progress (it is redone at the next start), waits for the rest. */
  async close(): Promise<void> {
    this.closed = true;
    await this.idle();
    await this.letBranchLockGo();
  }

  /** isomorphic-git reads a git directory that is a file as a pointer elsewhere: never follow one. */
  private async assertGitdir(): Promise<void> {
    const stat = await this.options.fs.lstat(this.gitdir).catch(() => null);
    if (!stat || stat.isSymbolicLink() || !stat.isDirectory()) throw new Error(`the history folder ${this.gitdir} is missing or not a folder`);
  }

  private async head(): Promise<string | null> {
    try {
      return await resolveRef({ fs: this.fs, gitdir: this.gitdir, ref: this.branchRef });
    } catch (error) {
      if (isCode(error, "NotFoundError")) return null;
      throw error;
    }
  }

  /** A full disk in words (the device of the vault or of the data folder); other errors as they are. */
  private explain(error: unknown): unknown {
    if (!isNoSpace(error)) return error;
    const where = relativeTo(normalizeFsPath(this.options.dir), normalizeFsPath(this.gitdir)) === null ? "data folder" : "vault";
    return new ToolError("internal", `${noSpaceText(where)}; the history was left as it was`, { state: "not_applied", details: { cause: "no_space" } });
  }

  /**
   * Queues the commit and resolves with its id once it is on disk. Commits asked for while a group is
   * being written form the next group: each stays its own revision, but the group's objects are synced
   * in one pass and the branch moves once, so many writers pay for one round of fsyncs.
   */
  commit(paths: readonly string[], message: string, meta: HistoryMeta, contents?: ReadonlyMap<string, Uint8Array | null>): Promise<string | null> {
    const work = new Promise<string | null>((resolve, reject) => {
      this.waiting.push({ paths, message, meta, contents, resolve, reject });
      if (this.waiting.length === 1) this.track(this.queue.run(() => this.commitWaiting()));
    });
    this.track(work);
    return work;
  }

  /**
   * Writes the waiting commits, each batch on the one before, then syncs once and moves the branch
   * once. Writes of different notes that wait together are one commit (batchesOf): each is still a
   * revision of its own note, with its own message in that note's history, and the folder trees they
   * share are written once, not once a write.
   */
  private async commitWaiting(): Promise<void> {
    const group = this.waiting;
    this.waiting = [];
    const done: Array<{ request: WaitingCommit; id: string | null; changes: Change[]; started: number }> = [];
    try {
      if (this.closed) throw new Error("the history is closed");
      await this.assertGitdir();
      // Read, built on and moved under the lock: another process with this history may commit too.
      await this.underBranchLock(async () => {
        const head = await this.branchHead();
        let parent = head;
        let tree = head === null ? null : this.tip?.id === head ? this.tip.tree : (await this.commitAt(head)).commit.tree;
        for (const batch of batchesOf(group)) {
          const started = this.options.clock.now();
          try {
            const changes: Change[][] = [];
            for (const request of batch) changes.push(await this.changesOf(request.paths, request.contents));
            const [only] = batch;
            const message =
              batch.length === 1 && only
                ? commitMessage(only.message, only.meta)
                : groupMessage(
                    batch.map((request) => ({ subject: request.message, meta: request.meta })),
                    batch.flatMap((request) => request.paths),
                  );
            const next = await this.buildCommit(parent, tree, changes.flat(), message);
            if (next) {
              parent = next.id;
              tree = next.tree;
            }
            batch.forEach((request, at) => done.push({ request, id: next?.id ?? null, changes: changes[at]!, started }));
          } catch (error) {
            for (const request of batch) request.reject(this.explain(error));
          }
        }
        await this.settleWrites();
        // The ref write first syncs every object not yet synced (durable-fs.ts): one pass for the group.
        if (parent !== null && parent !== head) {
          await this.moveBranch(parent);
          this.tip = { id: parent, tree: tree! };
        }
      });
    } catch (error) {
      const failure = this.explain(error);
      for (const request of group) request.reject(failure);
      return;
    }
    // Not awaited: a record left until the save lands is one the next start finds committed.
    this.track(this.forgetIntents(done.flatMap(({ request, changes }) => changes.filter((change) => request.contents?.has(change.segments.join("/"))))));
    for (const { request, id, changes, started } of done) {
      if (id) {
        this.options.logger.log({
          level: "debug",
          event: "history_commit",
          vault: this.options.vault,
          tool: request.meta.tool,
          commit: id.slice(0, 7),
          paths: changes.length,
          duration_ms: this.options.clock.now() - started,
        });
      }
      request.resolve(id);
    }
    if (done.some((item) => item.id !== null)) this.schedulePush();
    this.packWhenDue();
  }

  /** The paths' changes: the bytes a write left when given, else the paths as they are on disk now. */
  private async changesOf(paths: readonly string[], contents: ReadonlyMap<string, Uint8Array | null> | undefined): Promise<Change[]> {
    const changes: Change[] = [];
    for (const path of new Set(paths)) {
      const segments = vaultSegments(path);
      if (!segments) continue;
      const given = contents?.get(path);
      if (given === undefined) changes.push(await this.changeFor(path, segments));
      else changes.push({ segments, oid: given === null ? null : await this.blob(given), mode: FILE_MODE });
    }
    return changes;
  }

  async intend(path: string, bytes: Uint8Array | null, message: string, meta: HistoryMeta): Promise<void> {
    if (this.closed || vaultSegments(path) === null) return;
    if (this.recovering) await this.recovering;
    await this.assertGitdir();
    try {
      // Only the blob's id: recovery commits the file's own bytes once they hash to it, so the object
      // need not be written (and synced) before the file is.
      const oid = bytes === null ? null : (await this.blobId(bytes));
      // An earlier write of the path whose commit is not done yet: once this write lands its bytes are
      // on disk no more, so its blob is stored first and recovery takes it from there.
      for (const earlier of this.intents) {
        if (earlier.path !== path || earlier.stored || earlier.oid === null || !earlier.bytes) continue;
        await this.blob(earlier.bytes);
        await this.settleWrites([earlier.oid]);
        await this.durable.syncObject(earlier.oid);
        earlier.stored = true;
      }
      this.intents = [...this.intents, { path, oid, message: commitMessage(message, meta), bytes }];
      await this.saveIntents();
    } catch (error) {
      throw this.explain(error);
    }
  }

  /**
   * Writes the records as they are when the save starts. A save asked for while another waits to
   * start joins it: that one will take this caller's records too, so many writes pay for one synced
   * file under load.
   */
  private saveIntents(): Promise<void> {
    if (this.intentSaveWaiting) return this.intentSaveWaiting;
    const save = this.intentFile.run(async () => {
      if (this.intentSaveWaiting === save) this.intentSaveWaiting = null;
      if (this.intents.length === 0) await this.removeIntent();
      else await this.durable.writeRecord(this.intentPath, JSON.stringify(this.intents.map(({ path, oid, message }) => ({ path, oid, message }))));
    });
    this.intentSaveWaiting = save;
    return save;
  }

  /** Drops the records of committed writes (the oldest of a path with the committed blob); a failure only leaves records the next start finds committed. */
  private async forgetIntents(committed: readonly Change[]): Promise<void> {
    if (committed.length === 0) return;
    let remaining = this.intents;
    for (const change of committed) {
      const path = change.segments.join("/");
      const at = remaining.findIndex((intent) => intent.path === path && intent.oid === change.oid);
      if (at >= 0) remaining = [...remaining.slice(0, at), ...remaining.slice(at + 1)];
    }
    if (remaining.length === this.intents.length) return;
    this.intents = remaining;
    await this.saveIntents().catch((error: unknown) => {
      this.options.logger.log({ level: "warn", event: "history_intent_cleanup_failed", vault: this.options.vault, reason: describeFailure(this.explain(error)) });
    });
  }

  private async readIntents(): Promise<Intent[]> {
    try {
      const text = await this.fs.promises.readFile(this.intentPath, "utf8");
      return parseIntents(textOf(text));
    } catch (error) {
      if (isCode(error, "ENOENT")) return [];
      throw error;
    }
  }

  private async removeIntent(): Promise<void> {
    await this.fs.promises.unlink(this.intentPath).catch((error: unknown) => {
      if (!isCode(error, "ENOENT")) throw error;
    });
  }

  /**
   * The writes a crash cut off, oldest first, each committed with its own message. For each path the
   * file tells how far its writes got: the newest record whose bytes it holds was written, and so were
   * the records of the path before it (writes of a note are made one after another); records after it
   * were not. Of those written, the ones past what the history already holds are committed, an older
   * one's bytes from the blob stored before the next write. A file that holds none of the records'
   * bytes was changed since, so the records say nothing about it.
   */
  private async recoverIntents(intents: readonly Intent[]): Promise<boolean> {
    try {
      const head = await this.head();
      const chosen = new Set<Intent>();
      const onDisk = new Map<string, Uint8Array>();
      const byPath = new Map<string, Intent[]>();
      for (const intent of intents) byPath.set(intent.path, [...(byPath.get(intent.path) ?? []), intent]);
      for (const [path, list] of head ? byPath : []) {
        const segments = vaultSegments(path);
        if (!segments) continue;
        const entry = await this.vaultFiles.entry(path);
        const disk = entry === null ? null : "file" in entry ? (await this.blobId(entry.file)) : undefined;
        const written = list.map((intent) => intent.oid).lastIndexOf(disk as string | null);
        if (written < 0) continue;
        if (entry && "file" in entry) onDisk.set(path, entry.file);
        const recorded = (await this.entryAt((await this.commitAt(head!)).commit.tree, segments))?.oid ?? null;
        const committed = list.slice(0, written + 1).map((intent) => intent.oid).lastIndexOf(recorded);
        for (const intent of list.slice(committed + 1, written + 1)) chosen.add(intent);
      }
      for (const intent of intents) {
        if (!chosen.has(intent)) continue;
        const bytes = onDisk.get(intent.path);
        if (intent.oid !== null && bytes && (await this.blobId(bytes)) === intent.oid) await this.blob(bytes);
        else if (intent.oid !== null && !(await this.hasObject(intent.oid))) {
          this.options.logger.log({ level: "warn", event: "history_recovery_skipped", vault: this.options.vault, reason: "the bytes of an earlier write are not in the history folder" });
          continue;
        }
        const id = await this.commitChanges([{ segments: intent.path.split("/"), oid: intent.oid, mode: FILE_MODE }], intent.message);
        this.options.logger.log({ level: "info", event: "history_write_recovered", vault: this.options.vault, commit: id?.slice(0, 7) ?? null });
        if (id) this.schedulePush();
      }
      const handled = new Set(intents);
      this.intents = this.intents.filter((intent) => !handled.has(intent));
      await this.saveIntents();
      return true;
    } catch (error) {
      this.options.logger.log({ level: "warn", event: "history_recovery_failed", vault: this.options.vault, reason: describeFailure(this.explain(error)) });
      return false;
    }
  }

  /**
   * The files of records other processes left and can no longer handle (a `serve --stdio` killed
   * between a write and its commit): each recovered as its owner would have at its next start, then
   * removed. One whose recovery fails stays for the next start.
   */
  private async recoverLeftRecords(owners: { self?: string; running(owner: string): boolean }): Promise<void> {
    try {
      for (const name of await this.options.fs.readdir(this.gitdir)) {
        const owner = OWNED_INTENT_FILE.exec(name)?.[1];
        if (owner === undefined || owner === owners.self || owners.running(owner)) continue;
        const file = joinPath(this.gitdir, name);
        const text = await this.fs.promises.readFile(file, "utf8");
        const records = parseIntents(textOf(text));
        this.track(
          this.queue.run(async () => {
            if (records.length > 0 && !(await this.recoverIntents(records))) return;
            // Gone already: another process recovered it too (its commits and ours are the same tree, so one is made).
            await this.fs.promises.unlink(file).catch(() => undefined);
            this.options.logger.log({ level: "info", event: "history_left_records_recovered", vault: this.options.vault, records: records.length });
          }),
        );
      }
    } catch (error) {
      this.options.logger.log({ level: "warn", event: "history_recovery_failed", vault: this.options.vault, reason: describeFailure(this.explain(error)) });
    }
  }

  private async hasObject(oid: string): Promise<boolean> {
    try {
      await readBlob({ fs: this.fs, gitdir: this.gitdir, oid, cache: this.cache });
      return true;
    } catch (error) {
      if (isCode(error, "NotFoundError")) return false;
      throw error;
    }
  }

  /** The path as it is on disk now: a file's blob, a folder's visible files as a tree, or gone. */
  private async changeFor(path: string, segments: string[]): Promise<Change> {
    const entry = await this.vaultFiles.entry(path);
    if (!entry) return { segments, oid: null, mode: FILE_MODE };
    if ("folder" in entry) return { segments, oid: await this.folderTree(path, entry.folder), mode: TREE_MODE };
    return { segments, oid: await this.blob(entry.file), mode: FILE_MODE };
  }

  /** A blob's id without writing it. */
  private async blobId(bytes: Uint8Array): Promise<string> {
    const object = gitObject("blob", bytes);
    return this.options.sha1 ? this.options.sha1(object) : sha1Hex(object);
  }

  private blob(bytes: Uint8Array): Promise<string> {
    return this.writeObject("blob", bytes);
  }

  /** Writes the tree and keeps it for the next commit that starts from it. */
  private async writeTree(image: TreeImage): Promise<string> {
    const oid = await this.writeObject("tree", image.content);
    this.remember(oid, image);
    return oid;
  }

  /**
   * A loose object as git stores it, written here rather than by isomorphic-git's writeBlob and
   * writeTree: those wrap the file system, look for the git directory and check every entry's shape on
   * each call, which at a folder of hundreds of notes cost more than the commit's own I/O. Resolves
   * with the id once it is hashed; the file is written in the background, since a commit needs only
   * its parts' ids, and `settleWrites` waits for it before any ref may name it.
   */
  private async writeObject(type: "blob" | "tree" | "commit", content: Uint8Array): Promise<string> {
    const object = gitObject(type, content);
    const oid = this.options.sha1 ? this.options.sha1(object) : await sha1Hex(object);
    if (this.objects.has(oid)) return oid;
    while (this.writing >= OBJECT_WRITES_PARALLEL) await Promise.race(this.inflight.values());
    if (this.objects.size >= KNOWN_OBJECTS_MAX) this.objects.clear();
    this.objects.add(oid);
    this.loose += 1;
    this.writing += 1;
    const written = this.storeObject(oid, object).then(
      () => {
        this.inflight.delete(oid);
        return null;
      },
      (error: unknown) => {
        // Kept until a settle reports it; the object counts as unwritten.
        this.objects.delete(oid);
        return error;
      },
    );
    this.inflight.set(oid, written.finally(() => (this.writing -= 1)));
    return oid;
  }

  /**
   * Not looked for first: an object is all but always new (a blob may be there already, for a note set
   * back to an earlier text), and one written again over itself, or over a damaged copy, is whole.
   */
  private async storeObject(oid: string, object: Uint8Array): Promise<void> {
    await this.durable.writeObject(oid, object, this.options.deflate ?? streamDeflate);
  }

  /** Waits for the objects being written (all, or the ones named) and throws the first failure among them. */
  private async settleWrites(oids?: readonly string[]): Promise<void> {
    const waiting = oids ? oids.flatMap((oid) => (this.inflight.has(oid) ? [[oid, this.inflight.get(oid)!] as const] : [])) : [...this.inflight];
    const failures: unknown[] = [];
    for (const [oid, written] of waiting) {
      const failure = await written;
      // A failure stays for the next full settle too: a commit of another caller may name the object.
      if (failure === null || !oids) this.inflight.delete(oid);
      if (failure !== null) failures.push(failure);
    }
    if (failures.length > 0) throw failures[0];
  }

  /** A tree of the folder's visible files, or null when it holds none. */
  private async folderTree(path: string, names: readonly string[]): Promise<string | null> {
    const entries: TreeEntry[] = [];
    for (const name of names) {
      if (name.startsWith(".")) continue;
      const entry = await this.vaultFiles.entry(`${path}/${name}`);
      if (!entry) continue;
      if ("folder" in entry) {
        const oid = await this.folderTree(`${path}/${name}`, entry.folder);
        if (oid) entries.push({ mode: TREE_MODE, path: name, oid, type: "tree" });
      } else {
        entries.push({ mode: FILE_MODE, path: name, oid: await this.blob(entry.file), type: "blob" });
      }
    }
    return entries.length === 0 ? null : this.writeTree(treeImage(entries));
  }

  /** One commit of the changes on `parent` (whose tree is `base`), without moving the branch; null when nothing changes. */
  private async buildCommit(parent: string | null, base: string | null, changes: readonly Change[], message: string): Promise<{ id: string; tree: string } | null> {
    const tree = (await this.applyChanges(base, changes)) ?? (await this.writeTree(EMPTY_TREE));
    if (tree === base) return null;
    const now = this.options.clock.now();
    const author = this.options.author ?? DEFAULT_AUTHOR;
    const signature = { name: author.name, email: author.email, timestamp: Math.floor(now / 1000), timezoneOffset: new Date(now).getTimezoneOffset() };
    const id = await this.writeObject("commit", encoder.encode(commitText(tree, parent, signature, message)));
    return { id, tree };
  }

  private commitChanges(changes: readonly Change[], message: string): Promise<string | null> {
    return this.underBranchLock(async () => {
      const head = await this.branchHead();
      const base = head ? (this.tip?.id === head ? this.tip.tree : (await this.commitAt(head)).commit.tree) : null;
      const next = await this.buildCommit(head, base, changes, message);
      if (!next) return null;
      await this.settleWrites();
      await this.moveBranch(next.id);
      this.tip = next;
      return next.id;
    });
  }

  /** The branch's commit before building on it: read from disk unless this history keeps the branch lock. */
  private async branchHead(): Promise<string | null> {
    if (this.keeper && this.knownHead !== undefined) return this.knownHead;
    const head = await this.head();
    if (this.keeper) this.knownHead = head;
    return head;
  }

  private async moveBranch(to: string): Promise<void> {
    try {
      await writeRef({ fs: this.fs, gitdir: this.gitdir, ref: this.branchRef, value: to, force: true });
    } catch (error) {
      // The ref may or may not have moved: read it again before the next commit.
      this.knownHead = undefined;
      throw error;
    }
    this.knownHead = to;
  }

  /**
   * Runs `work` (read the branch, commit on it, move it) holding the branch lock: several processes may
   * keep one history (`serve --stdio`, one per client), and without it one moves the branch over the
   * other's commits. A lock older than BRANCH_LOCK_STALE_MS is a crashed holder's and is taken over.
   */
  private async underBranchLock<T>(work: () => Promise<T>): Promise<T> {
    if (this.keeper) return work();
    await this.takeBranchLock("");
    try {
      return await work();
    } finally {
      await this.options.fs.unlink(joinPath(this.gitdir, BRANCH_LOCK)).catch(() => undefined);
    }
  }

  /**
   * Creates the branch lock holding `text`, once no live process holds it. A lock a server keeps
   * refuses at once (another process's commits could wait for it as long as the server runs), unless
   * this history is to keep it: with the data folder's lock held, such a lock is a dead server's.
   */
  private async takeBranchLock(text: string): Promise<void> {
    const file = joinPath(this.gitdir, BRANCH_LOCK);
    const fs = this.options.fs;
    const started = Date.now();
    for (let pause = 1; ; pause = Math.min(pause * 2, 50)) {
      try {
        const handle = await fs.open(file, "wx");
        try {
          if (text) await handle.writeFile(text);
        } finally {
          await handle.close();
        }
        return;
      } catch (error) {
        if (!isCode(error, "EEXIST")) throw error;
      }
      const held = await fs.stat(file).catch(() => null);
      const kept = held !== null && held.size > 0 && (await this.readBranchLock()) === KEPT_BRANCH_LOCK;
      if (held && (Date.now() - held.mtimeMs > BRANCH_LOCK_STALE_MS || (kept && text === KEPT_BRANCH_LOCK))) {
        await fs.unlink(file).catch(() => undefined);
        continue;
      }
      if (kept) {
        throw new Error(
          "a secondbrain-mcp server with the same data folder keeps this vault's history; connect this client to that server over HTTP, or give this process a --data folder of its own",
        );
      }
      if (Date.now() - started > BRANCH_LOCK_WAIT_MS) throw new Error(`another process has held the history's branch for ${BRANCH_LOCK_WAIT_MS / 1000} s`);
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }

  private async readBranchLock(): Promise<string | null> {
    const text = await this.options.fs.readFile(joinPath(this.gitdir, BRANCH_LOCK), "utf8").catch(() => null);
    return text === null ? null : textOf(text);
  }

  /**
   * For an exclusive history: takes the branch lock once and keeps it, renewed, until close, so no
   * commit group pays for it and the branch is read once. Should another process take it over as a
   * crashed holder's (this one stalled past BRANCH_LOCK_STALE_MS), every group after takes the lock
   * and reads the branch again.
   */
  private async keepBranchLock(): Promise<void> {
    await this.takeBranchLock(KEPT_BRANCH_LOCK);
    const file = joinPath(this.gitdir, BRANCH_LOCK);
    const renew = async (): Promise<void> => {
      try {
        if ((await this.readBranchLock()) !== KEPT_BRANCH_LOCK) throw new Error("another process took the history's branch lock over");
        const handle = await this.options.fs.open(file, "r+");
        try {
          await handle.writeFile(KEPT_BRANCH_LOCK);
        } finally {
          await handle.close();
        }
      } catch (error) {
        // Let go at close meanwhile: nothing was lost.
        if (this.closed || !this.keeper) return;
        // Rare (a stall of many seconds, the folder removed): the next groups lock the branch each time.
        await this.queue.run(async () => this.letBranchLockGo());
        this.options.logger.log({ level: "warn", event: "history_branch_lock_lost", vault: this.options.vault, reason: describeFailure(error) });
      }
    };
    const keeper = setInterval(() => void renew(), BRANCH_LOCK_RENEW_MS);
    (keeper as { unref?: () => void }).unref?.();
    this.keeper = keeper;
  }

  /** Stops keeping the branch lock; removes the file only when it is still this history's. */
  private async letBranchLockGo(): Promise<void> {
    if (!this.keeper) return;
    clearInterval(this.keeper);
    this.keeper = null;
    this.knownHead = undefined;
    if ((await this.readBranchLock()) === KEPT_BRANCH_LOCK) await this.options.fs.unlink(joinPath(this.gitdir, BRANCH_LOCK)).catch(() => undefined);
  }

  private async image(tree: string): Promise<TreeImage> {
    const cached = this.trees.get(tree);
    if (cached) {
      // Most recently used last, so the trees of the folders being written stay.
      this.trees.delete(tree);
      this.trees.set(tree, cached);
      return cached;
    }
    const image = treeImage((await readTree({ fs: this.fs, gitdir: this.gitdir, oid: tree, cache: this.cache })).tree);
    this.remember(tree, image);
    return image;
  }

  private remember(tree: string, image: TreeImage): void {
    if (this.trees.has(tree)) return;
    this.trees.set(tree, image);
    this.treeBytes += image.content.byteLength;
    for (const [oid, old] of this.trees) {
      if (this.trees.size <= TREE_CACHE_MAX && this.treeBytes <= TREE_CACHE_BYTES) break;
      this.trees.delete(oid);
      this.treeBytes -= old.content.byteLength;
    }
  }

  /** The tree with the changes applied; null when nothing is left in it. */
  private async applyChanges(tree: string | null, changes: readonly Change[]): Promise<string | null> {
    const base = tree ? await this.image(tree) : EMPTY_TREE;
    const byName = new Map<string, Change[]>();
    for (const change of changes) {
      const name = change.segments[0]!;
      const group = byName.get(name);
      if (group) group.push(change);
      else byName.set(name, [change]);
    }
    const updates = new Map<string, TreeEntry | null>();
    for (const [name, group] of byName) {
      const before = base.entries[findEntry(base, name)] ?? null;
      let after = before;
      // A change to the entry itself first, then changes below it (a folder replaced, then edited).
      for (const change of group.filter((item) => item.segments.length === 1)) {
        after = change.oid === null ? null : { mode: change.mode, path: name, oid: change.oid, type: change.mode === TREE_MODE ? "tree" : "blob" };
      }
      const deeper = group.filter((item) => item.segments.length > 1).map((item) => ({ ...item, segments: item.segments.slice(1) }));
      if (deeper.length > 0) {
        const subtree = await this.applyChanges(after?.type === "tree" ? after.oid : null, deeper);
        after = subtree === null ? null : { mode: TREE_MODE, path: name, oid: subtree, type: "tree" };
      }
      if (before?.oid !== after?.oid || before?.mode !== after?.mode) updates.set(name, after);
    }
    if (updates.size === 0) return tree;
    const next = patchTree(base, updates);
    return next.entries.length === 0 ? null : this.writeTree(next);
  }

  private async recordBaseline(list: () => Promise<string[]>): Promise<void> {
    const started = this.options.clock.now();
    try {
      await this.assertGitdir();
      if (await this.head()) return;
      const paths = (await list()).filter((path) => !hasHiddenSegment(path));
      const changes: Change[] = [];
      for (let start = 0; start < paths.length; start += BASELINE_PARALLEL) {
        if (this.closed) {
          this.options.logger.log({ level: "info", event: "history_baseline_postponed", vault: this.options.vault, reason: "shutting down" });
          return;
        }
        const batch = paths.slice(start, start + BASELINE_PARALLEL);
        const blobs = await Promise.all(
          batch.map(async (path) => {
            // Gone since it was listed: the baseline records what is there.
            const entry = await this.vaultFiles.entry(path);
            return entry && "file" in entry ? { segments: path.split("/"), oid: await this.blob(entry.file), mode: FILE_MODE } : null;
          }),
        );
        for (const blob of blobs) if (blob) changes.push(blob);
      }
      if (changes.length === 0) return;
      const id = await this.commitChanges(changes, `initial: ${changes.length} notes\n`);
      this.options.logger.log({
        level: "info",
        event: "history_baseline",
        vault: this.options.vault,
        notes: changes.length,
        commit: id?.slice(0, 7) ?? null,
        duration_ms: this.options.clock.now() - started,
      });
      if (id) this.schedulePush();
    } catch (error) {
      this.options.logger.log({ level: "warn", event: "history_baseline_failed", vault: this.options.vault, reason: describeFailure(this.explain(error)) });
    }
  }

  // ---- reading ---------------------------------------------------------------------------

  private async commitAt(oid: string): Promise<ReadCommitResult> {
    return readCommit({ fs: this.fs, gitdir: this.gitdir, oid, cache: this.cache });
  }

  /** The entry at the path in a tree: its oid and whether it is a file, or null when absent. */
  private async entryAt(tree: string, segments: readonly string[]): Promise<TreeEntry | null> {
    let current = tree;
    for (let position = 0; position < segments.length; position++) {
      const image = await this.image(current);
      const entry = image.entries[findEntry(image, segments[position]!)];
      if (!entry) return null;
      if (position === segments.length - 1) return entry;
      if (entry.type !== "tree") return null;
      current = entry.oid;
    }
    return null;
  }

  async log(path: string | null, limit: number): Promise<HistoryEntry[]> {
    await this.assertGitdir();
    const found: HistoryEntry[] = [];
    const segments = path === null ? null : vaultSegments(path);
    if (limit <= 0 || (path !== null && segments === null)) return found;
    const head = await this.head();
    let current: ReadCommitResult | null = head ? await this.commitAt(head) : null;
    let mine = current && segments ? await this.entryAt(current.commit.tree, segments) : null;
    // First parents only: this repository's history is a line.
    while (current && found.length < limit) {
      const parentId = current.commit.parent[0];
      const parent = parentId ? await this.commitAt(parentId) : null;
      if (segments) {
        const theirs = parent ? await this.entryAt(parent.commit.tree, segments) : null;
        const changed = (mine?.oid ?? null) !== (theirs?.oid ?? null);
        mine = theirs;
        if (!changed) {
          current = parent;
          continue;
        }
      }
      found.push(toEntry(current, path));
      current = parent;
    }
    return found;
  }

  private async resolveRevision(revision: string): Promise<string> {
    const wanted = revision.trim().toLowerCase();
    const unknown = (): ToolError =>
      new ToolError("not_found", `There is no revision "${revision}" in the history of vault "${this.options.vault}". Call note_history to list the revisions of a note and pass one of their commit ids.`, {
        details: { revision },
      });
    if (wanted === "head") {
      const head = await this.head();
      if (!head) throw unknown();
      return head;
    }
    if (!/^[0-9a-f]{4,40}$/.test(wanted)) {
      throw new ToolError("invalid_argument", `"${revision}" is not a commit id. Pass a commit id from note_history (at least 4 hex characters), or HEAD for the newest.`);
    }
    let oid: string;
    try {
      oid = await expandOid({ fs: this.fs, gitdir: this.gitdir, oid: wanted, cache: this.cache });
    } catch (error) {
      if (isCode(error, "AmbiguousError")) {
        throw new ToolError("invalid_argument", `"${revision}" matches more than one commit; pass more characters of the commit id (note_history lists them).`);
      }
      if (isCode(error, "NotFoundError")) throw unknown();
      throw error;
    }
    try {
      await this.commitAt(oid);
    } catch (error) {
      if (isCode(error, "ObjectTypeError") || isCode(error, "NotFoundError")) throw unknown();
      throw error;
    }
    return oid;
  }

  async readAt(path: string, revision: string): Promise<Uint8Array | null> {
    await this.assertGitdir();
    const segments = vaultSegments(path);
    const oid = await this.resolveRevision(revision);
    if (!segments) return null;
    const entry = await this.entryAt((await this.commitAt(oid)).commit.tree, segments);
    if (!entry || entry.type !== "blob") return null;
    const { blob } = await readBlob({ fs: this.fs, gitdir: this.gitdir, oid: entry.oid, cache: this.cache });
    return blob;
  }

  // ---- push ------------------------------------------------------------------------------

  private schedulePush(): void {
    if (!this.options.push || this.closed) return;
    if (this.pushing) {
      this.pushAgain = true;
      return;
    }
    const settings = this.options.push;
    this.pushing = (async () => {
      do {
        this.pushAgain = false;
        await this.pushOnce(settings);
      } while (this.pushAgain && !this.closed);
      this.pushing = null;
    })();
  }

  private async pushOnce(settings: PushSettings): Promise<void> {
    const started = this.options.clock.now();
    const url = redactUrl(settings.url);
    try {
      const result = await push({
        fs: this.fs,
        http: settings.http,
        gitdir: this.gitdir,
        url: settings.url,
        ref: DEFAULT_BRANCH,
        remoteRef: DEFAULT_BRANCH,
        ...(settings.token !== undefined
          ? { onAuth: () => ({ username: settings.username ?? "x-access-token", password: settings.token }), onAuthFailure: () => ({ cancel: true }) }
          : {}),
      });
      if (!result.ok) throw new Error(result.error ?? "the remote refused the push");
      this.options.logger.log({ level: "info", event: "history_pushed", vault: this.options.vault, remote: url, duration_ms: this.options.clock.now() - started });
    } catch (error) {
      const reason = redact(describeFailure(error), settings.token);
      this.options.logger.log({ level: "warn", event: "history_push_failed", vault: this.options.vault, remote: url, reason });
    }
  }
}

/** A commit as note_history shows it; of a commit of several writes, the write of `path` when given. */
function toEntry(read: ReadCommitResult, path: string | null): HistoryEntry {
  const parsed = (path === null ? null : parseGroupedWrite(read.commit.message, path)) ?? parseMessage(read.commit.message);
  const entry: HistoryEntry = {
    id: read.oid,
    short: read.oid.slice(0, 7),
    when: read.commit.author.timestamp * 1000,
    author: read.commit.author.name,
    message: parsed.text,
  };
  if (parsed.via !== undefined) entry.via = parsed.via;
  if (parsed.user !== undefined) entry.user = parsed.user;
  return entry;
}

/** A URL for a log line: user name and password (if someone put them there) removed. */
export function redactUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^@/]*@/i, "$1");
}

function redact(text: string, token: string | undefined): string {
  const cleaned = text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^@/\s]*@/gi, "$1");
  return token && token.length > 0 ? cleaned.split(token).join("<token>") : cleaned;
}
