// vault_review: what needs a person's (or an agent's) attention in a vault — broken links, orphans,
// stale notes, untitled and empty notes, inbox items waiting — each finding with a reason in plain
// words and the call that fixes it. Read-only: it proposes, the write tools act.
import { parseDateArg } from "../../core/dates";
import { ToolError } from "../../core/errors";
import type { CachedMetadata } from "../../core/notes/metadata";
import { basename, extname, resolveVaultPath, stripSubpath } from "../../core/notes/paths";
import type { LinkMap } from "../../core/ports";
import type { FileRecord, VaultEngine } from "../../core/vault/types";
import { iso, limitField, normalizeFolder, prefixField, vaultField } from "../common";
import { isOrphan } from "../find/vault-info";
import { integer, object, optional, stringList, withDefault } from "../schema";
import { READ_ONLY, defineTool, type ToolContext } from "../types";
import { INBOX_FOLDER } from "../write/capture";
import { DEFAULT_DAILY, dailySettings } from "../write/journal";
import { fileNameFromTitle, templateSettings } from "../write/note-from-template";

export const REVIEW_CHECKS = ["broken_links", "orphans", "stale", "untitled", "empty", "inbox"] as const;
export type ReviewCheck = (typeof REVIEW_CHECKS)[number];

const DAY_MS = 24 * 60 * 60 * 1000;
const DEFAULT_STALE_DAYS = 180;
const MAX_CANDIDATES = 5;
const MAX_LINKERS_SHOWN = 5;
const INSTRUCTIONS_FILE = "INSTRUCTIONS.md";

/** Statuses that say "not finished yet": such a note left alone for months has been forgotten. */
const OPEN_STATUSES = new Set(["draft", "todo", "to-do", "wip", "in-progress", "in progress", "doing", "open", "active", "planned", "next"]);

/** The names Obsidian gives a new note in its common display languages, with its " 2", " 3" suffixes. */
const UNTITLED_NAME =
  /^(?:untitled|unbenannt|sans titre|sin título|sin titulo|senza titolo|sem título|sem titulo|naamloos|bez tytułu|без названия|без назви|无标题|未命名|無題|無題のファイル|제목 없음)(?: \d+)?$/iu;

/** Section types that carry no text of their own: a note made only of these says nothing. */
const NON_TEXT_SECTIONS = new Set(["yaml", "heading", "thematicBreak"]);

export interface ReviewItem {
  [detail: string]: unknown;
  check: ReviewCheck;
  path: string;
  reason: string;
  fix: string;
}

interface Review {
  engine: VaultEngine;
  now: number;
  inScope(path: string): boolean;
  /** `tool {json}` for a call on this vault (the vault named when it is not the default). */
  call(tool: string, args: Record<string, unknown>): string;
  resolved: LinkMap;
}

function noteStem(path: string): string {
  return basename(path).replace(/\.md$/i, "");
}

function folderOf(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash < 0 ? "" : path.slice(0, slash + 1);
}

function daysBetween(from: number, to: number): number {
  return Math.max(0, Math.floor((to - from) / DAY_MS));
}

function linkersOf(engine: VaultEngine, path: string): string[] {
  return [...engine.incoming(path).keys()].filter((source) => source !== path).sort();
}

function shownList(paths: readonly string[]): string {
  const shown = paths.slice(0, MAX_LINKERS_SHOWN).join(", ");
  return paths.length > MAX_LINKERS_SHOWN ? `${shown}, and ${paths.length - MAX_LINKERS_SHOWN} more` : shown;
}

// ---- broken links -------------------------------------------------------------------------------

/** Lower-cased, accents and separators folded, so `Rate_Limiting` and `rate-limiting` compare equal. */
function similarityKey(name: string): string {
  return name
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/[\s\-_.]+/g, " ")
    .trim();
}

/** Edit distance, giving up (returning `bound + 1`) once it must exceed `bound`. */
function boundedDistance(a: string, b: string, bound: number): number {
  if (Math.abs(a.length - b.length) > bound) return bound + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j += 1) {
      const value = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1));
      current.push(value);
      rowMin = Math.min(rowMin, value);
    }
    if (rowMin > bound) return bound + 1;
    previous = current;
  }
  return previous[b.length] ?? 0;
}

interface NameEntry {
  path: string;
  isNote: boolean;
  /** Notes: basename, title and aliases; attachments: the name without extension; as similarity keys. */
  keys: string[];
}

