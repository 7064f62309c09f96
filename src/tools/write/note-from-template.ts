// note_from_template: a new note from a template of the Templates core plugin's folder, with the
// placeholders Obsidian fills ({{title}}, {{date}}, {{date:FORMAT}}, …) plus the agent's own variables.
import { formatMoment } from "../../core/dates-format";
import { ToolError } from "../../core/errors";
import { splitFrontmatter } from "../../core/notes/frontmatter";
import { basename } from "../../core/notes/paths";
import { stripBom } from "../../core/notes/structure";
import type { VaultEngine } from "../../core/vault/types";
import { normalizeFolder, vaultField } from "../common";
import { object, optional, record, string } from "../schema";
import { defineTool } from "../types";
import { actorOf, dryRunField, reasonField, WRITES_NOTE, writeResult } from "./common";

export const DEFAULT_TEMPLATES_FOLDER = "templates/";
const DEFAULT_DATE_FORMAT = "YYYY-MM-DD";
const DEFAULT_TIME_FORMAT = "HH:mm";
const DATETIME_FORMAT = "YYYY-MM-DDTHH:mm:ss";
const SLUG_MAX = 60;
const FILE_NAME_MAX = 120;
const MAX_LISTED = 50;

export interface TemplateSettings {
  /** `templates/`: always ends with a slash. */
  folder: string;
  dateFormat: string;
  timeFormat: string;
}

function configString(config: Record<string, unknown> | null, key: string): string | undefined {
  const value = config?.[key];
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}

/** The Templates core plugin's settings (`templates.json`), with Obsidian's defaults. */
export async function templateSettings(engine: VaultEngine): Promise<TemplateSettings> {
  const config = await engine.appConfig("templates.json");
  let folder = DEFAULT_TEMPLATES_FOLDER;
  const configured = configString(config, "folder");
  if (configured !== undefined) {
    try {
      folder = normalizeFolder(configured) || DEFAULT_TEMPLATES_FOLDER;
    } catch {
      // A folder the path rules refuse (hidden, outside) cannot hold reachable templates.
      folder = DEFAULT_TEMPLATES_FOLDER;
    }
  }
  return {
    folder,
    dateFormat: configString(config, "dateFormat") ?? DEFAULT_DATE_FORMAT,
    timeFormat: configString(config, "timeFormat") ?? DEFAULT_TIME_FORMAT,
  };
}

// Letters that do not decompose into ASCII plus a combining mark.
const FOLDED: Record<string, string> = { ß: "ss", æ: "ae", œ: "oe", ø: "o", ł: "l", đ: "d", ð: "d", þ: "th", ı: "i" };

/** `Über Größe: Q3!` → `uber-grosse-q3`; "" when nothing ASCII is left (e.g. a Japanese title). */
export function slugify(text: string, maxLength = SLUG_MAX): string {
  const folded = text
    .toLowerCase()
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .replace(/[\u0080-\uffff]/g, (char) => FOLDED[char] ?? " ");
  const slug = folded.replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "");
  if (slug.length <= maxLength) return slug;
  const cut = slug.slice(0, maxLength);
  const dash = cut.lastIndexOf("-");
  return (dash > maxLength / 2 ? cut.slice(0, dash) : cut).replace(/-+$/, "");
}

export interface TemplateValues {
  now: number;
  title: string;
  dateFormat: string;
  timeFormat: string;
  variables?: Record<string, unknown>;
}

function variableText(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value);
}

function builtin(name: string, format: string | undefined, values: TemplateValues): string | undefined {
  const at = (fallback: string): string => formatMoment(values.now, format ?? fallback);
  switch (name.toLowerCase()) {
    case "title": return values.title;
    case "date": return at(values.dateFormat);
    case "time": return at(values.timeFormat);
    case "datetime": return at(DATETIME_FORMAT);
    case "year": return at("YYYY");
    case "month": return at("MM");
    case "day": return at("DD");
    case "slug": return slugify(values.title) || "untitled";
    default: return undefined;
  }
}

