// vault_create: lays out a vault's structure — folders (each made by its first note, since a folder
// exists only through its files), templates note_from_template can fill, and an INSTRUCTIONS.md that
// tells every agent how the vault is organised. Create-only: an existing file is never touched.
import { ToolError } from "../../core/errors";
import type { HistoryMeta } from "../../core/ports";
import type { VaultEngine } from "../../core/vault/types";
import { normalizeFolder, vaultField } from "../common";
import { object, optional, string } from "../schema";
import { defineTool, type ToolAnnotations } from "../types";
import { actorOf, dryRunField, reasonField } from "../write/common";
import { INBOX_FOLDER } from "../write/capture";
import { dailySettings } from "../write/journal";
import { templateSettings } from "../write/note-from-template";

export const LAYOUTS = ["wiki-raw", "para", "zettelkasten", "plain"] as const;
export type LayoutName = (typeof LAYOUTS)[number];

const INSTRUCTIONS_FILE = "INSTRUCTIONS.md";
const FOLDER_NOTE = "README.md";

/** Writes only new files: a second call finds them all and creates nothing, so it may be repeated. */
const CREATES_FILES: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

interface LayoutFolder {
  name: string;
  purpose: string;
}

interface LayoutTemplate {
  name: string;
  use: string;
  text: string;
}

interface Layout {
  title: string;
  summary: string;
  /** The entry note, relative to the layout's folder; folder notes link to it and it to them. */
  hub: string;
  hubTitle: string;
  folders: LayoutFolder[];
  templates: LayoutTemplate[];
  conventions: string[];
}

