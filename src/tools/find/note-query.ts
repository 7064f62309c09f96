// note_query: Dataview-like selection by frontmatter properties, without executing any code.
import { ToolError } from "../../core/errors";
import { fileFilter, globField, hasAllTags, iso, limitField, offsetField, page, prefixField, tagsField, vaultField } from "../common";
import { object, optional, record, string, stringList, withDefault } from "../schema";
import { READ_ONLY, defineTool } from "../types";
import { conditionsFrom, matches, property } from "./properties";

function sortText(value: unknown): string {
  return (typeof value === "string" ? value : JSON.stringify(value)).toLowerCase();
}

function compareValues(a: unknown, b: unknown): number {
  if (a === undefined || a === null) return b === undefined || b === null ? 0 : 1;
  if (b === undefined || b === null) return -1;
  if (typeof a === "number" && typeof b === "number") return a - b;
  const left = sortText(a);
  const right = sortText(b);
  return left < right ? -1 : left > right ? 1 : 0;
}

export const noteQuery = defineTool({
  name: "note_query",
  title: "Query notes by properties",
  description:
    'Selects notes by frontmatter properties, like a Dataview table without code: `where` maps property names to a value (equality; a list means any of) or to operators {eq, ne, gt, gte, lt, lte, contains, exists, in}, e.g. {"status": "active", "due": {"lt": "2026-04-01"}}. Sort by a property (`sort`, `order`), choose returned `fields`, filter by folder, glob and tags.',
  group: "find",
  input: object({
    vault: vaultField,
    where: optional(record({ description: 'Property conditions, e.g. {"status": "active", "due": {"lt": "2026-04-01"}}.' })),
    prefix: prefixField,
    glob: globField,
    tags: tagsField,
    sort: optional(string({ description: "Property to sort by (or `path`, `modified`)." })),
    order: withDefault(string({ description: "asc or desc.", enum: ["asc", "desc"] }), "asc"),
    fields: optional(stringList({ description: "Properties to return for each note (default: all frontmatter)." })),
    limit: limitField(50, 1000),
    offset: offsetField,
  }),
  annotations: READ_ONLY,
  largeResults: true,
  async handler(ctx, args) {
    const engine = ctx.vaults.get(args.vault);
    const conditions = args.where ? conditionsFrom(args.where) : [];
    if (conditions.length === 0 && !args.tags && !args.prefix && !args.glob) {
      throw new ToolError(
        "invalid_argument",
        'Give at least one condition: `where` (e.g. {"status": "active"}), `tags`, `prefix` or `glob`. To list every note use note_list.',
      );
    }
    const keep = fileFilter(args, ctx.now());
    const selected = engine.files().filter((file) => {
      if (!file.isNote || !keep(file)) return false;
      if (args.tags && !hasAllTags(engine.summary(file.path)?.tags ?? [], args.tags)) return false;
      const frontmatter = engine.cache(file.path)?.frontmatter;
      return conditions.every((condition) => matches(frontmatter, condition));
    });
    const sortKey = args.sort;
    if (sortKey) {
      const direction = args.order === "desc" ? -1 : 1;
      const valueOf = (path: string, mtime: number): unknown =>
        sortKey === "path" ? path : sortKey === "modified" ? mtime : property(engine.cache(path)?.frontmatter, sortKey);
      selected.sort((a, b) => direction * compareValues(valueOf(a.path, a.mtime), valueOf(b.path, b.mtime)) || (a.path < b.path ? -1 : 1));
    }
    const { total, returned, items } = page(selected, args.offset, args.limit);
    return {
      vault: engine.name,
      total,
      returned,
      offset: args.offset,
      notes: items.map((file) => {
        const frontmatter = engine.cache(file.path)?.frontmatter ?? {};
        const properties = args.fields
          ? Object.fromEntries(args.fields.map((field) => [field, property(frontmatter, field) ?? null]))
          : frontmatter;
        return { path: file.path, title: engine.summary(file.path)?.title ?? file.path, modified: iso(file.mtime), properties };
      }),
    };
  },
});