class CandidateFinder {
  private readonly entries: NameEntry[];
  private readonly memo = new Map<string, string[]>();

  constructor(engine: VaultEngine) {
    this.entries = engine.files().map((file) => {
      if (!file.isNote) return { path: file.path, isNote: false, keys: [similarityKey(basename(file.path).replace(/\.[^.]+$/, ""))] };
      const keys = new Set([similarityKey(noteStem(file.path))]);
      const summary = engine.summary(file.path);
      if (summary) {
        keys.add(similarityKey(summary.title));
        for (const alias of summary.aliases) keys.add(similarityKey(alias));
      }
      return { path: file.path, isNote: true, keys: [...keys].filter((key) => key !== "") };
    });
  }

  /**
   * Files of the same kind whose name is close to the link's: for a note link, notes by name, title
   * or alias; for an attachment, attachments by name (any extension: `diagram.jpg` finds `diagram.png`).
   */
  find(linkpath: string, source: string): string[] {
    const memoKey = `${source}\u0000${linkpath}`;
    const cached = this.memo.get(memoKey);
    if (cached) return cached;
    const base = basename(linkpath);
    const wantsNote = !namesAttachment(base);
    const wanted = similarityKey(wantsNote ? base.replace(/\.md$/i, "") : base.replace(/\.[^.]+$/, ""));
    const bound = Math.max(1, Math.floor(wanted.length / 4));
    const scored: Array<{ path: string; distance: number }> = [];
    if (wanted !== "") {
      for (const entry of this.entries) {
        if (entry.isNote !== wantsNote || entry.path === source) continue;
        let best = bound + 1;
        for (const key of entry.keys) best = Math.min(best, boundedDistance(wanted, key, bound));
        if (best <= bound) scored.push({ path: entry.path, distance: best });
      }
    }
    const found = scored
      .sort((a, b) => a.distance - b.distance || a.path.length - b.path.length || (a.path < b.path ? -1 : 1))
      .slice(0, MAX_CANDIDATES)
      .map((entry) => entry.path);
    this.memo.set(memoKey, found);
    return found;
  }
}

/** The shortest link text that reaches `path`: its name when no other file shares it, else its path. */
function linkTextFor(engine: VaultEngine, path: string): string {
  const isNote = /\.md$/i.test(path);
  const name = basename(path).toLowerCase();
  const shared = engine.files().some((file) => file.path !== path && basename(file.path).toLowerCase() === name);
  const text = shared ? path : basename(path);
  return isNote ? text.replace(/\.md$/i, "") : text;
}

/** `diagram.png` names an attachment; `plan`, `plan.md` and `Meeting 2026.01.05` name notes. */
function namesAttachment(linkpath: string): boolean {
  const extension = extname(linkpath);
  return extension !== "md" && /^[a-z][a-z0-9]{0,4}$/.test(extension);
}

/** `../b/c` from the folder `x/a/` is `x/b/c`; null when it climbs above the vault root. */
function joinRelative(folder: string, relative: string): string | null {
  const segments = folder.split("/").filter((segment) => segment !== "");
  for (const segment of relative.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment !== "..") segments.push(segment);
    else if (segments.pop() === undefined) return null;
  }
  return segments.join("/");
}

/** Where a note for a broken link would have to be created for the link to resolve. */
function missingTargetPath(linkpath: string, source: string): string | null {
  const target = linkpath.startsWith("/") ? linkpath.replace(/^\/+/, "") : /^\.\.?\//.test(linkpath) ? joinRelative(folderOf(source), linkpath) : linkpath;
  if (target === null || target === "") return null;
  try {
    return resolveVaultPath(target, { note: !namesAttachment(target) });
  } catch {
    return null;
  }
}

interface LinkRef {
  link: string;
  original: string;
  kind: "link" | "embed" | "frontmatter";
  line: number | null;
  property?: string;
}

function referencesOf(cache: CachedMetadata | null): LinkRef[] {
  if (!cache) return [];
  return [
    ...(cache.links ?? []).map((ref): LinkRef => ({ link: ref.link, original: ref.original, kind: "link", line: ref.position.start.line + 1 })),
    ...(cache.embeds ?? []).map((ref): LinkRef => ({ link: ref.link, original: ref.original, kind: "embed", line: ref.position.start.line + 1 })),
    ...(cache.frontmatterLinks ?? []).map((ref): LinkRef => ({ link: ref.link, original: ref.original, kind: "frontmatter", line: null, property: ref.key })),
  ];
}

