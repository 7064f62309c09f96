// journal and journal_range: the daily note of a day (read, or append under a heading) and the daily
// notes of a span of days. Paths follow the Daily Notes core plugin's folder and Moment format, so the
// agent writes into the very note the user opens with "Open today's daily note".
import { addDays, dayKey, daysBetween, formatMoment, localDayOf, localDayStart, parseDay, type LocalDay } from "../../core/dates-format";
import { ToolError } from "../../core/errors";
import type { FrontmatterParses } from "../../core/notes/frontmatter";
import { findSection } from "../../core/notes/sections";
import { basename, resolveVaultPath } from "../../core/notes/paths";
import { parseNote } from "../../core/notes/structure";
import { DEFAULT_WINDOW_BYTES, readWindow } from "../../core/notes/window";
import type { VaultEngine } from "../../core/vault/types";
import { fittingWindow, iso, normalizeFolder, vaultField } from "../common";
import { boolean, integer, object, optional, string, withDefault } from "../schema";
import { READ_ONLY, defineTool } from "../types";
import { actorOf, dryRunField, reasonField, WRITES_NOTE, writeResult } from "./common";
import { fillTemplate, readTemplateText, templateSettings } from "./note-from-template";

export const MAX_RANGE_DAYS = 366;
const DEFAULT_NOTE_BYTES = 16 * 1024;
const DEFAULT_HEADING = "Log";

export interface DailySettings {
  /** "" for the vault root, else ends with a slash. */
  folder: string;
  format: string;
  /** The template note's path as Obsidian stores it (`.md` optional), when one is set. */
  template?: string;
}

/** Without Daily Notes settings: `journal/YYYY/YYYY-MM-DD.md` (SPEC §10). */
export const DEFAULT_DAILY: DailySettings = { folder: "journal/", format: "YYYY/YYYY-MM-DD" };
const OBSIDIAN_DAILY_FORMAT = "YYYY-MM-DD";

function setting(config: Record<string, unknown>, key: string): string | undefined {
  const value = config[key];
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}

export async function dailySettings(engine: VaultEngine): Promise<DailySettings> {
  const config = await engine.appConfig("daily-notes.json");
  if (!config) return DEFAULT_DAILY;
  let folder = "";
  const configured = setting(config, "folder");
  if (configured !== undefined) {
    try {
      folder = normalizeFolder(configured);
    } catch {
      folder = "";
    }
  }
  const template = setting(config, "template");
  return { folder, format: setting(config, "format") ?? OBSIDIAN_DAILY_FORMAT, ...(template !== undefined ? { template } : {}) };
}

export function dailyNotePath(settings: DailySettings, day: LocalDay): string {
  return resolveVaultPath(`${settings.folder}${formatMoment(localDayStart(day), settings.format)}`, { note: true });
}

