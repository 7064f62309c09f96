// note_backlinks and note_related: the link graph around one note.
import { stripSubpath } from "../../core/notes/paths";
import type { CachedMetadata } from "../../core/notes/metadata";
import type { VaultEngine } from "../../core/vault/types";
import { limitField, pathField, requireNote, vaultField } from "../common";
import { object } from "../schema";
import { READ_ONLY, defineTool } from "../types";

interface OutgoingLink {
  target: string;
  resolved: string;
  kind: "link" | "embed" | "frontmatter";
  line: number | null;
  candidates?: string[];
}


function outgoingLinks(engine: VaultEngine, path: string, cache: CachedMetadata | null): OutgoingLink[] {
  if (!cache) return [];
  const metadata = engine.metadata();
  const entries: Array<{ link: string; kind: OutgoingLink["kind"]; line: number | null }> = [
    ...(cache.links ?? []).map((ref) => ({ link: ref.link, kind: "link" as const, line: ref.position.start.line + 1 })),
    ...(cache.embeds ?? []).map((ref) => ({ link: ref.link, kind: "embed" as const, line: ref.position.start.line + 1 })),
    ...(cache.frontmatterLinks ?? []).map((ref) => ({ link: ref.link, kind: "frontmatter" as const, line: null })),
  ];
  return entries.map((entry) => {
    const linkpath = stripSubpath(entry.link);
    const candidates = metadata.getLinkpathCandidates(linkpath, path);
    const out: OutgoingLink = { target: entry.link, resolved: candidates[0] ?? "", kind: entry.kind, line: entry.line };
    if (candidates.length > 1) out.candidates = candidates;
    return out;
  });
}

/** Notes whose unresolved links name this (missing) path, by full path or by basename. */
function pendingIncoming(engine: VaultEngine, path: string): Map<string, number> {
  const withoutExt = path.replace(/\.md$/i, "").toLowerCase();
  const base = withoutExt.slice(withoutExt.lastIndexOf("/") + 1);
  const found = new Map<string, number>();
  for (const [source, targets] of Object.entries(engine.metadata().unresolvedLinks())) {
    for (const [linkpath, count] of Object.entries(targets)) {
      const normalized = linkpath.replace(/^\/+/, "").replace(/\.md$/i, "").toLowerCase();
      if (normalized === withoutExt || normalized === base || withoutExt.endsWith("/" + normalized)) {
        found.set(source, (found.get(source) ?? 0) + count);
      }
    }
  }
  return found;
}

export const noteBacklinks = defineTool({
  name: "note_backlinks",
  title: "Links to and from a note",
  description:
    "Who links to a note (incoming, with counts), what it links to (outgoing: each target as written and the resolved path, with candidates when several files matched) and which of its links are broken. Works for a note that does not exist yet: incoming then lists the notes whose links wait for it.",
  group: "find",
  input: object({ vault: vaultField, path: pathField, limit: limitField(200, 2000) }),
  annotations: READ_ONLY,
  async handler(ctx, args) {
    const engine = ctx.vaults.get(args.vault);
    const { path } = await engine.resolve(args.path, { note: true });
    const exists = engine.file(path) !== undefined;
    const incomingMap = exists ? engine.incoming(path) : pendingIncoming(engine, path);
    const incoming = [...incomingMap.entries()]
      .filter(([source]) => source !== path)
      .sort((a, b) => (a[0] < b[0] ? -1 : 1))
      .map(([source, count]) => ({ path: source, title: engine.summary(source)?.title ?? source, count }));
    const outgoing = exists ? outgoingLinks(engine, path, engine.cache(path)) : [];
    const broken = outgoing.filter((link) => link.resolved === "").map((link) => ({ target: link.target, kind: link.kind, line: link.line }));
    return {
      vault: engine.name,
      path,
      exists,
      total: incoming.length,
      returned: Math.min(incoming.length, args.limit),
      incoming: incoming.slice(0, args.limit),
      outgoing: outgoing.slice(0, args.limit),
      broken: broken.slice(0, args.limit),
    };
  },
});

interface Relation {
  score: number;
  shared_tags: string[];
  links_to: boolean;
  linked_from: boolean;
  shared_targets: number;
  shared_linkers: number;
  same_folder: boolean;
  /** Cosine similarity of the nearest chunks, when the vault has vectors and the note is among the nearest. */
  similarity?: number;
}

// A neighbour in meaning at similarity 1 weighs as much as a direct link.
const WEIGHTS = { directLink: 3, sharedTarget: 1, sharedLinker: 1, sameFolder: 0.5, semantic: 3 } as const;
/** Semantic neighbours looked up per note_related call. */
const SEMANTIC_NEIGHBOURS = 20;

