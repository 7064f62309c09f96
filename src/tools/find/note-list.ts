// note_list and attachment_list: the vault's files, filtered and paged.
import type { FileRecord, VaultEngine } from "../../core/vault/types";
import { extname } from "../../core/notes/paths";
import { fileFilter, globField, iso, limitField, modifiedAfterField, offsetField, page, prefixField, vaultField } from "../common";
import { boolean, object, optional, string, withDefault } from "../schema";
import { READ_ONLY, defineTool } from "../types";

const SORTS = ["path", "modified", "size", "name"] as const;
type SortKey = (typeof SORTS)[number];

function compareBy(sort: SortKey): (a: FileRecord, b: FileRecord) => number {
  const byPath = (a: FileRecord, b: FileRecord): number => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
  switch (sort) {
    case "modified":
      return (a, b) => b.mtime - a.mtime || byPath(a, b);
    case "size":
      return (a, b) => b.size - a.size || byPath(a, b);
    case "name":
      return (a, b) => {
        const nameA = a.path.slice(a.path.lastIndexOf("/") + 1).toLowerCase();
        const nameB = b.path.slice(b.path.lastIndexOf("/") + 1).toLowerCase();
        return nameA < nameB ? -1 : nameA > nameB ? 1 : byPath(a, b);
      };
    default:
      return byPath;
  }
}

export const noteList = defineTool({
  name: "note_list",
  title: "List notes and files",
  description:
    "Lists files of a vault (notes and, unless `notes_only`, attachments) with size and modification time. Filter by folder `prefix`, `glob` or `modified_after`; sort by path, modified (newest first), size or name; page with limit/offset. To find notes by content use note_search.",
  group: "find",
  input: object({
    vault: vaultField,
    prefix: prefixField,
    glob: globField,
    modified_after: modifiedAfterField,
    notes_only: withDefault(boolean({ description: "Leave attachments out." }), false),
    sort: withDefault(string({ description: "Sort order.", enum: SORTS }), "path"),
    limit: limitField(100, 1000),
    offset: offsetField,
  }),
  annotations: READ_ONLY,
  async handler(ctx, args) {
    const engine = ctx.vaults.get(args.vault);
    const keep = fileFilter(args, ctx.now());
    const matching = engine.files().filter((file) => keep(file) && (!args.notes_only || file.isNote));
    const sorted = [...matching].sort(compareBy(args.sort as SortKey));
    const { total, returned, items } = page(sorted, args.offset, args.limit);
    return {
      vault: engine.name,
      total,
      returned,
      offset: args.offset,
      entries: items.map((file) => ({
        path: file.path,
        kind: file.isNote ? "note" : "attachment",
        title: file.isNote ? engine.summary(file.path)?.title : undefined,
        bytes: file.size,
        modified: iso(file.mtime),
      })),
    };
  },
});

/** How often each attachment is linked or embedded from notes. */
export function attachmentReferences(engine: VaultEngine): Map<string, number> {
  const counts = new Map<string, number>();
  for (const targets of Object.values(engine.metadata().resolvedLinks())) {
    for (const [target, count] of Object.entries(targets)) {
      if (extname(target) !== "md") counts.set(target, (counts.get(target) ?? 0) + count);
    }
  }
  return counts;
}

export const attachmentList = defineTool({
  name: "attachment_list",
  title: "List attachments",
  description:
    "Lists the vault's non-note files (images, PDFs, canvases, …) with size, modification time and how many times notes link or embed each. `unused_only` finds attachments nothing references.",
  group: "find",
  input: object({
    vault: vaultField,
    prefix: prefixField,
    glob: globField,
    extension: optional(string({ description: "Only this extension, e.g. `png` (no dot)." })),
    unused_only: withDefault(boolean({ description: "Only attachments no note links to or embeds." }), false),
    limit: limitField(100, 1000),
    offset: offsetField,
  }),
  annotations: READ_ONLY,
  async handler(ctx, args) {
    const engine = ctx.vaults.get(args.vault);
    const keep = fileFilter(args, ctx.now());
    const references = attachmentReferences(engine);
    const wantedExt = args.extension?.replace(/^\./, "").toLowerCase();
    const matching = engine
      .files()
      .filter((file) => !file.isNote && keep(file))
      .filter((file) => !wantedExt || extname(file.path) === wantedExt)
      .map((file) => ({ file, references: references.get(file.path) ?? 0 }))
      .filter((entry) => !args.unused_only || entry.references === 0);
    const { total, returned, items } = page(matching, args.offset, args.limit);
    return {
      vault: engine.name,
      total,
      returned,
      offset: args.offset,
      attachments: items.map(({ file, references: count }) => ({
        path: file.path,
        extension: extname(file.path),
        bytes: file.size,
        modified: iso(file.mtime),
        references: count,
      })),
    };
  },
});
