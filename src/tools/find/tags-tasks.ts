// tag_list and task_list: the vault's tags with counts, and its tasks with their places.
import { fileFilter, globField, hasAllTags, limitField, offsetField, page, prefixField, tagsField, vaultField } from "../common";
import { object, optional, string, withDefault } from "../schema";
import { READ_ONLY, defineTool } from "../types";

export const tagList = defineTool({
  name: "tag_list",
  title: "List tags",
  description:
    "Every tag of the vault (frontmatter and inline, normalised: lower case, no `#`) with the number of notes carrying it. `prefix` keeps a tag family, e.g. `project` for `project/*`. Sort by count (default) or name.",
  group: "find",
  input: object({
    vault: vaultField,
    prefix: optional(string({ description: "Only tags starting with this, e.g. `project`." })),
    sort: withDefault(string({ description: "Sort by count or name.", enum: ["count", "name"] }), "count"),
    limit: limitField(200, 5000),
    offset: offsetField,
  }),
  annotations: READ_ONLY,
  async handler(ctx, args) {
    const engine = ctx.vaults.get(args.vault);
    const wanted = args.prefix?.replace(/^#/, "").toLowerCase();
    const counts = new Map<string, number>();
    for (const file of engine.files()) {
      if (!file.isNote) continue;
      for (const tag of engine.summary(file.path)?.tags ?? []) {
        if (wanted && !tag.startsWith(wanted)) continue;
        counts.set(tag, (counts.get(tag) ?? 0) + 1);
      }
    }
    const entries = [...counts.entries()].map(([tag, count]) => ({ tag, count }));
    entries.sort((a, b) => (args.sort === "name" ? 0 : b.count - a.count) || (a.tag < b.tag ? -1 : 1));
    const { total, returned, items } = page(entries, args.offset, args.limit);
    return { vault: engine.name, total, returned, offset: args.offset, tags: items };
  },
});

export const taskList = defineTool({
  name: "task_list",
  title: "List tasks",
  description:
    "Tasks (`- [ ]`, `- [x]`, also `*`/`+` bullets; never inside code) across the vault or one note, with path, file line number (as an editor shows it), text, done state and the heading above. Filter by status, folder, glob, tags or `path`.",
  group: "find",
  input: object({
    vault: vaultField,
    status: withDefault(string({ description: "open, done or all.", enum: ["open", "done", "all"] }), "open"),
    path: optional(string({ description: "Only tasks of this note." })),
    prefix: prefixField,
    glob: globField,
    tags: tagsField,
    limit: limitField(100, 2000),
    offset: offsetField,
  }),
  annotations: READ_ONLY,
  async handler(ctx, args) {
    const engine = ctx.vaults.get(args.vault);
    const only = args.path !== undefined ? (await engine.resolve(args.path, { note: true })).path : undefined;
    const keep = fileFilter(args, ctx.now());
    const tasks: Array<{ path: string; line: number; text: string; done: boolean; status: string; heading: string | null }> = [];
    for (const file of engine.files()) {
      if (!file.isNote || (only !== undefined && file.path !== only) || !keep(file)) continue;
      const facts = engine.noteFacts(file.path);
      if (!facts) continue;
      if (args.tags && !hasAllTags(facts.tags, args.tags)) continue;
      for (const task of facts.tasks) {
        if (args.status === "open" && task.done) continue;
        if (args.status === "done" && !task.done) continue;
        tasks.push({ path: file.path, line: task.line, text: task.text, done: task.done, status: task.status, heading: task.heading });
      }
    }
    const { total, returned, items } = page(tasks, args.offset, args.limit);
    return { vault: engine.name, total, returned, offset: args.offset, tasks: items };
  },
});