const LAYOUT_SPECS: Record<LayoutName, Layout> = {
  "wiki-raw": {
    title: "Wiki and raw sources",
    summary:
      "Sources are kept as they came in under raw/; the curated knowledge lives in wiki/, one note per topic, written and kept current from those sources. wiki/index.md lists every wiki page.",
    hub: "wiki/index.md",
    hubTitle: "Index",
    folders: [
      { name: "raw", purpose: "Sources as they came in: articles, transcripts, exports, clippings. Add new ones; do not rewrite them later (fix only their frontmatter), so every wiki claim can be traced back." },
      { name: "wiki", purpose: "Curated notes, one per topic, written from the sources in raw/ and kept current. Each page names its sources; index.md lists every page." },
    ],
    templates: [
      {
        name: "source",
        use: "a new source in raw/",
        text: '---\ntitle: "{{title}}"\ntype: source\nsource: ""\ncaptured: "{{date}}"\ntags: [source]\n---\n# {{title}}\n\nWhere it is from, who wrote it, and when.\n\n## Content\n\n',
      },
      {
        name: "wiki-page",
        use: "a new topic page in wiki/",
        text: '---\ntitle: "{{title}}"\ntype: wiki\ntags: [wiki]\nsources: []\ncreated: "{{date}}"\n---\n# {{title}}\n\nWhat this topic is, in two or three sentences.\n\n## Details\n\n## Sources\n\n',
      },
    ],
    conventions: [
      "A new source goes to `raw/` (template `source`) and is not rewritten afterwards; put its origin in the `source` property.",
      "Knowledge goes to `wiki/` (template `wiki-page`): extend the existing page on a topic before creating a new one (note_search first), link the sources it draws on under `## Sources`, and add every new page to `wiki/index.md` with one line saying what it covers.",
      "When a source changes what the wiki says, update the wiki pages it touches in the same session.",
    ],
  },
  para: {
    title: "PARA",
    summary: "Notes are sorted by how actionable they are: Projects (goals with an end), Areas (ongoing responsibilities), Resources (topics of interest) and Archive (everything no longer active).",
    hub: "index.md",
    hubTitle: "PARA",
    folders: [
      { name: "Projects", purpose: "Efforts with a goal and an end date. One note (or subfolder) per project, with status and due in its frontmatter." },
      { name: "Areas", purpose: "Responsibilities kept up over time, with no end date: health, finances, a team, a product." },
      { name: "Resources", purpose: "Topics and reference material of interest that belong to no project or area yet." },
      { name: "Archive", purpose: "Finished projects, areas given up and resources no longer needed. Moved here, never deleted." },
    ],
    templates: [
      {
        name: "project",
        use: "a new project in Projects/",
        text: '---\ntitle: "{{title}}"\ntype: project\nstatus: active\narea: ""\ndue: ""\ncreated: "{{date}}"\ntags: [project]\n---\n# {{title}}\n\nThe outcome that marks this project done.\n\n## Tasks\n\n## Notes\n\n',
      },
      {
        name: "area",
        use: "a new area of responsibility in Areas/",
        text: '---\ntitle: "{{title}}"\ntype: area\ncreated: "{{date}}"\ntags: [area]\n---\n# {{title}}\n\nWhat keeping this area in good shape means.\n\n## Projects\n\n## Notes\n\n',
      },
      {
        name: "resource",
        use: "a new resource in Resources/",
        text: '---\ntitle: "{{title}}"\ntype: resource\nsource: ""\ncreated: "{{date}}"\ntags: [resource]\n---\n# {{title}}\n\nWhy this is worth keeping.\n\n## Notes\n\n',
      },
    ],
    conventions: [
      "A note goes to the most actionable folder it fits: a project before an area, an area before a resource.",
      "Projects carry `status` (active, on-hold, done) and `due`; link each project to its area.",
      "A finished project gets `status: done` and moves to `Archive/` with note_move; nothing is deleted.",
    ],
  },
  zettelkasten: {
    title: "Zettelkasten",
    summary:
      "Thinking in small linked notes: fleeting notes catch thoughts quickly, literature notes record what a source says in your own words, permanent notes hold one idea each, written to stand alone and linked to related ideas.",
    hub: "index.md",
    hubTitle: "Zettelkasten",
    folders: [
      { name: "fleeting", purpose: "Quick, unpolished thoughts. Process them within days: turn each into a permanent note or delete it." },
      { name: "literature", purpose: "One note per source: what it says, in your own words, with the reference." },
      { name: "permanent", purpose: "One idea per note, in full sentences, understandable without context, linked to related ideas. These notes are the Zettelkasten." },
    ],
    templates: [
      {
        name: "fleeting",
        use: "a quick thought in fleeting/",
        text: '---\ntitle: "{{title}}"\ntype: fleeting\ncreated: "{{datetime}}"\ntags: [fleeting]\n---\n# {{title}}\n\n',
      },
      {
        name: "literature",
        use: "notes on one source in literature/",
        text: '---\ntitle: "{{title}}"\ntype: literature\nauthor: ""\nsource: ""\ncreated: "{{date}}"\ntags: [literature]\n---\n# {{title}}\n\n## Summary\n\n## Key points\n\n',
      },
      {
        name: "permanent",
        use: "one idea in permanent/",
        text: '---\ntitle: "{{title}}"\ntype: permanent\nid: "{{date:YYYYMMDDHHmm}}"\ncreated: "{{date}}"\ntags: [permanent]\n---\n# {{title}}\n\nThe idea, in full sentences.\n\n## Related\n\n',
      },
    ],
    conventions: [
      "One idea per permanent note, titled with the idea itself (a claim, not a topic).",
      "Every permanent note links to at least one other note and says why under `## Related`; `index.md` links the entry points into the main clusters.",
      "Fleeting notes are temporary: process them into permanent notes, then delete them.",
    ],
  },
  plain: {
    title: "Plain",
    summary: "A flat vault: notes live together in notes/, connected by links and tags rather than folders.",
    hub: "index.md",
    hubTitle: "Index",
    folders: [{ name: "notes", purpose: "All notes, side by side. Structure comes from links and tags, not from subfolders." }],
    templates: [
      {
        name: "note",
        use: "any new note",
        text: '---\ntitle: "{{title}}"\ncreated: "{{date}}"\ntags: []\n---\n# {{title}}\n\n',
      },
    ],
    conventions: ["New notes go to `notes/` (template `note`); give each note tags and link it to related notes."],
  },
};