function folderOf(path: string): string {
  return path.slice(0, Math.max(0, path.lastIndexOf("/")));
}

/** Scores every note connected to `path`, and its nearest notes in meaning when the vault has vectors (no network: the vectors are stored). */
export function relatedNotes(engine: VaultEngine, path: string): Array<{ path: string } & Relation> {
  const notes = engine.files().filter((file) => file.isNote);
  const total = Math.max(notes.length, 1);
  const resolved = engine.metadata().resolvedLinks();
  const relations = new Map<string, Relation>();
  const relationFor = (other: string): Relation => {
    let relation = relations.get(other);
    if (!relation) {
      relation = { score: 0, shared_tags: [], links_to: false, linked_from: false, shared_targets: 0, shared_linkers: 0, same_folder: false };
      relations.set(other, relation);
    }
    return relation;
  };
  const rarity = (count: number): number => Math.log(total / Math.max(count, 1));

  const ownTags = new Set(engine.summary(path)?.tags ?? []);
  if (ownTags.size > 0) {
    const holders = new Map<string, string[]>();
    for (const note of notes) {
      for (const tag of engine.summary(note.path)?.tags ?? []) {
        if (!ownTags.has(tag)) continue;
        let list = holders.get(tag);
        if (!list) holders.set(tag, (list = []));
        list.push(note.path);
      }
    }
    for (const [tag, list] of holders) {
      const weight = rarity(list.length);
      for (const other of list) {
        if (other === path) continue;
        const relation = relationFor(other);
        relation.shared_tags.push(tag);
        relation.score += weight;
      }
    }
  }

  const targets = Object.keys(resolved[path] ?? {}).filter((target) => target !== path);
  for (const target of targets) {
    const relation = relationFor(target);
    relation.links_to = true;
    relation.score += WEIGHTS.directLink;
    for (const [cociting] of engine.incoming(target)) {
      if (cociting === path || cociting === target) continue;
      const other = relationFor(cociting);
      other.shared_targets += 1;
      other.score += WEIGHTS.sharedTarget * rarity(engine.incoming(target).size);
    }
  }
  for (const [source] of engine.incoming(path)) {
    if (source === path) continue;
    const relation = relationFor(source);
    relation.linked_from = true;
    relation.score += WEIGHTS.directLink;
    const siblings = Object.keys(resolved[source] ?? {});
    for (const sibling of siblings) {
      if (sibling === path || sibling === source) continue;
      const other = relationFor(sibling);
      other.shared_linkers += 1;
      other.score += WEIGHTS.sharedLinker * rarity(siblings.length);
    }
  }
  for (const neighbour of engine.semanticNeighbours(path, SEMANTIC_NEIGHBOURS)) {
    if (neighbour.similarity <= 0) continue;
    const relation = relationFor(neighbour.path);
    relation.similarity = Math.round(neighbour.similarity * 1000) / 1000;
    relation.score += WEIGHTS.semantic * neighbour.similarity;
  }
  const folder = folderOf(path);
  for (const note of notes) {
    if (note.path === path || folderOf(note.path) !== folder) continue;
    const relation = relationFor(note.path);
    relation.same_folder = true;
    relation.score += WEIGHTS.sameFolder;
  }

  return [...relations.entries()]
    .filter(([other, relation]) => relation.score > 0 && engine.file(other)?.isNote === true)
    .map(([other, relation]) => ({ path: other, ...relation, score: Math.round(relation.score * 1000) / 1000 }))
    .sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : 1));
}

export const noteRelated = defineTool({
  name: "note_related",
  title: "Related notes",
  description:
    "Notes related to a given note, best first, with the reasons: shared tags (rare tags weigh more), direct links either way, shared link targets, shared linkers, same folder, and `similarity` (nearest in meaning) when semantic search is on. Use it to find context before writing, or link candidates.",
  group: "find",
  input: object({ vault: vaultField, path: pathField, limit: limitField(10, 100) }),
  annotations: READ_ONLY,
  async handler(ctx, args) {
    const engine = ctx.vaults.get(args.vault);
    const { path } = await engine.resolve(args.path, { note: true });
    requireNote(engine.file(path), path, engine.name);
    const related = relatedNotes(engine, path);
    const items = related.slice(0, args.limit).map((entry) => ({ ...entry, title: engine.summary(entry.path)?.title ?? entry.path }));
    return { vault: engine.name, path, total: related.length, returned: items.length, related: items };
  },
});