function replacedLink(original: string, linkpath: string, replacement: string): string | null {
  if (original.includes(linkpath)) return original.replace(linkpath, replacement);
  const encoded = encodeURI(linkpath);
  if (encoded !== linkpath && original.includes(encoded)) return original.replace(encoded, encodeURI(replacement));
  return null;
}

function brokenLinkFix(review: Review, source: string, ref: LinkRef, linkpath: string, candidates: readonly string[], repeats: number): string {
  const best = candidates[0];
  if (best !== undefined) {
    const fixed = replacedLink(ref.original, linkpath, linkTextFor(review.engine, best));
    if (fixed !== null) {
      return review.call("note_edit", { path: source, old_string: ref.original, new_string: fixed, ...(repeats > 1 ? { replace_all: true } : {}) });
    }
  }
  const target = missingTargetPath(linkpath, source);
  if (target !== null && /\.md$/i.test(target)) return review.call("note_create", { path: target, content: `# ${noteStem(target)}\n` });
  if (target !== null) return review.call("attachment_put", { path: target, data_base64: "<base64 of the file>" });
  return review.call("note_edit", { path: source, old_string: ref.original, new_string: "<the corrected link>" });
}

interface BrokenLink {
  source: string;
  linkpath: string;
  /** null only if the link maps counted a link the cache does not show. */
  ref: LinkRef | null;
  /** How often the same spelling occurs in the source (a fix then needs replace_all). */
  repeats: number;
}

/** Every broken link, in path and line order; cheap, so all of them can be counted. */
function findBrokenLinks(review: Review): BrokenLink[] {
  const { engine } = review;
  const found: BrokenLink[] = [];
  for (const [source, targets] of Object.entries(engine.metadata().unresolvedLinks())) {
    if (!review.inScope(source)) continue;
    const missing = new Map(Object.entries(targets).filter(([, count]) => count > 0));
    if (missing.size === 0) continue;
    const refs = referencesOf(engine.cache(source));
    const spellings = new Map<string, number>();
    for (const ref of refs) spellings.set(ref.original, (spellings.get(ref.original) ?? 0) + 1);
    const seen = new Map<string, number>();
    for (const ref of refs) {
      const linkpath = stripSubpath(ref.link);
      if (!missing.has(linkpath)) continue;
      seen.set(linkpath, (seen.get(linkpath) ?? 0) + 1);
      found.push({ source, linkpath, ref, repeats: spellings.get(ref.original) ?? 1 });
    }
    // The link maps and the cache come from the same parse; should they ever disagree, every counted
    // broken link is still reported, so the total matches vault_stats.
    for (const [linkpath, count] of missing) {
      for (let extra = seen.get(linkpath) ?? 0; extra < count; extra++) found.push({ source, linkpath, ref: null, repeats: 1 });
    }
  }
  const lineOf = (link: BrokenLink): number => link.ref?.line ?? 0;
  return found.sort((a, b) => (a.source < b.source ? -1 : a.source > b.source ? 1 : lineOf(a) - lineOf(b)));
}

/** The finding with its candidates, which cost a comparison with every file: only for returned items. */
function brokenLinkItem(review: Review, finder: CandidateFinder, broken: BrokenLink): ReviewItem {
  const { source, linkpath, ref } = broken;
  const candidates = finder.find(linkpath, source);
  const written = ref?.original ?? `[[${linkpath}]]`;
  const where = ref?.line != null ? `line ${ref.line}` : ref?.property !== undefined ? `frontmatter property "${ref.property}"` : "somewhere in the note";
  const hint =
    candidates.length > 0
      ? ` Did you mean ${candidates.map((path) => `"${path}"`).join(" or ")}?`
      : namesAttachment(linkpath)
        ? " No file has a similar name: add the file with attachment_put, or remove or correct the embed."
        : " No file has a similar name: create the note, or remove or correct the link.";
  const item: ReviewItem = {
    check: "broken_links",
    path: source,
    reason: `${where}: ${written} points to "${linkpath}", which is no file in this vault.${hint}`,
    line: ref?.line ?? null,
    link: written,
    target: linkpath,
    kind: ref?.kind ?? "link",
    fix: ref ? brokenLinkFix(review, source, ref, linkpath, candidates, broken.repeats) : review.call("note_backlinks", { path: source }),
  };
  if (ref?.property !== undefined) item.property = ref.property;
  if (candidates.length > 0) item.candidates = candidates;
  return item;
}

