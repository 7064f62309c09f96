// Packs the history's loose objects, a bounded pack at a time, oldest commits first. A version of a
// folder's tree or of a note is stored as a delta against the next newer version of the same path in
// the same pack, so a thousand commits in a folder of thousands of notes cost one whole tree and a
// thousand small deltas instead of a thousand whole trees. A pack is written to a temp name, synced,
// renamed into place before its index (git reads a pack only once its index is there), and only then
// are the loose copies of its objects removed: a crash at any step leaves every object readable.
import { readCommit, readTree } from "isomorphic-git";
import { codeOf, inflate } from "./durable-fs";
import type { FencedFsClient, HistoryFs } from "./fenced-fs";
import { encodePack, type PackInput, type PackObjectType } from "./pack";

/** A delta chain longer than this is cut with a whole version: a read of an old version applies every link. */
const MAX_DELTA_DEPTH = 50;
const LOOSE_FOLDER = /^[0-9a-f]{2}$/;
const LOOSE_NAME = /^[0-9a-f]{38}$/;
const PACK_TEMP_PREFIX = "tmp_pack_";
const PACK_PART = /^pack-([0-9a-f]{40})\.(pack|idx)$/;

export interface PackBudget {
  /** Objects one pack takes at most: a long history is packed in steps, each of which a stop can end. */
  objects: number;
  /** Content bytes one pack takes at most, which are held in memory while it is made. */
  bytes: number;
}

export interface CompactionContext {
  /** The host's file system, for the pack files and the loose files they replace. */
  fs: HistoryFs;
  /** The fenced client isomorphic-git reads packed objects through. */
  git: FencedFsClient;
  gitdir: string;
  cache: object;
  deflate(bytes: Uint8Array): Promise<Uint8Array>;
  sha1(bytes: Uint8Array): Promise<string> | string;
  head: string | null;
  budget: PackBudget;
}

export interface PackOutcome {
  /** Objects put into the pack and removed as loose files. */
  packed: number;
  /** The pack's size in bytes, 0 when none was written. */
  bytes: number;
  /** Whether loose objects of the branch's history are left for another pack. */
  more: boolean;
}

interface Found {
  oid: string;
  type: PackObjectType;
  content: Uint8Array;
  /** The id at the same path in the parent commit, whose version this one is the next of. */
  older?: string;
}

interface TreeRecord {
  mode: string;
  name: string;
  oid: string;
}

const decoder = new TextDecoder();

function hex(bytes: Uint8Array): string {
  let out = "";
  for (const byte of bytes) out += byte.toString(16).padStart(2, "0");
  return out;
}

function parseTree(content: Uint8Array): TreeRecord[] {
  const records: TreeRecord[] = [];
  let at = 0;
  while (at < content.length) {
    const space = content.indexOf(0x20, at);
    const nul = content.indexOf(0, space + 1);
    if (space < 0 || nul < 0 || nul + 21 > content.length) throw new Error("a tree object is damaged");
    records.push({ mode: decoder.decode(content.subarray(at, space)), name: decoder.decode(content.subarray(space + 1, nul)), oid: hex(content.subarray(nul + 1, nul + 21)) });
    at = nul + 21;
  }
  return records;
}

/** The ids of the loose objects, from the names of their files. */
export async function looseObjects(fs: HistoryFs, gitdir: string): Promise<Set<string>> {
  const found = new Set<string>();
  let folders: string[];
  try {
    folders = await fs.readdir(`${gitdir}/objects`);
  } catch {
    return found;
  }
  for (const folder of folders) {
    if (!LOOSE_FOLDER.test(folder)) continue;
    const names = await fs.readdir(`${gitdir}/objects/${folder}`).catch(() => [] as string[]);
    for (const name of names) if (LOOSE_NAME.test(name)) found.add(folder + name);
  }
  return found;
}

/**
 * Removes what a pack cut short by a crash left: its temp files, and a pack or an index without the
 * other (its objects are all still loose: none goes before both are in place). Resolves to how many.
 */
export async function removePackLeftovers(fs: HistoryFs, gitdir: string): Promise<number> {
  const dir = `${gitdir}/objects/pack`;
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  const present = new Set(names);
  let removed = 0;
  for (const name of names) {
    const part = PACK_PART.exec(name);
    const orphan = part !== null && !present.has(`pack-${part[1]}.${part[2] === "pack" ? "idx" : "pack"}`);
    if (!name.startsWith(PACK_TEMP_PREFIX) && !orphan) continue;
    await fs.unlink(`${dir}/${name}`).then(
      () => (removed += 1),
      () => undefined,
    );
  }
  return removed;
}

