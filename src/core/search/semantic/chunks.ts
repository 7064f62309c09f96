// Notes cut into chunks for embedding. A chunk is a run of whole sections (a heading and what follows
// it up to the next heading), cut further where a section is longer than the profile allows, each
// piece repeating the end of the one before so that a sentence across a cut is whole in one of them.
// The id names the place (vault, path, index) and the hash the text sent to the model: a note edited
// in one section keeps the hashes of the others, so only the changed chunk is embedded again.

export type ChunkProfile = "short" | "medium" | "long";

export const DEFAULT_CHUNK_PROFILE: ChunkProfile = "medium";

export interface ChunkSizes {
  /** Most characters of note text in one chunk. */
  readonly target: number;
  /** Characters of the previous piece repeated at the start of the next, where a long section is cut. */
  readonly overlap: number;
}

// Characters, not model tokens: about four per English token, so medium stays near 300 tokens, well
// inside the 512-token window of the small sentence models.
export const CHUNK_PROFILES: Readonly<Record<ChunkProfile, ChunkSizes>> = Object.freeze({
  short: Object.freeze({ target: 600, overlap: 80 }),
  medium: Object.freeze({ target: 1200, overlap: 150 }),
  long: Object.freeze({ target: 2400, overlap: 250 }),
});

export function isChunkProfile(value: unknown): value is ChunkProfile {
  return value === "short" || value === "medium" || value === "long";
}

export interface Chunk {
  /** `vault`, `path` and `index`, stable across runs. */
  id: string;
  /** Place in the note, from 0. */
  index: number;
  /** The heading the chunk starts under ("" before the first heading). */
  heading: string;
  /** What is sent to the model: the note's title and the heading, then the chunk's text. */
  text: string;
  /** The hash function's value of `text`. */
  hash: string;
}

export interface ChunkSource {
  vault: string;
  path: string;
  title: string;
  /** The note's body, frontmatter removed. */
  body: string;
}

interface Section {
  heading: string;
  text: string;
}

const HEADING = /^ {0,3}(#{1,6})[ \t]+(.*?)[ \t#]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** The body split before each heading line outside code fences. */
function sections(body: string): Section[] {
  const result: Section[] = [];
  let heading = "";
  let lines: string[] = [];
  let fence: string | null = null;
  const flush = (): void => {
    const text = lines.join("\n").trim();
    if (text !== "") result.push({ heading, text });
  };
  for (const line of body.split(/\r?\n/)) {
    const fenced = FENCE.exec(line);
    if (fenced) {
      const marker = fenced[1]!;
      if (fence === null) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = null;
    }
    const match = fence === null ? HEADING.exec(line) : null;
    if (match && !fenced) {
      flush();
      heading = match[2]!.trim();
      lines = [line];
      continue;
    }
    lines.push(line);
  }
  flush();
  return result;
}

/** Cuts a text longer than `sizes.target` at paragraph, line or word ends, each piece repeating the previous one's last `overlap` characters. */
function pieces(text: string, sizes: ChunkSizes): string[] {
  if (text.length <= sizes.target) return [text];
  const result: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + sizes.target);
    if (end < text.length) {
      const window = text.slice(start, end);
      const floor = Math.floor(sizes.target / 2);
      for (const separator of ["\n\n", "\n", ". ", " "]) {
        const at = window.lastIndexOf(separator);
        if (at >= floor) {
          end = start + at + separator.length;
          break;
        }
      }
    }
    result.push(text.slice(start, end).trim());
    if (end >= text.length) break;
    // The overlap starts at a word, so no piece begins inside one.
    let next = Math.max(start + 1, end - sizes.overlap);
    const space = text.indexOf(" ", next);
    if (space !== -1 && space < end) next = space + 1;
    start = next;
  }
  return result.filter((piece) => piece !== "");
}

/**
 * The note's chunks: consecutive sections joined while they fit the profile's target, longer ones cut
 * with overlap. A note without body text is one chunk holding its title, so its name can still match.
 */
export function chunkNote(source: ChunkSource, profile: ChunkProfile, hash: (text: string) => string): Chunk[] {
  const sizes = CHUNK_PROFILES[profile];
  const groups: Section[] = [];
  for (const section of sections(source.body)) {
    const last = groups[groups.length - 1];
    if (last && last.text.length + 2 + section.text.length <= sizes.target) last.text += `\n\n${section.text}`;
    else groups.push({ ...section });
  }
  const texts: Section[] = [];
  for (const group of groups) for (const piece of pieces(group.text, sizes)) texts.push({ heading: group.heading, text: piece });
  if (texts.length === 0) texts.push({ heading: "", text: "" });
  return texts.map((chunk, index) => {
    const text = [source.title, chunk.heading !== "" && !chunk.text.includes(chunk.heading) ? chunk.heading : "", chunk.text].filter((part) => part !== "").join("\n");
    return { id: chunkId(source.vault, source.path, index), index, heading: chunk.heading, text, hash: hash(text) };
  });
}

/** Deterministic: the same note place gives the same id on every run and host. */
export function chunkId(vault: string, path: string, index: number): string {
  return `${vault}/${path}#${index}`;
}