interface PlannedFile {
  path: string;
  content: string;
  /** Templates and INSTRUCTIONS.md are written verbatim: no created/updated stamped into them. */
  verbatim: boolean;
}

/** Existing spellings by lower-cased path, so `Projects/` lands in an existing `projects/` folder. */
class Spellings {
  private readonly folders = new Map<string, string>();
  private readonly files = new Map<string, string>();

  constructor(engine: VaultEngine) {
    for (const file of engine.files()) {
      this.files.set(file.path.toLowerCase(), file.path);
      const segments = file.path.split("/");
      for (let depth = 1; depth < segments.length; depth++) {
        const folder = segments.slice(0, depth).join("/");
        if (!this.folders.has(folder.toLowerCase())) this.folders.set(folder.toLowerCase(), folder);
      }
    }
  }

  /** The path with each folder spelled as the vault already spells it. */
  adopt(path: string): string {
    const segments = path.split("/");
    let folder = "";
    for (let depth = 0; depth < segments.length - 1; depth++) {
      const wanted = folder === "" ? segments[depth]! : `${folder}/${segments[depth]!}`;
      folder = this.folders.get(wanted.toLowerCase()) ?? wanted;
    }
    return folder === "" ? path : `${folder}/${segments[segments.length - 1]!}`;
  }

  /** The existing file this path names, case aside. */
  existing(path: string): string | undefined {
    return this.files.get(path.toLowerCase());
  }
}

function linkTo(path: string, label: string): string {
  return `[[${path.replace(/\.md$/i, "")}|${label}]]`;
}

function folderNote(name: string, purpose: string, hub: string): string {
  return `---\ntitle: ${name}\n---\n# ${name}\n\n${purpose}\n\nBack to ${linkTo(hub, "the index")}.\n`;
}

interface Plan {
  files: PlannedFile[];
  /** Folder name → its path in the vault (prefix included, existing spelling adopted). */
  folders: Map<string, string>;
  templatesFolder: string;
}

async function planLayout(engine: VaultEngine, layoutName: LayoutName, prefix: string): Promise<Plan> {
  const layout = LAYOUT_SPECS[layoutName];
  const spellings = new Spellings(engine);
  const templatesFolder = (await templateSettings(engine)).folder;
  const daily = await dailySettings(engine);
  const hub = spellings.adopt(`${prefix}${layout.hub}`);
  const hubFolder = layout.hub.includes("/") ? layout.hub.slice(0, layout.hub.indexOf("/")) : null;
  const folders = new Map<string, string>();
  const files: PlannedFile[] = [];
  const folderLines: string[] = [];
  for (const folder of layout.folders) {
    if (folder.name === hubFolder) {
      folders.set(folder.name, hub.slice(0, hub.lastIndexOf("/")));
      folderLines.push(`- ${linkTo(hub, `${folder.name}/`)}: ${folder.purpose}`);
      continue;
    }
    const path = spellings.adopt(`${prefix}${folder.name}/${FOLDER_NOTE}`);
    folders.set(folder.name, path.slice(0, path.lastIndexOf("/")));
    files.push({ path, content: folderNote(folder.name, folder.purpose, hub), verbatim: false });
    folderLines.push(`- ${linkTo(path, `${folder.name}/`)}: ${folder.purpose}`);
  }
  const hubTitle = layout.hubTitle;
  const hubBody =
    layoutName === "wiki-raw"
      ? `${layout.summary}\n\n## Folders\n\n${folderLines.join("\n")}\n\n## Pages\n\nOne line per wiki page: its link, then what it covers.\n`
      : `${layout.summary}\n\n## Folders\n\n${folderLines.join("\n")}\n`;
  files.unshift({ path: hub, content: `---\ntitle: ${hubTitle}\n---\n# ${hubTitle}\n\n${hubBody}`, verbatim: false });
  for (const template of layout.templates) {
    files.push({ path: spellings.adopt(`${templatesFolder}${template.name}.md`), content: template.text, verbatim: true });
  }
  files.push({ path: INSTRUCTIONS_FILE, content: instructionsText(layoutName, prefix, folders, hub, templatesFolder, daily.folder), verbatim: true });
  for (const file of files) file.path = spellings.existing(file.path) ?? file.path;
  return { files, folders, templatesFolder };
}

