// note_read and note_outline: a bounded window of a note's text, or its shape without the body.
import { ToolError } from "../../core/errors";
import { FRONTMATTER_LIMIT_BYTES, FRONTMATTER_LIMIT_TEXT, oversizeFrontmatter } from "../../core/notes/frontmatter";
import { sameHash } from "../../core/notes/hash";
import { findSection } from "../../core/notes/sections";
import { extname } from "../../core/notes/paths";
import { parseNote, stripBom } from "../../core/notes/structure";
import { DEFAULT_WINDOW_BYTES } from "../../core/notes/window";
import type { CachedMetadata } from "../../core/notes/metadata";
import { TEXT_LIMIT_BYTES } from "../../core/vault/engine";
import type { ReadFile, VaultEngine } from "../../core/vault/types";
import { fittingWindow, iso, pathField, vaultField } from "../common";
import { boolean, integer, object, optional, string, withDefault } from "../schema";
import { READ_ONLY, defineTool } from "../types";

const encoder = new TextEncoder();

function isCanvas(path: string): boolean {
  return /\.canvas$/i.test(path);
}

/** Reads a note (or canvas) as text, refusing binaries and oversize files with the reason. */
async function readText(engine: VaultEngine, input: string): Promise<{ file: ReadFile; text: string }> {
  const file = await engine.read(input, { note: !isCanvas(input) }).catch(async (error: unknown) => {
    throw (await attachmentInstead(engine, input)) ?? error;
  });
  if (file.text === undefined) {
    throw new ToolError(
      "too_large",
      `"${file.path}" is ${file.stat.size} bytes; files over ${TEXT_LIMIT_BYTES} bytes are not read as text. Use vault_grep to find lines in it, or split the note.`,
      { details: { path: file.path, bytes: file.stat.size, limit: TEXT_LIMIT_BYTES } },
    );
  }
  return { file, text: file.text };
}

/** `diagram.png` is not the note `diagram.png.md`: when the file itself exists, say which tool reads it. */
async function attachmentInstead(engine: VaultEngine, input: string): Promise<ToolError | null> {
  try {
    const { path, stat } = await engine.resolve(input);
    if (!stat || extname(path) === "md") return null;
    return new ToolError(
      "invalid_argument",
      `"${path}" is an attachment, not a note; note_read reads notes (.md) and canvases. Call attachment_read with this path to read it.`,
      { details: { path } },
    );
  } catch {
    return null;
  }
}

/** The host's cached structure when it describes these very bytes, else a fresh parse. */
function structureOf(engine: VaultEngine, file: ReadFile, plain: string): CachedMetadata {
  const cached = engine.cache(file.path);
  const known = engine.file(file.path)?.hash;
  return cached && known !== undefined && sameHash(known, file.content_hash) ? cached : parseNote(plain);
}

/** Why a note shows no properties although it has frontmatter: it is over the limit, so never parsed. */
function frontmatterWarnings(plain: string, cache: CachedMetadata | null): string[] {
  const bytes = oversizeFrontmatter(plain);
  if (bytes === null) return [];
  const missing = cache?.frontmatter === undefined ? "it is not parsed, so its properties, tags and aliases are missing here and in searches, and " : "";
  return [
    `The frontmatter is ${bytes} bytes, over the limit of ${FRONTMATTER_LIMIT_BYTES} bytes (${FRONTMATTER_LIMIT_TEXT}): ${missing}its properties cannot be changed with note_frontmatter. The body is read and indexed as usual; to change the frontmatter, replace it with a smaller one using note_write.`,
  ];
}

function linkCounts(engine: VaultEngine, path: string) {
  const resolved = engine.metadata().resolvedLinks()[path] ?? {};
  const unresolved = engine.metadata().unresolvedLinks()[path] ?? {};
  return {
    outgoing: Object.keys(resolved).length,
    incoming: engine.incoming(path).size,
    broken: Object.keys(unresolved).length,
  };
}