function headingText(heading: string): string {
  const text = heading.trim().replace(/^#+/, "").trim();
  if (text === "") throw new ToolError("invalid_argument", "The heading is empty; pass the heading text without `#`, e.g. Log.");
  return text;
}

/**
 * The entry goes on a new line at the end of the section (after its last non-blank line, so before
 * any sub-section's end), with one blank line kept before the next heading. A missing heading is
 * added as `## heading` at the end of the note.
 */
export function appendUnderHeading(text: string, heading: string, entry: string, parses?: FrontmatterParses): string {
  let section;
  try {
    section = findSection(text, parseNote(text, parses), heading);
  } catch (error) {
    if (!(error instanceof ToolError && error.code === "not_found")) throw error;
    const body = text.replace(/\s+$/, "");
    return `${body === "" ? "" : `${body}\n\n`}## ${heading}\n\n${entry}\n`;
  }
  const head = text.slice(0, section.bodyStart);
  const lines = text.slice(section.bodyStart, section.end).split("\n");
  while (lines.length > 0 && (lines[lines.length - 1] ?? "").trim() === "") lines.pop();
  const rest = text.slice(section.end);
  const opened = head.endsWith("\n") ? head : `${head}\n`;
  const updated = lines.length === 0 ? `${opened}\n${entry}\n` : `${opened}${lines.join("\n")}\n${entry}\n`;
  return rest === "" ? updated : `${updated}\n${rest}`;
}

/** The day's moment for template placeholders: that day, at the current time of day. */
function dayAtCurrentTime(day: LocalDay, now: number): number {
  const clock = new Date(now);
  return new Date(day.year, day.month - 1, day.day, clock.getHours(), clock.getMinutes(), clock.getSeconds()).getTime();
}

async function dailyTemplate(engine: VaultEngine, settings: DailySettings, path: string, day: LocalDay, now: number): Promise<{ text: string | null; warning?: string }> {
  if (settings.template === undefined) return { text: null };
  let templatePath: string;
  try {
    templatePath = resolveVaultPath(settings.template, { note: true });
  } catch {
    return { text: null, warning: `The Daily Notes template "${settings.template}" is not a usable path; the note was created without it.` };
  }
  if (!engine.file(templatePath)) {
    return { text: null, warning: `The Daily Notes template "${templatePath}" does not exist; the note was created without it.` };
  }
  const template = await readTemplateText(engine, templatePath);
  const { timeFormat } = await templateSettings(engine);
  const title = basename(path).replace(/\.md$/i, "");
  return { text: fillTemplate(template, { now: dayAtCurrentTime(day, now), title, dateFormat: settings.format, timeFormat }).text };
}

export const journal = defineTool({
  name: "journal",
  title: "Daily note: read or append",
  description:
    "The daily note of a day (default today), at the path of the Daily Notes core plugin settings (folder + Moment format), else `journal/YYYY/YYYY-MM-DD.md`. Without `append` it reads the note: `content` and `content_hash` (like note_read), or `exists: false` with the path when there is none yet. With `append` it adds the text, exactly as given, on a new line at the end of the `heading` section (default `Log`; e.g. pass `- met Ana` for a list item), creating the note (from the Daily Notes template when set) and/or a `## heading` when missing. Because it can write, it is not offered to read-only users: they read daily notes with note_read or journal_range. For other days' notes in bulk use journal_range.",
  group: "write",
  input: object({
    vault: vaultField,
    date: withDefault(string({ description: "The day: today, yesterday, YYYY-MM-DD, or a span back like 1d (= yesterday), 1w." }), "today"),
    append: optional(string({ description: "Text to append under the heading (kept as given; one or more lines).", raw: true })),
    heading: withDefault(string({ description: "The section to append to (created when missing)." }), DEFAULT_HEADING),
    dry_run: dryRunField,
    reason: reasonField,
  }),
  annotations: WRITES_NOTE,
  async handler(ctx, args) {
    const engine = ctx.vaults.get(args.vault);
    const now = ctx.now();
    const day = parseDay(args.date, now, "date");
    const settings = await dailySettings(engine);
    const { path, stat } = await engine.resolve(dailyNotePath(settings, day), { note: true });
    const date = dayKey(day);

    if (args.append === undefined) {
      if (!stat) {
        return {
          vault: engine.name,
          date,
          path,
          exists: false,
          message: `There is no daily note for ${date} yet (${path}). Call journal with append to start it.`,
        };
      }
      const file = await engine.read(path, { note: true });
      if (file.text === undefined) {
        throw new ToolError("too_large", `"${path}" is ${file.stat.size} bytes, too large to read as text. Use vault_grep on it.`);
      }
      // Where to continue comes before the text, so a client that keeps only the head still shows it.
      return fittingWindow(ctx, file.bytes, 0, DEFAULT_WINDOW_BYTES, (window) => ({
        vault: engine.name,
        date,
        path,
        exists: true,
        content_hash: file.content_hash,
        modified: iso(file.stat.mtime),
        byte_offset: window.byte_offset,
        byte_count: window.byte_count,
        total_bytes: window.total_bytes,
        ...(window.next_byte_offset !== undefined
          ? { next_byte_offset: window.next_byte_offset, message: "More remains: continue with note_read (byte_offset = next_byte_offset, same content_hash)." }
          : {}),
        content: window.text,
      }));
    }

    const entry = args.append.replace(/\r\n?/g, "\n").replace(/\n+$/, "");
    if (entry.trim() === "") throw new ToolError("invalid_argument", "append is empty; pass the text to add, or omit append to read the note.");
    const heading = headingText(args.heading);
    const template = stat ? { text: null } : await dailyTemplate(engine, settings, path, day, now);
    const result = await engine.writes.write({
      path,
      tool: "journal(append)",
      actor: actorOf(ctx),
      mode: "upsert",
      dry_run: args.dry_run,
      ...(args.reason !== undefined ? { reason: args.reason } : {}),
      transform: (current, parses) => appendUnderHeading(current ?? template.text ?? "", heading, entry, parses),
    });
    if (template.warning !== undefined && result.created) result.warnings.push(template.warning);
    return writeResult(result, { date, heading });
  },
});

interface RangeEntry {
  date: string;
  path: string;
  exists: boolean;
  content_hash?: string;
  bytes?: number;
  content?: string;
  next_byte_offset?: number;
}

export const journalRange = defineTool({
  name: "journal_range",
  title: "Daily notes of a span of days",
  description: `One entry per day from \`from\` to \`to\` (inclusive, at most ${MAX_RANGE_DAYS} days): the daily note's path (per the Daily Notes settings, as journal uses), whether it exists, its content_hash and size, and with include_content its text (at most max_bytes_per_note bytes each; \`next_byte_offset\` marks a cut note — continue it with note_read). Use it for weekly or monthly reviews; for one day use journal.`,
  group: "find",
  input: object({
    vault: vaultField,
    from: string({ description: "First day: YYYY-MM-DD, YYYY-MM (its first day), today, or a span back like 7d, 2w, 1m." }),
    to: withDefault(string({ description: "Last day (inclusive), same forms; YYYY-MM means its last day. Default today." }), "today"),
    include_content: withDefault(boolean({ description: "Also return each existing note's text." }), false),
    max_bytes_per_note: withDefault(
      integer({ description: `With include_content: the most bytes of each note (default ${DEFAULT_NOTE_BYTES}).`, minimum: 256, maximum: 256 * 1024 }),
      DEFAULT_NOTE_BYTES,
    ),
  }),
  annotations: READ_ONLY,
  async handler(ctx, args) {
    const engine = ctx.vaults.get(args.vault);
    const now = ctx.now();
    const from = parseDay(args.from, now, "from");
    const to = parseDay(args.to, now, "to", { endOfMonth: true });
    const days = daysBetween(from, to) + 1;
    if (days < 1) {
      throw new ToolError("invalid_argument", `from (${dayKey(from)}) is after to (${dayKey(to)}); swap them.`);
    }
    if (days > MAX_RANGE_DAYS) {
      throw new ToolError(
        "invalid_argument",
        `The range ${dayKey(from)}..${dayKey(to)} spans ${days} days; journal_range returns at most ${MAX_RANGE_DAYS}. Split it into shorter ranges.`,
        { details: { days, limit: MAX_RANGE_DAYS } },
      );
    }
    const settings = await dailySettings(engine);
    const entries: RangeEntry[] = [];
    let reported = 0;
    for (let index = 0; index < days; index++) {
      const day = addDays(from, index);
      const path = dailyNotePath(settings, day);
      const record = engine.file(path);
      const entry: RangeEntry = { date: dayKey(day), path, exists: record !== undefined };
      if (record) {
        entry.bytes = record.size;
        if (args.include_content || record.hash === undefined) {
          const file = await engine.read(path, { note: true });
          entry.content_hash = file.content_hash;
          entry.bytes = file.bytes.byteLength;
          if (args.include_content && file.text !== undefined) {
            const window = readWindow(file.bytes, 0, args.max_bytes_per_note);
            entry.content = window.text;
            if (window.next_byte_offset !== undefined) entry.next_byte_offset = window.next_byte_offset;
          }
        } else {
          entry.content_hash = record.hash;
        }
      }
      entries.push(entry);
      const tenth = Math.floor(((index + 1) * 10) / days);
      if (args.include_content && ctx.progress && tenth > reported) {
        reported = tenth;
        await ctx.progress(index + 1, days, `${index + 1} of ${days} days`);
      }
    }
    return {
      vault: engine.name,
      from: dayKey(from),
      to: dayKey(to),
      today: dayKey(localDayOf(now)),
      total: days,
      returned: entries.length,
      existing: entries.filter((entry) => entry.exists).length,
      entries,
    };
  },
});