function instructionsText(layoutName: LayoutName, prefix: string, folders: ReadonlyMap<string, string>, hub: string, templatesFolder: string, dailyFolder: string): string {
  const layout = LAYOUT_SPECS[layoutName];
  const where = prefix === "" ? "This vault" : `The folder \`${prefix}\``;
  const folderLines = layout.folders.map((folder) => `- \`${folders.get(folder.name) ?? folder.name}/\`: ${folder.purpose}`);
  const templateLines = layout.templates.map((template) => `- \`${template.name}\`: ${template.use}`);
  return [
    "# How this vault is organised",
    "",
    `${where} follows the ${layout.title} layout (\`${layoutName}\`). ${layout.summary}`,
    "",
    "## Folders",
    "",
    `- \`${hub}\`: the entry point; it links every folder.`,
    ...folderLines,
    `- \`${INBOX_FOLDER}\`: quick captures (the capture tool writes here) waiting to be filed.`,
    dailyFolder !== "" ? `- \`${dailyFolder}\`: daily notes (the journal tool).` : "- Daily notes (the journal tool) live in the vault root.",
    `- \`${templatesFolder}\`: templates for note_from_template.`,
    "",
    "## Templates",
    "",
    `Create notes with note_from_template (template name, title, and a path in the right folder):`,
    "",
    ...templateLines,
    "",
    "## Conventions",
    "",
    ...layout.conventions.map((line) => `- ${line}`),
    "- Search before writing (note_search): extend an existing note rather than creating a near-duplicate.",
    "- Every note has `title` and `tags` in its frontmatter; name files after their content, never `Untitled`.",
    "- Link related notes with wiki links (`[[note]]`); a note nothing links to is easily lost.",
    "- When unsure where something belongs, capture it to the inbox and file it later.",
    "- vault_review lists broken links, orphans, stale and empty notes and inbox items waiting, each with a fix.",
    "",
  ].join("\n");
}