// ---- orphans, stale -----------------------------------------------------------------------------

function orphans(review: Review, notes: readonly FileRecord[]): ReviewItem[] {
  return notes
    .filter((file) => isOrphan(review.engine, file.path, review.resolved))
    .map((file) => ({
      check: "orphans" as const,
      path: file.path,
      reason:
        "No other note links to it and it links to no other file, so nobody finds it by following links. Link it from a related note (note_related lists candidates), merge it into one, or delete it if it is obsolete.",
      modified: iso(file.mtime),
      words: review.engine.noteFacts(file.path)?.words ?? 0,
      fix: review.call("note_related", { path: file.path }),
    }));
}

function openStatus(cache: CachedMetadata | null): string | null {
  const status = cache?.frontmatter?.status;
  const values = Array.isArray(status) ? status : [status];
  for (const value of values) {
    if (typeof value === "string" && OPEN_STATUSES.has(value.trim().toLowerCase())) return value.trim();
  }
  return null;
}

function stale(review: Review, notes: readonly FileRecord[], staleDays: number): ReviewItem[] {
  const { engine, now } = review;
  const cutoff = now - staleDays * DAY_MS;
  const items: ReviewItem[] = [];
  for (const file of notes) {
    if (file.mtime >= cutoff) continue;
    const status = openStatus(engine.cache(file.path));
    const recentLinkers = linkersOf(engine, file.path).filter((source) => (engine.file(source)?.mtime ?? 0) >= cutoff);
    if (status === null && recentLinkers.length === 0) continue;
    const days = daysBetween(file.mtime, now);
    const why = [
      ...(status !== null ? [`its frontmatter still says status: ${status}`] : []),
      ...(recentLinkers.length > 0 ? [`${recentLinkers.length} note(s) changed in the last ${staleDays} days link to it (${shownList(recentLinkers)})`] : []),
    ];
    const item: ReviewItem = {
      check: "stale",
      path: file.path,
      reason: `Not modified for ${days} days, yet ${why.join(" and ")}. Bring it up to date, or mark it finished.`,
      modified: iso(file.mtime),
      days_since_modified: days,
      fix:
        status !== null
          ? review.call("note_frontmatter", { path: file.path, set: { status: "archived" } })
          : `${review.call("note_read", { path: file.path })}, then note_edit with its content_hash`,
    };
    if (status !== null) item.status = status;
    if (recentLinkers.length > 0) item.linked_from = recentLinkers.slice(0, MAX_LINKERS_SHOWN);
    items.push(item);
  }
  return items;
}

// ---- untitled, empty ----------------------------------------------------------------------------

function isEmptyNote(cache: CachedMetadata | null): boolean {
  if (!cache) return false;
  return (cache.sections ?? []).every((section) => NON_TEXT_SECTIONS.has(section.type));
}

/** A better name from the note itself: its frontmatter title or first heading, when not a placeholder. */
function suggestedName(review: Review, file: FileRecord): string | null {
  const cache = review.engine.cache(file.path);
  const title = cache?.frontmatter?.title;
  for (const candidate of [typeof title === "string" ? title : "", cache?.headings?.[0]?.heading ?? ""]) {
    const name = fileNameFromTitle(candidate);
    if (name !== "" && !UNTITLED_NAME.test(name)) return name;
  }
  return null;
}

function untitled(review: Review, notes: readonly FileRecord[]): ReviewItem[] {
  const items: ReviewItem[] = [];
  for (const file of notes) {
    const stem = noteStem(file.path);
    if (!UNTITLED_NAME.test(stem)) continue;
    const empty = isEmptyNote(review.engine.cache(file.path));
    const name = suggestedName(review, file);
    const reason = empty
      ? `"${stem}" is the placeholder name of a new note, and the note holds no text: most likely created by accident. Delete it.`
      : `"${stem}" is the placeholder name of a new note: nobody finds it by name, and links to it say nothing. Rename it after its content${name !== null ? ` (its title suggests "${name}")` : ""}.`;
    const item: ReviewItem = {
      check: "untitled",
      path: file.path,
      reason,
      empty,
      fix: empty
        ? review.call("note_delete", { path: file.path })
        : review.call("note_move", { path: file.path, to: `${folderOf(file.path)}${name ?? "<descriptive name>"}.md` }),
    };
    if (name !== null) item.suggested_name = name;
    items.push(item);
  }
  return items;
}