class PackPlanner {
  private readonly claimed = new Set<string>();
  /** Objects and content bytes taken so far, commits included. */
  count = 0;
  bytes = 0;

  constructor(
    private readonly context: CompactionContext,
    private readonly loose: ReadonlySet<string>,
  ) {}

  /** Whether the pack has taken all the budget allows: nothing more is read. */
  get full(): boolean {
    return this.count >= this.context.budget.objects || this.bytes >= this.context.budget.bytes;
  }

  /** A loose object's content, without its header. */
  async content(oid: string): Promise<Uint8Array> {
    const raw = await this.context.fs.readFile(`${this.context.gitdir}/objects/${oid.slice(0, 2)}/${oid.slice(2)}`);
    const object = await inflate(typeof raw === "string" ? new TextEncoder().encode(raw) : raw);
    return object.subarray(object.indexOf(0) + 1);
  }

  /** A tree's entries, from its loose file or else from a pack. */
  private async records(oid: string, content?: Uint8Array): Promise<TreeRecord[]> {
    if (content) return parseTree(content);
    if (this.loose.has(oid)) return parseTree(await this.content(oid));
    const { tree } = await readTree({ fs: this.context.git, gitdir: this.context.gitdir, oid, cache: this.context.cache });
    return tree.map((entry) => ({ mode: entry.mode, name: entry.path, oid: entry.oid }));
  }

  /** The tree a commit records, from its loose file or else from a pack. */
  async treeOf(commit: string): Promise<string> {
    if (!this.loose.has(commit)) return (await readCommit({ fs: this.context.git, gitdir: this.context.gitdir, oid: commit, cache: this.context.cache })).commit.tree;
    const tree = /^tree ([0-9a-f]{40})$/m.exec(decoder.decode(await this.content(commit)))?.[1];
    if (!tree) throw new Error(`commit ${commit} has no tree`);
    return tree;
  }

  /** Loose objects `oid` reaches that `older` (the parent's version of the same tree) does not, trees before what they hold. */
  async newIn(oid: string, older: string | null, into: Found[]): Promise<void> {
    if (oid === older || this.claimed.has(oid) || this.full) return;
    this.claimed.add(oid);
    const content = this.loose.has(oid) ? await this.content(oid) : undefined;
    if (content) this.take(into, { oid, type: "tree", content, ...(older ? { older } : {}) });
    const before = new Map<string, TreeRecord>();
    if (older) for (const record of await this.records(older)) before.set(record.name, record);
    for (const record of await this.records(oid, content)) {
      if (this.full) return;
      const previous = before.get(record.name);
      if (previous?.oid === record.oid) continue;
      const isTree = record.mode === "40000" || record.mode === "040000";
      const previousIsTree = previous !== undefined && (previous.mode === "40000" || previous.mode === "040000");
      if (isTree) {
        await this.newIn(record.oid, previousIsTree ? previous.oid : null, into);
      } else if (record.mode !== "160000" && this.loose.has(record.oid) && !this.claimed.has(record.oid)) {
        this.claimed.add(record.oid);
        this.take(into, { oid: record.oid, type: "blob", content: await this.content(record.oid), ...(previous && !previousIsTree ? { older: previous.oid } : {}) });
      }
    }
  }

  take(into: Found[], found: Found): void {
    into.push(found);
    this.count += 1;
    this.bytes += found.content.length;
  }
}

/**
 * One pack of the oldest loose commits of the branch and what they added, within the budget; a
 * commit is packed only with all it added (the first snapshot's thousands of notes fill several
 * packs, its commit going into the last).
 */
