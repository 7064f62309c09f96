// Section lookup for section reads and edits (SPEC §8). A section runs from its heading to the next
// heading of the same or a higher level, so sub-sections belong to it. Ambiguity is refused, never
// resolved by position: the agent is told the candidates and how to name one exactly.
import { ToolError } from "../errors";
import type { CachedMetadata, HeadingCache } from "./metadata";

export interface SectionMatch {
  heading: string;
  level: number;
  /** 0-based line of the heading. */
  line: number;
  /** Offset of the heading line's first character. */
  start: number;
  /** Offset just after the heading line and its line ending. */
  bodyStart: number;
  /** Offset of the next heading of the same or higher level, or the end of the text. */
  end: number;
}

const MAX_LISTED = 20;

function describe(heading: HeadingCache): string {
  return `"${"#".repeat(heading.level)} ${heading.heading}" (line ${heading.position.start.line + 1})`;
}

function candidatesAt(headings: readonly HeadingCache[], wanted: string): HeadingCache[] {
  const exact = headings.filter((h) => h.heading === wanted);
  if (exact.length > 0) return exact;
  const lower = wanted.toLowerCase();
  const caseless = headings.filter((h) => h.heading.toLowerCase() === lower);
  if (caseless.length > 0) return caseless;
  return headings.filter((h) => h.heading.toLowerCase().startsWith(lower));
}

export function findSection(text: string, cache: CachedMetadata, heading: string): SectionMatch {
  const wanted = heading.trim().replace(/^#+/, "").trim().normalize("NFC");
  if (wanted === "") {
    throw new ToolError("invalid_argument", "The heading is empty; pass the heading text (without `#`), as note_outline lists it.");
  }
  const headings = (cache.headings ?? []).map((h) => ({ ...h, heading: h.heading.normalize("NFC") }));
  const found = candidatesAt(headings, wanted);

  if (found.length > 1) {
    const listed = found.slice(0, MAX_LISTED).map(describe).join(", ");
    throw new ToolError(
      "invalid_argument",
      `The heading "${wanted}" matches ${found.length} headings: ${listed}. Pass the exact heading text, or call note_outline to see every heading.`,
      { details: { candidates: found.slice(0, MAX_LISTED).map((h) => ({ heading: h.heading, level: h.level, line: h.position.start.line + 1 })) } },
    );
  }
  const match = found[0];
  if (!match) {
    const available = headings.length === 0 ? "The note has no headings" : `Available headings: ${headings.slice(0, MAX_LISTED).map(describe).join(", ")}${headings.length > MAX_LISTED ? `, and ${headings.length - MAX_LISTED} more` : ""}`;
    throw new ToolError("not_found", `No heading matches "${wanted}". ${available}. Call note_outline to see the note's headings.`);
  }

  const index = headings.indexOf(match);
  const start = match.position.start.offset - match.position.start.col;
  const newline = text.indexOf("\n", match.position.end.offset);
  const bodyStart = newline < 0 ? text.length : newline + 1;
  let end = text.length;
  for (const next of headings.slice(index + 1)) {
    if (next.level <= match.level) {
      end = next.position.start.offset - next.position.start.col;
      break;
    }
  }
  return { heading: match.heading, level: match.level, line: match.position.start.line, start, bodyStart, end };
}
