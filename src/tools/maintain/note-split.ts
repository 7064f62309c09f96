// note_split: one new note per heading of a level, each section of the original replaced by a link to
// its note, so nothing is lost and no link breaks. Sections come from the metadata cache (a `## line`
// in code is never a heading). Every link that reached into a split section — from other notes, from
// what stays in the original and from the sections themselves — is pointed at where that text now
// lives; links of the moved text that would resolve elsewhere from the new folder, and links the new
// names would capture, keep their targets (planned with LinkResolver as note_move plans them). The
// whole split is first worked out as a dry run, so a refusal (a secret, a changed note) writes nothing;
// then it is applied as one transaction (completed or undone at the next start after a crash), the new
// notes before the original loses its sections; one summary commit records it all.
import { describeFailure, isToolError, ToolError } from "../../core/errors";
import { applyPlannedEdits, retargetReference, type PlannedEdit } from "../../core/maintain/move-plan";
import { LinkResolver, type NewLinkFormat } from "../../core/notes/link-resolver";
import type { CachedMetadata, HeadingCache, Reference } from "../../core/notes/metadata";
import { dirname, extname, stripSubpath } from "../../core/notes/paths";
import { parseNote } from "../../core/notes/structure";
import type { VaultEngine } from "../../core/vault/types";
import { decodeNote } from "../../core/write/text";
import type { PreparedWrite, WriteActor, WriteResult } from "../../core/write/write-path";
import { normalizeFolder, pathField, vaultField } from "../common";
import { integer, object, optional, string, withDefault } from "../schema";
import { defineTool } from "../types";
import { actorOf, contentHashField, dryRunField, reasonField, REPLACES_NOTE } from "../write/common";
import { missingNote, resolveNoteTarget } from "../write/edit-common";

