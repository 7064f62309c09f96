// Section edits (SPEC §8) as one pure function over a note's LF text. Every mode is a single splice;
// blank lines are normalised only in the spliced region and the blank lines touching it, so bytes
// elsewhere in the note stay as they were (the one exception: the note ends with exactly one newline).
import { ToolError } from "../errors";
import { splitFrontmatter } from "./frontmatter";
import type { CachedMetadata } from "./metadata";
import { findSection, type SectionMatch } from "./sections";

export const SECTION_EDIT_MODES = [
  "replace_section",
  "append_to_section",
  "prepend_to_section",
  "insert_before_section",
  "insert_after_section",
  "delete_section",
  "append_to_note",
  "prepend_to_note",
] as const;

export type SectionEditMode = (typeof SECTION_EDIT_MODES)[number];

export interface SectionEditRequest {
  mode: SectionEditMode;
  /** Heading text as note_outline lists it; leading `#`s are ignored. Required by the section modes. */
  heading?: string;
  content: string;
  /** A heading that matches nothing is added at the end of the note (append, prepend and replace only). */
  createHeading?: boolean;
}

const NOTE_MODES: ReadonlySet<SectionEditMode> = new Set(["append_to_note", "prepend_to_note"]);
const HEADING_CREATING_MODES: ReadonlySet<SectionEditMode> = new Set(["append_to_section", "prepend_to_section", "replace_section"]);
const DEFAULT_NEW_HEADING_LEVEL = 2;

function isBlank(line: string): boolean {
  return /^[ \t\r]*$/.test(line);
}

/** Lines that continue the block above them without a blank line: list items and table rows. */
function continues(upper: string, lower: string): boolean {
  const listish = (line: string) => /^\s*(?:[-*+]|\d+[.)])(?:\s|$)/.test(line) || /^(?: {2,}|\t)\S/.test(line);
  const tableRow = (line: string) => /^\s*\|/.test(line);
  return (listish(upper) && listish(lower)) || (tableRow(upper) && tableRow(lower));
}

function needsBlankBetween(upper: string | null, lower: string | null): boolean {
  if (upper === null || lower === null || isBlank(upper) || isBlank(lower)) return false;
  return !continues(upper, lower);
}

/** Start of the line that ends with the newline at `offset - 1`. */
function startOfLineBefore(text: string, offset: number): number {
  // lastIndexOf clamps a negative position to 0 and would find a newline at offset 0 itself.
  return offset < 2 ? 0 : text.lastIndexOf("\n", offset - 2) + 1;
}

function lineEndingAt(text: string, offset: number): string {
  return text.slice(startOfLineBefore(text, offset), offset - 1);
}

function lineStartingAt(text: string, offset: number): string {
  const newline = text.indexOf("\n", offset);
  return text.slice(offset, newline < 0 ? text.length : newline);
}

/** Start of the run of blank lines that ends at `end` (a line start), never below `floor`. */
function blankRunStart(text: string, end: number, floor: number): number {
  let pos = end;
  while (pos > floor && text[pos - 1] === "\n") {
    const lineStart = Math.max(floor, startOfLineBefore(text, pos));
    if (!isBlank(text.slice(lineStart, pos - 1))) break;
    pos = lineStart;
  }
  return pos;
}

/** End of the run of blank lines that starts at `start` (a line start). */
function blankRunEnd(text: string, start: number): number {
  let pos = start;
  while (pos < text.length) {
    const newline = text.indexOf("\n", pos);
    const lineEnd = newline < 0 ? text.length : newline;
    if (!isBlank(text.slice(pos, lineEnd))) break;
    pos = newline < 0 ? text.length : newline + 1;
  }
  return pos;
}

/** At most two consecutive blank lines; `region` starts at a line start. */
function collapseBlankRuns(region: string): string {
  const trailingNewline = region.endsWith("\n");
  const lines = (trailingNewline ? region.slice(0, -1) : region).split("\n");
  const kept: string[] = [];
  let blanks = 0;
  for (const line of lines) {
    blanks = isBlank(line) ? blanks + 1 : 0;
    if (blanks <= 2) kept.push(line);
  }
  return kept.join("\n") + (trailingNewline ? "\n" : "");
}

function endWithOneNewline(text: string, floor: number): string {
  const body = text.slice(floor);
  if (/^[ \t\r\n]*$/.test(body)) return text.slice(0, floor);
  const trailing = /\n[ \t\r\n]*$/.exec(body);
  return text.slice(0, floor) + (trailing ? body.slice(0, trailing.index) : body) + "\n";
}

/** The agent's text as whole LF lines. */
function asBlock(content: string): string {
  const lf = content.replace(/\r\n/g, "\n");
  return lf === "" || lf.endsWith("\n") ? lf : lf + "\n";
}

/**
 * Replaces `text[from, to)` with `block`, adding a blank line on either side where Markdown needs one
 * to keep the block apart from its neighbours, then collapses blank runs in the touched region only.
 */
