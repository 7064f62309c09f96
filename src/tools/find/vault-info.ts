// vault_list and vault_stats: what is served and how big it is.
import type { LinkMap } from "../../core/ports";
import { vaultFolderMissing } from "../../core/vault/directory";
import type { FileRecord, VaultView } from "../../core/vault/types";
import { iso, vaultField } from "../common";
import { object } from "../schema";
import { READ_ONLY, defineTool } from "../types";

export const vaultList = defineTool({
  name: "vault_list",
  title: "List vaults",
  description:
    "Lists the vaults you can use, with note and attachment counts, whether the vault is available (`available`; false while its folder is missing, and then every other tool on it refuses until the folder is back), whether the search index is ready, the semantic index's progress (`semantic`: state off/loading/embedding/ready/failed, done and total notes, model, and `error` saying why the embedding provider failed), whether the vault keeps a history (`versioned`; when false, `history_unavailable` says why and note_history/note_diff/note_restore do not work there), `types`: whether the types note that re-ranks note_search by links, age and note type is absent, loaded or invalid (with the error to fix), and `recovered` when a vault-wide change interrupted by a crash was completed or undone at a start (`operation`, `outcome`: completed or rolled_back, `files`, `at`, `conflicts`: notes changed by someone else, left as they are). Call this first when you do not know the vault name; every other tool takes `vault` (omit it for the default).",
  group: "find",
  input: object({}),
  annotations: READ_ONLY,
  async handler(ctx) {
    const defaultName = ctx.vaults.defaultName();
    const vaults = await Promise.all(
      ctx.vaults.visible().map(async (engine) => {
        const files = engine.files();
        const notes = files.filter((file) => file.isNote).length;
        const history = engine.history()?.status() ?? { versioned: false as const, reason: "history is turned off for this vault" };
        const available = engine.available();
        const recovered = engine.lastRecovery();
        return {
          name: engine.name,
          default: engine.name === defaultName,
          available,
          ...(available ? {} : { unavailable: vaultFolderMissing(engine.name).message }),
          notes,
          attachments: files.length - notes,
          index: engine.indexState(),
          semantic: engine.semanticStatus(),
          has_instructions: (await engine.instructions()) !== null,
          versioned: history.versioned,
          ...(history.versioned ? {} : { history_unavailable: history.reason }),
          ...(recovered ? { recovered } : {}),
          types: await engine.typesConfigStatus(),
        };
      }),
    );
    return { total: vaults.length, returned: vaults.length, default: defaultName, vaults };
  },
});

export interface VaultStats {
  notes: number;
  attachments: number;
  words: number;
  bytes: number;
  tags: number;
  links: number;
  broken_links: number;
  orphans: number;
  open_tasks: number;
  last_modified: string | null;
  top_tags: Array<{ tag: string; count: number }>;
}

/** No link to another file and none from another note; a note's links to itself do not count. */
export function isOrphan(engine: VaultView, path: string, resolved: LinkMap = engine.metadata().resolvedLinks()): boolean {
  const linksElsewhere = Object.keys(resolved[path] ?? {}).some((target) => target !== path);
  const linkedFromElsewhere = [...engine.incoming(path).keys()].some((source) => source !== path);
  return !linksElsewhere && !linkedFromElsewhere;
}

/** vault_stats' counts, added up one file at a time so a long vault can be counted in slices. */
class StatsTally {
  private readonly resolved: LinkMap;
  private readonly unresolved: LinkMap;
  private readonly tagCounts = new Map<string, number>();
  private files = 0;
  private notes = 0;
  private words = 0;
  private bytes = 0;
  private openTasks = 0;
  private lastModified = 0;
  private orphans = 0;
  private links = 0;
  private broken = 0;

  constructor(private readonly engine: VaultView) {
    this.resolved = engine.metadata().resolvedLinks();
    this.unresolved = engine.metadata().unresolvedLinks();
  }

  add(file: FileRecord): void {
    this.files += 1;
    this.bytes += file.size;
    this.lastModified = Math.max(this.lastModified, file.mtime);
    if (!file.isNote) return;
    this.notes += 1;
    const facts = this.engine.noteFacts(file.path);
    if (facts) {
      this.words += facts.words;
      this.openTasks += facts.tasks.filter((task) => !task.done).length;
      for (const tag of facts.tags) this.tagCounts.set(tag, (this.tagCounts.get(tag) ?? 0) + 1);
    }
    const outgoing = Object.values(this.resolved[file.path] ?? {}).reduce((sum, count) => sum + count, 0);
    const missing = Object.values(this.unresolved[file.path] ?? {}).reduce((sum, count) => sum + count, 0);
    this.links += outgoing + missing;
    this.broken += missing;
    if (isOrphan(this.engine, file.path, this.resolved)) this.orphans += 1;
  }

  result(): VaultStats {
    const top = [...this.tagCounts.entries()]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, 10)
      .map(([tag, count]) => ({ tag, count }));
    return {
      notes: this.notes,
      attachments: this.files - this.notes,
      words: this.words,
      bytes: this.bytes,
      tags: this.tagCounts.size,
      links: this.links,
      broken_links: this.broken,
      orphans: this.orphans,
      open_tasks: this.openTasks,
      last_modified: this.lastModified > 0 ? iso(this.lastModified) : null,
      top_tags: top,
    };
  }
}

export function computeStats(engine: VaultView): VaultStats {
  const tally = new StatsTally(engine);
  for (const file of engine.files()) tally.add(file);
  return tally.result();
}

/**
 * The same counts, with `pause` called between files so a large vault does not hold the event loop
 * (the metrics endpoint reads them at every scrape). Files changed meanwhile may be counted as they
 * were or as they are: a gauge, not a transaction.
 */
export async function computeStatsInSlices(engine: VaultView, pause: () => Promise<void>): Promise<VaultStats> {
  const tally = new StatsTally(engine);
  for (const file of engine.files()) {
    tally.add(file);
    await pause();
  }
  return tally.result();
}

export const vaultStats = defineTool({
  name: "vault_stats",
  title: "Vault statistics",
  description:
    "Counts for one vault: notes, attachments, words, bytes, distinct tags, links, broken links, orphans (notes with no links in or out), open tasks, last modification and the ten most used tags.",
  group: "find",
  input: object({ vault: vaultField }),
  annotations: READ_ONLY,
  async handler(ctx, args) {
    const engine = ctx.vaults.get(args.vault);
    return { vault: engine.name, stats: computeStats(engine) };
  },
});