const PLACEHOLDER = /\{\{\s*([A-Za-z_][\w.-]*)\s*(?::([^}]*))?\}\}/g;

/**
 * Fills the placeholders; agent variables win over the built-ins of the same name. Unknown names stay
 * as written and are reported. Inside frontmatter a placeholder wrapped in quotes gets a value escaped
 * for that quoting, so `title: "{{title}}"` stays valid YAML whatever the title holds.
 */
export function fillTemplate(template: string, values: TemplateValues): { text: string; unfilled: string[] } {
  const split = splitFrontmatter(template);
  const frontmatterEnd = split.exists ? split.contentStart : 0;
  const unfilled = new Set<string>();
  const text = template.replace(PLACEHOLDER, (match: string, name: string, format: string | undefined, offset: number) => {
    const own = values.variables && Object.hasOwn(values.variables, name) ? variableText(values.variables[name]) : undefined;
    const value = own ?? builtin(name, format?.trim() || undefined, values);
    if (value === undefined) {
      unfilled.add(name);
      return match;
    }
    if (offset >= frontmatterEnd) return value;
    const before = template[offset - 1];
    const after = template[offset + match.length];
    if (before === '"' && after === '"') return JSON.stringify(value).slice(1, -1);
    if (before === "'" && after === "'") return value.replace(/'/g, "''").replace(/\n/g, " ");
    return value;
  });
  return { text, unfilled: [...unfilled] };
}

export interface TemplateEntry {
  name: string;
  path: string;
}

export function listTemplates(engine: VaultEngine, folder: string): TemplateEntry[] {
  return engine
    .files()
    .filter((file) => file.isNote && file.path.startsWith(folder))
    .map((file) => ({ name: file.path.slice(folder.length).replace(/\.md$/i, ""), path: file.path }));
}

function findTemplate(templates: readonly TemplateEntry[], folder: string, wanted: string): TemplateEntry | undefined {
  let name = wanted.trim().replace(/\\/g, "/").replace(/\.md$/i, "").toLowerCase();
  if (name.startsWith(folder.toLowerCase())) name = name.slice(folder.length);
  const exact = templates.find((entry) => entry.name.toLowerCase() === name);
  if (exact) return exact;
  const byBase = templates.filter((entry) => basename(entry.name).toLowerCase() === name);
  return byBase.length === 1 ? byBase[0] : undefined;
}

/** LF text without a BOM, as transforms expect. */
export async function readTemplateText(engine: VaultEngine, path: string): Promise<string> {
  const file = await engine.read(path, { note: true });
  if (file.text === undefined) {
    throw new ToolError("too_large", `The template "${path}" is too large to read as text; use a smaller template.`);
  }
  return stripBom(file.text).replace(/\r\n/g, "\n");
}

/** A title as a file name: characters Obsidian refuses in names or links become spaces. */
export function fileNameFromTitle(title: string): string {
  const name = title
    .replace(/[\\/:*?"<>|#^[\]\n\r\t]/g, " ")
    .replace(/\s+/g, " ")
    .trim()
    .replace(/^\.+/, "")
    .trim();
  return name.length > FILE_NAME_MAX ? name.slice(0, FILE_NAME_MAX).trim() : name;
}

/** Where a new note goes when no path is given: `inbox/` when the vault has one, else the root. */
export function defaultNoteFolder(engine: VaultEngine): string {
  return engine.files().some((file) => file.path.startsWith("inbox/")) ? "inbox/" : "";
}

function listed(templates: readonly TemplateEntry[]): string {
  if (templates.length === 0) return "none";
  const names = templates.slice(0, MAX_LISTED).map((entry) => entry.name).join(", ");
  return templates.length > MAX_LISTED ? `${names}, and ${templates.length - MAX_LISTED} more` : names;
}

export const noteFromTemplate = defineTool({
  name: "note_from_template",
  title: "Create a note from a template",
  description:
    "Creates a new note from a template in the vault's templates folder (the Templates core plugin's folder, else `templates/`). Call it without `template` to list the templates (`templates: [{name, path}]`). Fills {{title}} {{date}} {{time}} {{datetime}} {{year}} {{month}} {{day}} {{slug}}, Obsidian's {{date:FORMAT}} / {{time:FORMAT}} (Moment formats) and any `variables` as {{name}} (variables win over built-ins of the same name); placeholders left unfilled are listed in `unfilled`. The note goes to `path`, or to `inbox/<title>.md` when the vault has an inbox/ folder, else `<title>.md` in the root; an existing note is never overwritten. Returns the write result (path, content_hash, diff). For a note without a template use note_create.",
  group: "write",
  input: object({
    vault: vaultField,
    template: optional(string({ description: "Template name as listed (e.g. `meeting`), or its path; omit to list the templates." })),
    path: optional(string({ description: "Where to create the note, e.g. `meetings/2026-01-06 standup.md`; default: from the title (see description)." })),
    title: optional(string({ description: "The note's title for {{title}} and {{slug}}; default: the file name of `path`." })),
    variables: optional(record({ description: "Extra placeholder values, e.g. {\"project\": \"alpha\"} for {{project}}." })),
    dry_run: dryRunField,
    reason: reasonField,
  }),
  annotations: WRITES_NOTE,
  async handler(ctx, args) {
    const engine = ctx.vaults.get(args.vault);
    const settings = await templateSettings(engine);
    const templates = listTemplates(engine, settings.folder);
    if (args.template === undefined || args.template === "") {
      return {
        vault: engine.name,
        folder: settings.folder,
        total: templates.length,
        returned: templates.length,
        templates,
        message:
          templates.length === 0
            ? `No templates in ${settings.folder}. Add a note there (with placeholders such as {{title}} and {{date}}), or create the note with note_create.`
            : "Call note_from_template again with template set to one of these names and a title or path.",
      };
    }
    const template = findTemplate(templates, settings.folder, args.template);
    if (!template) {
      throw new ToolError(
        "not_found",
        `No template "${args.template}" in ${settings.folder}. Templates: ${listed(templates)}. Call note_from_template without template to list them.`,
        { details: { folder: settings.folder, templates: templates.slice(0, MAX_LISTED) } },
      );
    }
    let title = args.title;
    let target = args.path;
    if (target === undefined) {
      if (title === undefined || title === "") {
        throw new ToolError("invalid_argument", "Pass a title (the note is named after it) or a path for the new note.");
      }
      const name = fileNameFromTitle(title);
      if (name === "") throw new ToolError("invalid_argument", `The title "${title.slice(0, 60)}" leaves no usable file name; pass path as well.`);
      target = `${defaultNoteFolder(engine)}${name}.md`;
    }
    const { path } = await engine.resolve(target, { note: true });
    title ??= basename(path).replace(/\.md$/i, "");
    const source = await readTemplateText(engine, template.path);
    const filled = fillTemplate(source, { now: ctx.now(), title, dateFormat: settings.dateFormat, timeFormat: settings.timeFormat, variables: args.variables });
    const result = await engine.writes.write({
      path,
      tool: "note_from_template",
      actor: actorOf(ctx),
      mode: "create",
      dry_run: args.dry_run,
      ...(args.reason !== undefined ? { reason: args.reason } : {}),
      transform: () => filled.text,
    });
    if (filled.unfilled.length > 0) {
      result.warnings.push(
        `Placeholders left as written: ${filled.unfilled.map((name) => `{{${name}}}`).join(", ")}. Pass them in variables, or fill them with note_edit.`,
      );
    }
    return writeResult(result, { template, title, unfilled: filled.unfilled });
  },
});