function splice(text: string, from: number, to: number, block: string, floor: number): string {
  let insert = block;
  // Appending to a last line that has no newline yet: that line is closed first.
  const open = insert !== "" && from > 0 && text[from - 1] !== "\n";
  if (insert !== "") {
    const first = lineStartingAt(insert, 0);
    const last = lineEndingAt(insert, insert.length);
    const upper = from <= floor ? null : open ? text.slice(text.lastIndexOf("\n", from - 1) + 1, from) : lineEndingAt(text, from);
    const lower = to < text.length ? lineStartingAt(text, to) : null;
    if (needsBlankBetween(upper, first)) insert = "\n" + insert;
    if (open) insert = "\n" + insert;
    if (needsBlankBetween(last, lower)) insert += "\n";
  }
  const result = text.slice(0, from) + insert + text.slice(to);
  const windowStart = blankRunStart(result, open ? from + 1 : from, floor);
  const windowEnd = blankRunEnd(result, from + insert.length);
  return result.slice(0, windowStart) + collapseBlankRuns(result.slice(windowStart, windowEnd)) + result.slice(windowEnd);
}

function startsWithHeading(block: string): boolean {
  const firstLine = block.split("\n").find((line) => !isBlank(line)) ?? "";
  return /^#{1,6}(?:[ \t]|$)/.test(firstLine);
}

function wantedHeading(heading: string): { text: string; level: number } {
  const trimmed = heading.trim();
  const hashes = /^#+/.exec(trimmed)?.[0].length ?? 0;
  return { text: trimmed.replace(/^#+/, "").trim(), level: hashes >= 1 && hashes <= 6 ? hashes : DEFAULT_NEW_HEADING_LEVEL };
}

function checkRequest(request: SectionEditRequest): void {
  const noteMode = NOTE_MODES.has(request.mode);
  const heading = request.heading?.trim() ?? "";
  if (noteMode && heading !== "") {
    const sectionMode = request.mode === "append_to_note" ? "append_to_section" : "prepend_to_section";
    throw new ToolError("invalid_argument", `Mode ${request.mode} works on the whole note and takes no heading. Omit heading, or use mode ${sectionMode} to add under "${heading}".`);
  }
  if (!noteMode && heading === "") {
    throw new ToolError("invalid_argument", `Mode ${request.mode} needs a heading. Pass the heading text (call note_outline to list them), or use append_to_note / prepend_to_note.`);
  }
  const empty = request.content.trim() === "";
  if (request.mode === "delete_section" && !empty) {
    throw new ToolError("invalid_argument", "Mode delete_section removes the section and takes no content. Omit content, or use replace_section to put new text in its place.");
  }
  if (empty && request.mode !== "delete_section" && request.mode !== "replace_section") {
    throw new ToolError("invalid_argument", `content is empty, so mode ${request.mode} would add nothing. Pass the Markdown to add, or use delete_section / replace_section to remove text.`);
  }
}

function lookup(text: string, cache: CachedMetadata, request: SectionEditRequest): SectionMatch | null {
  try {
    return findSection(text, cache, request.heading ?? "");
  } catch (error) {
    if (error instanceof ToolError && error.code === "not_found") {
      if (request.createHeading && HEADING_CREATING_MODES.has(request.mode)) return null;
      const hint = HEADING_CREATING_MODES.has(request.mode) ? " Or pass create: true to add the heading at the end of the note." : "";
      throw new ToolError("not_found", error.message + hint, error.details ? { details: error.details } : {});
    }
    throw error;
  }
}

/** The end of a section's text, before the blank lines that separate it from the next heading. */
function sectionContentEnd(text: string, section: SectionMatch): number {
  return Math.max(section.bodyStart, blankRunStart(text, section.end, section.bodyStart));
}

/**
 * Applies one section edit to `text` (LF, no BOM) whose structure is `cache`. Throws ToolError for a
 * request that cannot apply: a missing or ambiguous heading, or arguments that do not fit the mode.
 */
export function applySectionEdit(text: string, cache: CachedMetadata, request: SectionEditRequest): string {
  checkRequest(request);
  const split = splitFrontmatter(text);
  const floor = split.exists ? split.contentStart : split.yamlStart;
  const block = asBlock(request.content);
  const noteEnd = Math.max(floor, blankRunStart(text, text.length, floor));

  let edited: string;
  if (request.mode === "append_to_note") {
    edited = splice(text, noteEnd, noteEnd, block, floor);
  } else if (request.mode === "prepend_to_note") {
    edited = splice(text, floor, floor, block, floor);
  } else {
    const section = lookup(text, cache, request);
    if (section === null) {
      const wanted = wantedHeading(request.heading ?? "");
      const headingLine = `${"#".repeat(wanted.level)} ${wanted.text}\n`;
      edited = splice(text, noteEnd, noteEnd, block === "" ? headingLine : `${headingLine}\n${block}`, floor);
    } else {
      edited = editSection(text, section, request.mode, block, floor);
    }
  }
  return endWithOneNewline(edited, floor);
}

function editSection(text: string, section: SectionMatch, mode: SectionEditMode, block: string, floor: number): string {
  const contentEnd = sectionContentEnd(text, section);
  switch (mode) {
    case "replace_section": {
      const from = block !== "" && startsWithHeading(block) ? section.start : section.bodyStart;
      return splice(text, from, contentEnd, block, floor);
    }
    case "append_to_section":
      return splice(text, contentEnd, contentEnd, block, floor);
    case "prepend_to_section":
      return splice(text, section.bodyStart, section.bodyStart, block, floor);
    case "insert_before_section":
      return splice(text, section.start, section.start, block, floor);
    case "insert_after_section":
      return splice(text, section.end, section.end, block, floor);
    case "delete_section":
      return splice(text, section.start, section.end, "", floor);
    default:
      throw new ToolError("invalid_argument", `Mode ${mode} is not a section mode; use one of ${SECTION_EDIT_MODES.join(", ")}.`);
  }
}