export const vaultCreate = defineTool({
  name: "vault_create",
  title: "Lay out a vault structure",
  description: [
    `Sets up a vault's structure for a layout: wiki-raw (raw/ sources as they came in, wiki/ curated notes, wiki/index.md), para (Projects, Areas, Resources, Archive), zettelkasten (fleeting, literature, permanent) or plain (notes/).`,
    "Each folder is created with a README.md note saying what belongs in it, linked to and from an index note; the templates folder gets templates for note_from_template; INSTRUCTIONS.md in the vault root explains the layout and conventions to agents (the server hands it to every new session).",
    "With `prefix` the folders go under that folder (templates and INSTRUCTIONS.md stay where the server looks for them). Only creates: an existing file is never changed, but listed in `skipped` with the reason; a folder that exists in another letter case is used as it is. dry_run lists what would be created, with diffs.",
    "Returns created (paths), skipped ({path, reason}) and next (what to do now). One history commit for all files.",
  ].join(" "),
  group: "maintain",
  input: object({
    vault: vaultField,
    layout: string({ description: `The layout: ${LAYOUTS.join(", ")}.`, enum: LAYOUTS }),
    prefix: optional(string({ description: "Lay the structure out inside this folder, e.g. `research`; default the vault root." })),
    dry_run: dryRunField,
    reason: reasonField,
  }),
  annotations: CREATES_FILES,
  async handler(ctx, args) {
    const engine = ctx.vaults.get(args.vault);
    const layoutName = args.layout as LayoutName;
    const prefix = args.prefix !== undefined ? normalizeFolder(args.prefix) : "";
    const plan = await planLayout(engine, layoutName, prefix);
    const actor = actorOf(ctx);
    const created: string[] = [];
    const skipped: Array<{ path: string; reason: string }> = [];
    const diffs: Array<{ path: string; diff: string }> = [];
    const warnings: string[] = [];
    // Every new name is checked before the first file is written, so a bad prefix leaves nothing behind.
    for (const file of plan.files) if (!engine.file(file.path)) engine.checkNewPath(file.path);
    for (const file of plan.files) {
      if (engine.file(file.path)) {
        skipped.push({ path: file.path, reason: `"${file.path}" already exists; vault_create never changes existing files. Read it with note_read and adapt it with note_edit if it should describe the layout.` });
        continue;
      }
      try {
        const result = await engine.writes.write({
          path: file.path,
          tool: "vault_create",
          mode: "create",
          dry_run: args.dry_run,
          skip_touch: file.verbatim,
          summary_commit: true,
          actor,
          transform: () => file.content,
        });
        created.push(file.path);
        warnings.push(...result.warnings.filter((warning) => !linksWithinPlan(warning, plan)));
        if (args.dry_run) diffs.push({ path: file.path, diff: result.diff });
      } catch (error) {
        // Created by someone else between the look and the write: it is theirs, so it is skipped.
        if (!(error instanceof ToolError && error.code === "conflict")) throw error;
        skipped.push({ path: file.path, reason: `"${file.path}" appeared while the layout was being created; it was left as it is.` });
      }
    }
    if (!args.dry_run && created.length > 0) {
      const meta: HistoryMeta = { tool: "vault_create" };
      if (args.reason !== undefined) meta.reason = args.reason;
      if (actor.via !== undefined) meta.via = actor.via;
      if (actor.user !== undefined) meta.user = actor.user;
      warnings.push(...(await engine.writes.recordSummary(created, `vault_create: ${layoutName} (${created.length} files)`, meta)));
    }
    return {
      vault: engine.name,
      layout: layoutName,
      ...(prefix !== "" ? { prefix } : {}),
      dry_run: args.dry_run,
      created,
      skipped,
      ...(args.dry_run ? { diffs } : {}),
      ...(warnings.length > 0 ? { warnings } : {}),
      next: nextStep(layoutName, plan, created, skipped, args.dry_run),
    };
  },
});

/**
 * The index and the folder notes link to each other, so whichever is written first links to one not
 * written yet; the write path's "new broken link" warning is moot for a link into this very plan.
 */
function linksWithinPlan(warning: string, plan: Plan): boolean {
  const link = /\[\[([^\]|#]+)[^\]]*\]\] does not resolve/.exec(warning)?.[1];
  if (link === undefined) return false;
  const wanted = link.replace(/\.md$/i, "").toLowerCase();
  return plan.files.some((file) => file.path.replace(/\.md$/i, "").toLowerCase() === wanted);
}

function nextStep(layoutName: LayoutName, plan: Plan, created: readonly string[], skipped: ReadonlyArray<{ path: string }>, dryRun: boolean): string {
  if (dryRun) {
    return created.length > 0
      ? `Dry run: nothing was written. Call vault_create again without dry_run to create these ${created.length} files.`
      : "Dry run: every file of this layout already exists; there is nothing to create.";
  }
  if (created.length === 0) return `Nothing was created: every file of the ${layoutName} layout already exists. Check the vault's health with vault_review.`;
  const templates = LAYOUT_SPECS[layoutName].templates.map((template) => template.name).join(", ");
  const parts = [`Created ${created.length} files.`, `Create notes with note_from_template (templates: ${templates}) into ${[...plan.folders.values()].map((folder) => `${folder}/`).join(", ")}; capture unsorted thoughts with capture.`];
  if (skipped.some((file) => file.path === INSTRUCTIONS_FILE)) {
    parts.push(`${INSTRUCTIONS_FILE} already existed and was kept: add a section describing this layout with note_section_edit (mode append_to_note) so agents learn it.`);
  } else {
    parts.push(`${INSTRUCTIONS_FILE} describes the layout; new sessions receive it with the server's instructions.`);
  }
  return parts.join(" ");
}
