// vault_list and vault_stats: what is served and how big it is.
import type { LinkMap } from "../../core/ports";
import { vaultFolderMissing } from "../../core/vault/directory";
import type { VaultEngine, VaultView } from "../../core/vault/types";
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

export function computeStats(engine: VaultEngine): VaultStats {
  const files = engine.files();
  const resolved = engine.metadata().resolvedLinks();
  const unresolved = engine.metadata().unresolvedLinks();
  const tagCounts = new Map<string, number>();
  let notes = 0;
  let words = 0;
  let bytes = 0;
  let openTasks = 0;
  let lastModified = 0;
  let orphans = 0;
  let links = 0;
  let broken = 0;
  for (const file of files) {
    bytes += file.size;
    lastModified = Math.max(lastModified, file.mtime);
    if (!file.isNote) continue;
    notes += 1;
    const facts = engine.noteFacts(file.path);
    if (facts) {
      words += facts.words;
      openTasks += facts.tasks.filter((task) => !task.done).length;
      for (const tag of facts.tags) tagCounts.set(tag, (tagCounts.get(tag) ?? 0) + 1);
    }
    const out = resolved[file.path] ?? {};
    const outgoing = Object.values(out).reduce((sum, count) => sum + count, 0);
    const missing = Object.values(unresolved[file.path] ?? {}).reduce((sum, count) => sum + count, 0);
    links += outgoing + missing;
    broken += missing;
    if (isOrphan(engine, file.path, resolved)) orphans += 1;
  }
  const top = [...tagCounts.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, 10)
    .map(([tag, count]) => ({ tag, count }));
  return {
    notes,
    attachments: files.length - notes,
    words,
    bytes,
    tags: tagCounts.size,
    links,
    broken_links: broken,
    orphans,
    open_tasks: openTasks,
    last_modified: lastModified > 0 ? iso(lastModified) : null,
    top_tags: top,
  };
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