export async function packLoose(context: CompactionContext): Promise<PackOutcome> {
  const none: PackOutcome = { packed: 0, bytes: 0, more: false };
  const loose = await looseObjects(context.fs, context.gitdir);
  if (context.head === null || !loose.has(context.head)) return none;
  const planner = new PackPlanner(context, loose);
  // The loose commits, newest first, down to the first one already packed.
  const chain: Array<{ oid: string; content: Uint8Array; tree: string; parent: string | null }> = [];
  for (let oid: string | null = context.head; oid !== null && loose.has(oid); ) {
    const content = await planner.content(oid);
    const text = decoder.decode(content);
    const tree = /^tree ([0-9a-f]{40})$/m.exec(text)?.[1];
    if (!tree) throw new Error(`commit ${oid} has no tree`);
    const parent = /^parent ([0-9a-f]{40})$/m.exec(text)?.[1] ?? null;
    chain.push({ oid, content, tree, parent });
    oid = parent;
  }
  // Oldest first until the budget is spent; each commit's objects in the order found.
  const taken: Array<{ commit: Found | null; objects: Found[] }> = [];
  let more = false;
  for (let at = chain.length - 1; at >= 0; at--) {
    const commit = chain[at]!;
    const parentTree = commit.parent === null ? null : await planner.treeOf(commit.parent);
    const objects: Found[] = [];
    await planner.newIn(commit.tree, parentTree, objects);
    if (planner.full) {
      // A commit the budget cuts short: the first one goes in part, without its commit object, which
      // waits until all it added is packed; a later one waits whole for the next pack.
      if (taken.length === 0) taken.push({ commit: null, objects });
      more = true;
      break;
    }
    planner.count += 1;
    planner.bytes += commit.content.length;
    taken.push({ commit: { oid: commit.oid, type: "commit", content: commit.content }, objects });
    if (planner.full && at > 0) {
      more = true;
      break;
    }
  }
  // Newest first, each version of a path stored as a delta against its newer neighbour.
  const entries: PackInput[] = [];
  const position = new Map<string, number>();
  const depth: number[] = [];
  const newer = new Map<string, string>();
  for (let at = taken.length - 1; at >= 0; at--) {
    const { commit, objects } = taken[at]!;
    for (const found of commit ? [commit, ...objects] : objects) {
      const baseId = newer.get(found.oid);
      const base = baseId === undefined ? undefined : position.get(baseId);
      const deep = base === undefined ? 0 : depth[base]! + 1;
      const entry: PackInput = { oid: found.oid, type: found.type, content: found.content };
      if (base !== undefined && entries[base]!.type === found.type && deep <= MAX_DELTA_DEPTH) entry.base = base;
      position.set(found.oid, entries.length);
      depth.push(entry.base === undefined ? 0 : deep);
      entries.push(entry);
      if (found.older !== undefined && !newer.has(found.older)) newer.set(found.older, found.oid);
    }
  }
  if (entries.length === 0) return none;
  const encoded = await encodePack(entries, context);
  await writePack(context.fs, context.gitdir, encoded.name, encoded.pack, encoded.index);
  for (const entry of entries) {
    await context.fs.unlink(`${context.gitdir}/objects/${entry.oid.slice(0, 2)}/${entry.oid.slice(2)}`).catch((error: unknown) => {
      if (codeOf(error) !== "ENOENT") throw error;
    });
  }
  return { packed: entries.length, bytes: encoded.pack.length, more };
}

async function writeSynced(fs: HistoryFs, path: string, data: Uint8Array): Promise<void> {
  const handle = await fs.open(path, "wx");
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function syncFolder(fs: HistoryFs, path: string): Promise<void> {
  try {
    if (fs.syncPath) {
      await fs.syncPath(path);
      return;
    }
    const handle = await fs.open(path, "r");
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch (error) {
    // Folders cannot be synced everywhere (Windows, some network file systems).
    if (!["EISDIR", "EPERM", "EACCES", "EINVAL", "ENOTSUP", "EBADF"].includes(String(codeOf(error)))) throw error;
  }
}

/** The pack, then its index, each synced under a temp name and renamed; the folder synced before any loose copy goes. */
async function writePack(fs: HistoryFs, gitdir: string, name: string, pack: Uint8Array, index: Uint8Array): Promise<void> {
  const dir = `${gitdir}/objects/pack`;
  await fs.mkdir(dir, { recursive: true });
  const suffix = Math.random().toString(36).slice(2, 12);
  const temps = { pack: `${dir}/${PACK_TEMP_PREFIX}${suffix}.pack`, index: `${dir}/${PACK_TEMP_PREFIX}${suffix}.idx` };
  try {
    await writeSynced(fs, temps.pack, pack);
    await writeSynced(fs, temps.index, index);
    await fs.rename(temps.pack, `${dir}/pack-${name}.pack`);
    await fs.rename(temps.index, `${dir}/pack-${name}.idx`);
  } catch (error) {
    await fs.unlink(temps.pack).catch(() => undefined);
    await fs.unlink(temps.index).catch(() => undefined);
    throw error;
  }
  await syncFolder(fs, dir);
  await syncFolder(fs, `${gitdir}/objects`);
}