const TOOL = "note_split";
/** Characters Obsidian refuses in a file name, and the link syntax that would break `[[Name]]`. */
const FORBIDDEN_IN_NAMES = /[*"\\/<>:|?#^[\]]/g;
const MAX_NAME_LENGTH = 200;
/** Obsidian's stripHeading (obsidian-api.md §2): what heading subpaths are compared by, ignoring case. */
const HEADING_PUNCTUATION = /[!"#$%&()*+,.:;<=>?@^`{|}~/[\]\\\r\n]/g;
/** The write path's broken-link warning; the split's own new notes do not exist during a dry run. */
const BROKEN_LINK_WARNING = /^line \d+: \[\[(.*)\]\] does not resolve/;

interface Section {
  heading: HeadingCache;
  /** Index of the heading among the note's cached headings. */
  index: number;
  /** 0-based: the heading's line, and the first line after the section. */
  start: number;
  end: number;
  path: string;
}

/** A heading as subpaths see it in the note it is in after the split (promoted in a new note). */
interface OutlineEntry {
  key: string;
  level: number;
  index: number;
}

type SubpathTarget = { kind: "heading"; chain: number[]; parts: string[] } | { kind: "block"; line: number };

type AnyReference = Reference & { position?: { start: { line: number; col: number } } };

interface PlacedEdit extends PlannedEdit {
  /** The note the reference sits in after the split. */
  home: string;
}

interface OtherNote {
  path: string;
  edits: PlannedEdit[];
}

interface SplitTexts {
  original: string;
  created: Array<{ path: string; text: string }>;
}

interface PassResult {
  created: PreparedWrite[];
  original: PreparedWrite;
  notes: Array<{ note: OtherNote; prepared: PreparedWrite }>;
}

async function linkFormat(engine: VaultEngine): Promise<NewLinkFormat> {
  const app = await engine.appConfig("app");
  const format = app?.newLinkFormat;
  return format === "relative" || format === "absolute" ? format : "shortest";
}

/** The heading as a file name: forbidden characters become spaces, runs of space collapse, no leading dot. */
export function noteNameOf(heading: string): string {
  return heading
    .normalize("NFC")
    .replace(FORBIDDEN_IN_NAMES, " ")
    .replace(/\s+/g, " ")
    .trim()
    .replace(/^\.+/, "")
    .trim();
}

function headingKey(text: string): string {
  return text.replace(HEADING_PUNCTUATION, " ").replace(/\s+/g, " ").trim().toLowerCase();
}

function splitSubpath(link: string): { path: string; subpath: string } {
  const at = link.indexOf("#");
  return at < 0 ? { path: link, subpath: "" } : { path: link.slice(0, at), subpath: link.slice(at) };
}

/**
 * Obsidian's heading-chain lookup (`#A#B`): each part matches a later heading deeper than the one
 * before. Returns the matched headings' indices, or null when the chain does not resolve.
 */
function resolveChain(outline: readonly OutlineEntry[], parts: readonly string[]): number[] | null {
  if (parts.length === 0) return null;
  const keys = parts.map(headingKey);
  const matched: number[] = [];
  let level = 0;
  for (const entry of outline) {
    if (matched.length === keys.length) break;
    if (entry.level > level && entry.key === keys[matched.length]) {
      matched.push(entry.index);
      level = entry.level;
    }
  }
  return matched.length === keys.length ? matched : null;
}

/**
 * Column of the heading's `#` run in its line, or -1 when the line does not hold it (the index is
 * behind the file). A host may place the heading after a quote or list marker.
 */
function markerColumn(line: string, heading: HeadingCache): number {
  const col = heading.position.start.col;
  const at = line.indexOf("#".repeat(heading.level), col);
  return at >= 0 && /^[\s>*+\-\d.)]*$/.test(line.slice(col, at)) ? at : -1;
}

function isBlank(line: string): boolean {
  return line.trim() === "";
}

function isWikilink(reference: AnyReference): boolean {
  return reference.original.startsWith("[[") || reference.original.startsWith("![[") || reference.position === undefined;
}

/** Where every heading and block of the original ends up, and the link rewrites that follow. */
class SplitPlanner {
  readonly before: LinkResolver;
  readonly after: LinkResolver;
  private readonly headings: readonly HeadingCache[];
  private readonly fullOutline: OutlineEntry[];
  private readonly outlines = new Map<string, OutlineEntry[]>();

  constructor(
    private readonly original: string,
    private readonly cache: CachedMetadata,
    readonly sections: readonly Section[],
    files: readonly string[],
    private readonly format: NewLinkFormat,
  ) {
    this.before = new LinkResolver(files);
    this.after = new LinkResolver([...files, ...sections.map((section) => section.path)]);
    this.headings = cache.headings ?? [];
    this.fullOutline = this.headings.map((heading, index) => ({ key: headingKey(heading.heading), level: heading.level, index }));
    this.headings.forEach((heading, index) => {
      const section = this.sectionAt(heading.position.start.line);
      const home = section?.path ?? original;
      const shift = section ? section.heading.level - 1 : 0;
      const outline = this.outlines.get(home) ?? [];
      outline.push({ key: headingKey(heading.heading), level: heading.level - shift, index });
      this.outlines.set(home, outline);
    });
  }

  sectionAt(line: number): Section | undefined {
    return this.sections.find((section) => line >= section.start && line < section.end);
  }

  noteAt(line: number): string {
    return this.sectionAt(line)?.path ?? this.original;
  }

  /** The list line that stands for a section in the original. */
  listLine(section: Section): string {
    return `- [[${this.after.fileToLinktext(section.path, this.original, this.format)}]]`;
  }

  private lineOf(index: number): number {
    return this.headings[index]?.position.start.line ?? -1;
  }

  private targetOf(subpath: string): SubpathTarget | null {
    if (subpath.startsWith("#^")) {
      const block = this.cache.blocks?.[subpath.slice(2).toLowerCase()];
      return block ? { kind: "block", line: block.position.start.line } : null;
    }
    const parts = subpath.split("#").filter((part) => part.trim() !== "");
    const chain = resolveChain(this.fullOutline, parts);
    return chain ? { kind: "heading", chain, parts } : null;
  }

  /** The note a subpath of the original reaches after the split, and the subpath that reaches it from `home`. */
  private relocate(subpath: string, home: string): { dest: string; subpath: string } | null {
    const target = this.targetOf(subpath);
    if (!target) return null;
    if (target.kind === "block") return { dest: this.noteAt(target.line), subpath };
    const last = target.chain[target.chain.length - 1]!;
    const dest = this.noteAt(this.lineOf(last));
    const section = this.sectionAt(this.lineOf(last));
    // The split heading is the new note's title: from elsewhere the note itself is the section.
    if (section && section.index === last && home !== dest) return { dest, subpath: "" };
    const inner = target.parts.filter((_, at) => {
      const index = target.chain[at]!;
      return index !== section?.index && this.noteAt(this.lineOf(index)) === dest;
    });
    const lastPart = [target.parts[target.parts.length - 1]!];
    const candidates = section && home !== dest ? [inner, target.parts, lastPart] : [target.parts, inner, lastPart];
    const outline = this.outlines.get(dest) ?? [];
    for (const parts of candidates) {
      const chain = resolveChain(outline, parts);
      if (chain && chain[chain.length - 1] === last) return { dest, subpath: `#${parts.join("#")}` };
    }
    return { dest, subpath: `#${lastPart.join("#")}` };
  }

  /** The new link text of a reference written in `source` that sits in `home` after the split; null to keep it. */
  private linktextFor(reference: AnyReference, source: string, home: string): string | null {
    const { path: linkpath, subpath } = splitSubpath(reference.link);
    const target = linkpath === "" ? source : this.before.resolve(linkpath, source);
    if (target === null) return null;
    let dest = target;
    let newSubpath = subpath;
    if (target === this.original && subpath !== "") {
      const moved = this.relocate(subpath, home);
      if (moved) ({ dest, subpath: newSubpath } = moved);
    }
    const stays = newSubpath === subpath && (linkpath === "" ? dest === home : this.after.resolve(linkpath, home) === dest);
    if (stays) return null;
    const linktext = dest === home && newSubpath !== "" ? newSubpath : this.after.fileToLinktext(dest, home, this.format, isWikilink(reference)) + newSubpath;
    return linktext === reference.link ? null : linktext;
  }

  /** Rewrites for the references of one note; `homeOf` says which note each line ends up in. */
  plan(source: string, cache: CachedMetadata, homeOf: (line: number) => string): PlacedEdit[] {
    const frontmatterLine = cache.frontmatterPosition?.start.line ?? 0;
    const references: AnyReference[] = [...(cache.links ?? []), ...(cache.embeds ?? []), ...(cache.frontmatterLinks ?? [])];
    const edits: PlacedEdit[] = [];
    for (const reference of references) {
      const line = reference.position?.start.line ?? frontmatterLine;
      const home = homeOf(line);
      const linktext = this.linktextFor(reference, source, home);
      if (linktext === null) continue;
      const after = retargetReference(reference.original, linktext);
      if (after === reference.original) continue;
      edits.push({ line, col: reference.position?.start.col ?? 0, before: reference.original, after, frontmatter: reference.position === undefined, home });
    }
    return edits;
  }

  /** Links of the original that resolve nowhere now: moved into a new note they are not newly broken. */
  brokenLinks(): Set<string> {
    const broken = new Set<string>();
    for (const reference of [...(this.cache.links ?? []), ...(this.cache.embeds ?? [])]) {
      const linkpath = stripSubpath(reference.link);
      if (linkpath !== "" && this.before.resolve(linkpath, this.original) === null) broken.add(reference.link);
    }
    return broken;
  }

  /** The original's text, its links rewritten, cut into the new notes and what stays. */
  build(text: string, edits: readonly PlannedEdit[]): SplitTexts | null {
    const edited = applyPlannedEdits(text, edits);
    if (edited === null) return null;
    const lines = edited.split("\n");
    const headingAt = new Map(this.headings.map((heading) => [heading.position.start.line, heading]));
    const created = this.sections.map((section) => {
      const shift = section.heading.level - 1;
      const body: string[] = [];
      for (let line = section.start + 1; line < section.end; line++) {
        const current = lines[line] ?? "";
        const heading = headingAt.get(line);
        const col = heading ? markerColumn(current, heading) : -1;
        body.push(col >= 0 && shift > 0 ? current.slice(0, col) + current.slice(col + shift) : current);
      }
      while (body.length > 0 && isBlank(body[body.length - 1]!)) body.pop();
      // The heading line as edited (a link in it may have been rewritten), without its #s.
      const title = parseNote(lines[section.start] ?? "").headings?.[0]?.heading ?? section.heading.heading;
      return { path: section.path, text: `${[`# ${title}`, ...body].join("\n")}\n` };
    });

    const kept: string[] = [];
    let line = 0;
    while (line < lines.length) {
      let section = this.sections.find((candidate) => candidate.start === line);
      if (!section) {
        kept.push(lines[line]!);
        line++;
        continue;
      }
      while (kept.length > 0 && isBlank(kept[kept.length - 1]!)) kept.pop();
      if (kept.length > 0) kept.push("");
      while (section) {
        kept.push(this.listLine(section));
        line = section.end;
        section = this.sections.find((candidate) => candidate.start === line);
      }
      while (line < lines.length && isBlank(lines[line]!) && !this.sections.some((candidate) => candidate.start === line)) line++;
      if (line < lines.length) kept.push("");
    }
    return { original: `${kept.join("\n").replace(/\n+$/, "")}\n`, created };
  }
}

export const noteSplit = defineTool({
  name: TOOL,
  title: "Split a note into one note per heading",
  description:
    "Splits a note into one new note per heading of `level` (default 2): each section (its heading up to the next heading of the same or a higher level, sub-headings included) becomes `<folder>/<heading>.md` with the heading as its `# title` and its sub-headings promoted, and is replaced in the original by a `- [[link]]` line; the intro and anything outside the sections stay. Every link elsewhere to a moved heading or block (`[[Note#Heading]]`, `#Heading#Sub`, `#^block`) is rewritten to the new note, keeping aliases and link style; links to the note itself or to headings that stay are untouched; self-links and relative links inside the moved text keep their targets. `folder` defaults to the note's folder. Refuses, writing nothing, when a heading gives an empty or duplicate name or the new note exists (rename the heading with note_section_edit or pass another folder). dry_run returns every diff and writes nothing. Trash copies of every rewritten note; one history commit.",
  group: "maintain",
  input: object({
    vault: vaultField,
    path: pathField,
    level: withDefault(integer({ description: "Heading level to split at, 1–6 (default 2: each `##` section becomes a note).", minimum: 1, maximum: 6 }), 2),
    folder: optional(string({ description: "Folder for the new notes, e.g. `wiki/topic`; default the note's own folder." })),
    content_hash: contentHashField,
    dry_run: dryRunField,
    reason: reasonField,
  }),
  annotations: REPLACES_NOTE,
  async handler(ctx, args) {
    const engine = ctx.vaults.get(args.vault);
    const { path, stat } = await resolveNoteTarget(engine, args.path);
    if (!stat) throw missingNote(path, engine.name, "Find it with note_search or note_list, then split it by its exact path.");
    if (extname(path) !== "md") throw new ToolError("invalid_path", `"${path}" is not a note; note_split splits .md notes only.`);
    const read = await engine.read(path);
    if (args.content_hash !== undefined && read.content_hash !== args.content_hash) {
      throw new ToolError("conflict", `Note "${path}" changed since you read it (content_hash is now ${read.content_hash}). Read it again with note_read and retry.`, { state: "not_applied" });
    }
    const text = decodeNote(read.bytes).text;
    const cache = engine.cache(path);
    const lines = text.split("\n");
    const headings = cache?.headings ?? [];
    const stale = headings.some((heading) => markerColumn(lines[heading.position.start.line] ?? "", heading) < 0);
    if (!cache || stale) {
      throw new ToolError("conflict", `The index has not caught up with "${path}" yet; nothing was written. Call note_split again in a moment.`, { state: "not_applied" });
    }

    const folder = args.folder !== undefined ? normalizeFolder(args.folder) : dirname(path) === "" ? "" : `${dirname(path)}/`;
    const level = args.level;
    const existing = new Set(engine.files().map((file) => file.path.toLowerCase()));
    const named = new Map<string, string>();
    const sections: Section[] = [];
    const refuse = (heading: HeadingCache, problem: string): ToolError =>
      new ToolError("invalid_argument", `Heading "${heading.heading}" (line ${heading.position.start.line + 1}) ${problem}; nothing was written. Rename the heading with note_section_edit, or pass another \`folder\`.`, {
        details: { heading: heading.heading, line: heading.position.start.line + 1 },
      });
    headings.forEach((heading, index) => {
      if (heading.level !== level) return;
      const next = headings.slice(index + 1).find((later) => later.level <= level);
      const name = noteNameOf(heading.heading);
      if (name === "") throw refuse(heading, "gives an empty file name (only characters a file name cannot hold)");
      if (name.length > MAX_NAME_LENGTH) throw refuse(heading, `gives a file name longer than ${MAX_NAME_LENGTH} characters`);
      const target = `${folder}${name}.md`;
      const clash = named.get(target.toLowerCase());
      if (clash !== undefined) throw refuse(heading, `gives the same note name as heading "${clash}" (${target})`);
      if (existing.has(target.toLowerCase())) throw refuse(heading, `would become ${target}, which already exists`);
      named.set(target.toLowerCase(), heading.heading);
      sections.push({ heading, index, start: heading.position.start.line, end: next ? next.position.start.line : lines.length, path: target });
    });
    if (sections.length === 0) {
      throw new ToolError("invalid_argument", `"${path}" has no level-${level} headings (headings in code do not count); nothing was written. Call note_outline to see its headings and pass their level.`);
    }
    for (const section of sections) {
      try {
        const resolved = await engine.resolve(section.path, { note: true });
        if (resolved.stat) throw refuse(section.heading, `would become ${resolved.path}, which already exists`);
        engine.checkNewPath(resolved.path);
      } catch (error) {
        if (isToolError(error) && error.code === "invalid_argument") throw error;
        throw refuse(section.heading, `gives a path the vault cannot hold (${describeFailure(error)})`);
      }
    }

    const files = engine.files().map((file) => file.path);
    const planner = new SplitPlanner(path, cache, sections, files, await linkFormat(engine));
    const originalEdits = planner.plan(path, cache, (line) => planner.noteAt(line));
    const texts = planner.build(text, originalEdits);
    if (texts === null) throw new ToolError("conflict", `"${path}" changed while the split was planned; nothing was written. Call note_split again.`, { state: "not_applied" });
    const others: OtherNote[] = [];
    for (const other of files) {
      if (other === path || extname(other) !== "md") continue;
      const otherCache = engine.cache(other);
      if (!otherCache) continue;
      const edits = planner.plan(other, otherCache, () => other);
      if (edits.length > 0) others.push({ path: other, edits: edits.map(({ home: _home, ...edit }) => edit) });
    }
    const linksUpdated = originalEdits.length + others.reduce((sum, note) => sum + note.edits.length, 0);

    const brokenBefore = planner.brokenLinks();
    const relevant = (warning: string, notePath: string): boolean => {
      const match = BROKEN_LINK_WARNING.exec(warning);
      if (!match) return true;
      const link = match[1] ?? "";
      return !brokenBefore.has(link) && planner.after.resolve(stripSubpath(link), notePath) === null;
    };
    const actor = actorOf(ctx);
    const pass = await preparePass(engine, { texts, path, hash: read.content_hash, others, actor }).catch((error: unknown) => {
      if (isToolError(error)) throw new ToolError(error.code, `note_split refused, nothing was written: ${error.message}`, { state: "not_applied", retry: error.retry, ...(error.details ? { details: error.details } : {}) });
      throw error;
    });
    const summary = `${path} -> ${sections.length} notes (${linksUpdated} links updated)`;
    // New notes first, then the original, then the linking notes, as one transaction: a crash half
    // way is completed or undone at the next start; one summary commit.
    const outcome = args.dry_run
      ? null
      : await engine.writes.transaction({
          tool: TOOL,
          subject: `${TOOL}: ${summary}`,
          meta: {
            tool: TOOL,
            ...(args.reason !== undefined ? { reason: args.reason } : {}),
            ...(actor.via !== undefined ? { via: actor.via } : {}),
            ...(actor.user !== undefined ? { user: actor.user } : {}),
          },
          commitPaths: [...pass.created.map((entry) => entry.result.path), path, ...others.map((note) => note.path)],
          steps: [...pass.created, pass.original, ...pass.notes.map((entry) => entry.prepared)].map((prepared) => ({
            kind: "write" as const,
            path: prepared.result.path,
            before: prepared.before,
            after: prepared.after,
          })),
        });

    const warnings: string[] = [];
    const collect = (result: WriteResult): void => {
      warnings.push(...result.warnings.filter((warning) => relevant(warning, result.path)).map((warning) => `${result.path}: ${warning}`));
    };
    pass.created.forEach((prepared) => collect(prepared.result));
    collect(pass.original.result);
    for (const { prepared } of pass.notes) collect(prepared.result);
    const withTrash = (entry: Record<string, unknown>, result: WriteResult): Record<string, unknown> => {
      const trash = outcome?.trash.get(result.path);
      return trash !== undefined ? { ...entry, trash } : entry;
    };
    const notes = pass.notes.map(({ note, prepared: { result } }) =>
      withTrash({ path: note.path, edits: note.edits.map((edit) => ({ line: edit.line + 1, before: edit.before, after: edit.after })), diff: result.diff }, result),
    );
    const created = pass.created.map(({ result }) => ({ path: result.path, diff: result.diff }));
    const base = {
      vault: engine.name,
      path,
      level,
      dry_run: args.dry_run,
      created,
      original: withTrash({ path, diff: pass.original.result.diff }, pass.original.result),
      total: notes.length,
      returned: notes.length,
      notes,
      links_updated: linksUpdated,
    };
    if (args.dry_run) {
      return { ...base, warnings, message: `Dry run: splitting ${summary}; nothing was written. Call again without dry_run to split it.` };
    }
    warnings.push(...(outcome?.warnings ?? []));
    return { ...base, warnings, message: `Split ${path} into ${sections.length} notes (${created.map((entry) => entry.path).join(", ")}); ${linksUpdated} links updated.` };
  },
});

interface PassInput {
  texts: SplitTexts;
  path: string;
  hash: string;
  others: readonly OtherNote[];
  actor: WriteActor;
}

/** Every write of the split worked out (nothing written), in the order they are applied: new notes, the original, the linking notes. */
async function preparePass(engine: VaultEngine, input: PassInput): Promise<PassResult> {
  const created: PreparedWrite[] = [];
  for (const note of input.texts.created) {
    created.push(await engine.writes.prepare({ path: note.path, tool: TOOL, mode: "create", actor: input.actor, transform: () => note.text }));
  }
  const original = await engine.writes.prepare({
    path: input.path,
    tool: TOOL,
    mode: "update",
    expected_hash: input.hash,
    skip_touch: true,
    allow_invalid_frontmatter: true,
    actor: input.actor,
    transform: () => input.texts.original,
  });
  const notes: PassResult["notes"] = [];
  for (const note of input.others) {
    const prepared = await engine.writes.prepare({
      path: note.path,
      tool: TOOL,
      mode: "update",
      skip_touch: true,
      allow_invalid_frontmatter: true,
      actor: input.actor,
      transform: (current) => {
        const applied = applyPlannedEdits(current ?? "", note.edits);
        if (applied === null) throw new ToolError("conflict", `"${note.path}" changed while the split was planned. Call note_split again.`, { state: "not_applied" });
        return applied;
      },
    });
    notes.push({ note, prepared });
  }
  return { created, original, notes };
}