function empty(review: Review, notes: readonly FileRecord[]): ReviewItem[] {
  const items: ReviewItem[] = [];
  for (const file of notes) {
    if (!isEmptyNote(review.engine.cache(file.path))) continue;
    const linkers = linkersOf(review.engine, file.path);
    items.push({
      check: "empty",
      path: file.path,
      reason:
        linkers.length > 0
          ? `Has no text besides frontmatter and headings, but ${linkers.length} note(s) link to it (${shownList(linkers)}): write what it should say rather than deleting it.`
          : "Has no text besides frontmatter and headings, and no note links to it: fill it or delete it.",
      linked_from: linkers.slice(0, MAX_LINKERS_SHOWN),
      fix:
        linkers.length > 0
          ? review.call("note_section_edit", { path: file.path, mode: "append_to_note", content: "<what this note should say>" })
          : review.call("note_delete", { path: file.path }),
    });
  }
  return items;
}

// ---- inbox --------------------------------------------------------------------------------------

/** When the note came in: its `captured` or `created` frontmatter date, else the file's mtime. */
function arrivedAt(cache: CachedMetadata | null, file: FileRecord, now: number): number {
  for (const key of ["captured", "created"]) {
    const value = cache?.frontmatter?.[key];
    if (value instanceof Date && !Number.isNaN(value.getTime())) return value.getTime();
    if (typeof value !== "string") continue;
    try {
      return parseDateArg(value, now, key);
    } catch {
      // Not a date the user wrote in a form we know; the file's time is the next best answer.
    }
  }
  return file.mtime;
}

function inbox(review: Review, notes: readonly FileRecord[]): ReviewItem[] {
  return notes
    .filter((file) => file.path.startsWith(INBOX_FOLDER))
    .map((file) => {
      const since = arrivedAt(review.engine.cache(file.path), file, review.now);
      const days = daysBetween(since, review.now);
      return {
        check: "inbox" as const,
        path: file.path,
        reason: `Waiting in ${INBOX_FOLDER} for ${days} day(s) (since ${iso(since).slice(0, 10)}). File it: move it to the folder it belongs in, or merge it into an existing note (the process_inbox prompt walks through this).`,
        age_days: days,
        since: iso(since),
        fix: review.call("note_move", { path: file.path, to: "<folder>/" }),
      };
    })
    .sort((a, b) => b.age_days - a.age_days || (a.path < b.path ? -1 : 1));
}

// ---- the tool -----------------------------------------------------------------------------------

interface Exclusions {
  folders: string[];
  files: string[];
}

/** What is not judged as orphan or stale: notes that are meant to stand alone or age. */
async function standAloneNotes(engine: VaultEngine): Promise<Exclusions> {
  const daily = await dailySettings(engine);
  const templates = await templateSettings(engine);
  const folders = [INBOX_FOLDER, daily.folder, DEFAULT_DAILY.folder, templates.folder].filter((folder) => folder !== "");
  return { folders: [...new Set(folders)], files: [INSTRUCTIONS_FILE] };
}

function excludedBy(exclusions: Exclusions): (path: string) => boolean {
  return (path) => exclusions.files.includes(path) || exclusions.folders.some((folder) => path.startsWith(folder));
}

function parseChecks(given: readonly string[] | undefined): ReviewCheck[] {
  if (given === undefined || given.length === 0) return [...REVIEW_CHECKS];
  const unknown = given.filter((name) => !(REVIEW_CHECKS as readonly string[]).includes(name));
  if (unknown.length > 0) {
    throw new ToolError("invalid_argument", `Unknown check(s): ${unknown.join(", ")}. Use any of ${REVIEW_CHECKS.join(", ")}, or omit checks for all of them.`, {
      details: { checks: [...REVIEW_CHECKS] },
    });
  }
  return REVIEW_CHECKS.filter((name) => given.includes(name));
}

/** A check's findings: all of them counted, the first `limit` built into items. */
interface Findings {
  count: number;
  take(limit: number): ReviewItem[];
}

function ready(items: ReviewItem[]): Findings {
  return { count: items.length, take: (limit) => items.slice(0, limit) };
}