export const noteRead = defineTool({
  name: "note_read",
  title: "Read a note",
  description:
    `Returns a note's text (frontmatter included) as a window of at most max_bytes bytes (default ${DEFAULT_WINDOW_BYTES}; a window that would not fit the response limit ends earlier), with content_hash for later edits. When next_byte_offset is present, call again with byte_offset = next_byte_offset and the same content_hash to continue. \`heading\` returns one section only. Canvas files are returned as their JSON. Call note_outline first on long notes.`,
  group: "find",
  input: object({
    vault: vaultField,
    path: pathField,
    heading: optional(string({ description: "Return only this section (heading text; exact, then case-insensitive, then prefix)." })),
    max_bytes: withDefault(integer({ description: `Largest window in bytes (default ${DEFAULT_WINDOW_BYTES}).`, minimum: 256, maximum: 1024 * 1024 }), DEFAULT_WINDOW_BYTES),
    byte_offset: withDefault(integer({ description: "Where the window starts, from a previous next_byte_offset.", minimum: 0 }), 0),
    content_hash: optional(string({ description: "The content_hash of the earlier read; required when continuing." })),
    with_metadata: withDefault(boolean({ description: "Also return frontmatter, tags, aliases and link counts." }), false),
  }),
  annotations: READ_ONLY,
  largeResults: true,
  async handler(ctx, args) {
    const engine = ctx.vaults.get(args.vault);
    const { file, text } = await readText(engine, args.path);
    if (args.content_hash !== undefined && !sameHash(args.content_hash, file.content_hash)) {
      throw new ToolError(
        "conflict",
        `"${file.path}" changed since the read that gave content_hash ${args.content_hash}; it is now ${file.content_hash}. Read it again from byte_offset 0.`,
        { retry: "inspect_state", details: { path: file.path, content_hash: file.content_hash } },
      );
    }
    if (args.byte_offset > 0 && args.content_hash === undefined) {
      throw new ToolError(
        "invalid_argument",
        "Continuing a read (byte_offset > 0) needs the content_hash of the first window, so versions are never mixed. Pass content_hash from that result.",
      );
    }
    let bytes = file.bytes;
    let section: { heading: string; line: number } | undefined;
    if (args.heading !== undefined) {
      const plain = stripBom(text);
      const match = findSection(plain, structureOf(engine, file, plain), args.heading);
      section = { heading: match.heading, line: match.line + 1 };
      bytes = encoder.encode(plain.slice(match.start, match.end));
    }
    const head = {
      vault: engine.name,
      path: file.path,
      content_hash: file.content_hash,
      modified: iso(file.stat.mtime),
      ...(section ? { heading: section.heading, heading_line: section.line } : {}),
    };
    const extra: Record<string, unknown> = {};
    if (args.with_metadata && !isCanvas(file.path)) {
      const summary = engine.summary(file.path);
      extra.frontmatter = engine.cache(file.path)?.frontmatter ?? null;
      extra.tags = summary?.tags ?? [];
      extra.aliases = summary?.aliases ?? [];
      extra.links = linkCounts(engine, file.path);
      const warnings = frontmatterWarnings(stripBom(text), engine.cache(file.path));
      if (warnings.length > 0) extra.warnings = warnings;
    }
    const limit = ctx.response?.maxBytes;
    // Where to continue comes before the text, so a client that keeps only the head still shows it.
    return fittingWindow(ctx, bytes, args.byte_offset, args.max_bytes, (window, shortened) => ({
      ...head,
      ...(shortened
        ? { window_shortened: `max_bytes ${args.max_bytes} does not fit the response limit${limit !== undefined ? ` of ${limit} bytes` : ""}, so this window ends early; continue from next_byte_offset.` }
        : {}),
      byte_offset: window.byte_offset,
      byte_count: window.byte_count,
      total_bytes: window.total_bytes,
      ...(window.next_byte_offset !== undefined ? { next_byte_offset: window.next_byte_offset } : {}),
      content: window.text,
      ...extra,
    }));
  },
});

export const noteOutline = defineTool({
  name: "note_outline",
  title: "Outline of a note",
  description:
    "The shape of a note without its body: headings with line numbers, frontmatter, tags, aliases, link counts in and out, open tasks, words and bytes, plus content_hash. Use it before note_read on long notes and to pick a heading for note_read or note_section_edit.",
  group: "find",
  input: object({ vault: vaultField, path: pathField }),
  annotations: READ_ONLY,
  async handler(ctx, args) {
    const engine = ctx.vaults.get(args.vault);
    const { file, text } = await readText(engine, args.path);
    const plain = stripBom(text);
    const cache = structureOf(engine, file, plain);
    const facts = engine.noteFacts(file.path);
    const warnings = frontmatterWarnings(plain, cache);
    return {
      vault: engine.name,
      path: file.path,
      content_hash: file.content_hash,
      title: facts?.title ?? file.path,
      bytes: file.stat.size,
      words: facts?.words ?? 0,
      modified: iso(file.stat.mtime),
      frontmatter: cache.frontmatter ?? null,
      tags: facts?.tags ?? [],
      aliases: facts?.aliases ?? [],
      headings: (cache.headings ?? []).map((heading) => ({
        heading: heading.heading,
        level: heading.level,
        line: heading.position.start.line + 1,
      })),
      links: linkCounts(engine, file.path),
      open_tasks: (facts?.tasks ?? []).filter((task) => !task.done).map((task) => ({ line: task.line, text: task.text })),
      ...(warnings.length > 0 ? { warnings } : {}),
    };
  },
});