function callFormatter(ctx: ToolContext, engine: VaultEngine): Review["call"] {
  const named = engine.name !== ctx.vaults.defaultName();
  return (tool, args) => `${tool} ${JSON.stringify(named ? { vault: engine.name, ...args } : args)}`;
}

export const vaultReview = defineTool({
  name: "vault_review",
  title: "Review a vault's health",
  description: [
    "Finds what needs attention in a vault, each finding with a `reason` in plain words and a `fix`: the tool call that resolves it (placeholders in <angle brackets> are yours to fill; read the note first).",
    "Checks (`checks`, default all): broken_links (every link to no file: note, line, the link as written, and `candidates` with similar names, titles or aliases), orphans (notes with no links in or out; the inbox, daily-notes and templates folders and INSTRUCTIONS.md are left out — `excluded` names them), stale (not modified for `stale_days` though still linked from recently changed notes or marked status: draft/todo/active…), untitled (`Untitled`, `Untitled 2`, `Unbenannt`…), empty (nothing but frontmatter and headings; templates left out) and inbox (notes waiting in inbox/, with their age in days, oldest first).",
    "Returns items (at most `limit` per check), `counts` per check (before the limit; broken_links and orphans use vault_stats' definitions, minus the exclusions) and `truncated` when a check had more. Read-only: apply the fixes with the write tools.",
  ].join(" "),
  group: "maintain",
  input: object({
    vault: vaultField,
    checks: optional(stringList({ description: `Which checks to run: any of ${REVIEW_CHECKS.join(", ")}; default all.` })),
    prefix: prefixField,
    // Six checks share one response: ten findings each keep the default result within what clients pass on whole.
    limit: limitField(10, 1000),
    stale_days: withDefault(integer({ description: `A note not modified for this many days counts as old (default ${DEFAULT_STALE_DAYS}).`, minimum: 1, maximum: 36500 }), DEFAULT_STALE_DAYS),
  }),
  annotations: READ_ONLY,
  async handler(ctx, args) {
    const engine = ctx.vaults.get(args.vault);
    const checks = parseChecks(args.checks);
    const folder = args.prefix !== undefined ? normalizeFolder(args.prefix) : "";
    const review: Review = {
      engine,
      now: ctx.now(),
      inScope: (path) => path.startsWith(folder),
      call: callFormatter(ctx, engine),
      resolved: engine.metadata().resolvedLinks(),
    };
    const exclusions = await standAloneNotes(engine);
    const standsAlone = excludedBy(exclusions);
    const templates = (await templateSettings(engine)).folder;
    const notes = engine.files().filter((file) => file.isNote && review.inScope(file.path));
    const judged = notes.filter((file) => !standsAlone(file.path));
    const named = notes.filter((file) => !file.path.startsWith(templates));

    const found: Record<ReviewCheck, () => Findings> = {
      broken_links: () => {
        const all = findBrokenLinks(review);
        const finder = new CandidateFinder(engine);
        return { count: all.length, take: (limit) => all.slice(0, limit).map((broken) => brokenLinkItem(review, finder, broken)) };
      },
      orphans: () => ready(orphans(review, judged)),
      stale: () => ready(stale(review, judged, args.stale_days)),
      untitled: () => ready(untitled(review, named)),
      empty: () => ready(empty(review, named)),
      inbox: () => ready(inbox(review, notes)),
    };
    const items: ReviewItem[] = [];
    const counts: Partial<Record<ReviewCheck, number>> = {};
    let truncated = false;
    for (const check of checks) {
      const findings = found[check]();
      counts[check] = findings.count;
      if (findings.count > args.limit) truncated = true;
      items.push(...findings.take(args.limit));
    }
    const excluded: Record<string, string[]> = {};
    for (const check of checks) {
      if (check === "orphans" || check === "stale") excluded[check] = [...exclusions.folders, ...exclusions.files];
      if (check === "untitled" || check === "empty") excluded[check] = [templates];
    }
    const total = Object.values(counts).reduce((sum, count) => sum + count, 0);
    return {
      vault: engine.name,
      ...(folder !== "" ? { prefix: folder } : {}),
      checks,
      total,
      returned: items.length,
      counts,
      ...(truncated ? { truncated: true, message: `Some checks found more than limit (${args.limit}) items; counts has the totals. Fix these first, narrow with prefix or checks, or raise limit.` } : {}),
      ...(total === 0 ? { message: "Nothing to fix: no findings for these checks." } : {}),
      excluded,
      items,
    };
  },
});
