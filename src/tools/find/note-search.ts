// note_search: ranked full-text search with filters; no query lists the most recently modified notes.
import { parseQuery } from "../../core/search/query";
import { makeSnippet } from "../../core/search/snippet";
import type { FileRecord, VaultEngine } from "../../core/vault/types";
import type { ScoreExplanation } from "../../core/search/ranking";
import type { FusionResult } from "../../core/search/fusion";
import { SEARCH_MODES, type MatchedChunk, type SearchMode } from "../../core/search/semantic/hybrid";
import { isHidden } from "../../core/search/hybrid";
import {
  allTagsMatcher,
  fileFilter,
  globField,
  iso,
  limitField,
  modifiedAfterField,
  offsetField,
  page,
  prefixField,
  tagsField,
  vaultField,
} from "../common";
import { boolean, object, optional, record, string } from "../schema";
import { READ_ONLY, defineTool } from "../types";
import { conditionsFrom, matches } from "./properties";

const ZERO_HITS_HINT =
  "No note matched. Try fewer or more general words, drop filters (prefix, tags, properties), or use vault_grep for exact text or a regular expression.";

interface HitExplanation extends Partial<ScoreExplanation> {
  score: number;
  /** Every component of the score with its weight (core/search/fusion.ts); absent in semantic mode, where similarity is the score. */
  fusion?: FusionResult;
  /** The note's chunk most similar to the question (semantic and hybrid modes). */
  matched_chunk?: MatchedChunk;
}

function hitEntry(engine: VaultEngine, record: FileRecord, score: number | null, snippet: string | undefined, explanation?: HitExplanation) {
  const summary = engine.summary(record.path);
  return {
    path: record.path,
    title: summary?.title ?? record.path,
    score,
    snippet,
    tags: summary?.tags ?? [],
    modified: iso(record.mtime),
    bytes: record.size,
    ...(explanation ? { explanation } : {}),
  };
}

/** The first `wanted` notes of `recent` that are not hidden, and how many were passed over. */
function visibleRecent(engine: VaultEngine, recent: readonly FileRecord[], wanted: number): { notes: FileRecord[]; hidden: number; walked: number } {
  const notes: FileRecord[] = [];
  let hidden = 0;
  let walked = 0;
  for (const file of recent) {
    if (notes.length >= wanted) break;
    walked++;
    if (isHidden(engine.cache(file.path)?.frontmatter)) hidden++;
    else notes.push(file);
  }
  return { notes, hidden, walked };
}

export const noteSearch = defineTool({
  name: "note_search",
  title: "Search notes",
  description:
    'Full-text search over titles, aliases, headings, tags and bodies, best match first, with a snippet where <<matches>> are marked. Plain words need not all match (notes matching more rank higher); "exact phrase", +required, -excluded, OR, prefix* work. Filters: prefix (folder), glob, tags (all must match), modified_after, properties (frontmatter equality). Notes marked sensitive, draft, private_journal or needs_review are left out unless include_sensitive. With a types note (_config/types.md) hits are re-ranked by links, age and note type too. Without a query: the most recently modified notes.',
  group: "find",
  input: object({
    vault: vaultField,
    query: optional(string({ description: 'Words to look for, e.g. `token bucket refill` or `"version history" -sync`.', maxLength: 1000 })),
    prefix: prefixField,
    glob: globField,
    tags: tagsField,
    modified_after: modifiedAfterField,
    properties: optional(record({ description: 'Frontmatter properties that must equal the given values, e.g. {"status": "active"}.' })),
    limit: limitField(10, 50),
    offset: offsetField,
    explain: optional(
      boolean({
        description:
          "Give each hit the parts of its score: which words matched in which fields, via which expansion (itself, stem, prefix, near spelling), with what weight; under `fusion` every component of the hybrid score (keyword, similarity, graph with the edges walked, time with age and λ, type) with the weights used; and in semantic and hybrid modes the chunk (heading) that matched.",
      }),
    ),
    include_sensitive: optional(
      boolean({ description: "Also list notes marked `visibility: sensitive`, `draft: true`, `private_journal: true` or `needs_review: true`, which are left out unless asked for." }),
    ),
    mode: optional(
      string({
        description:
          "lexical (words), semantic (meaning: similarity of the note's embedded chunks to the query) or hybrid (both, fused). Default: hybrid once an embedding provider is enabled and the vault is embedded, else lexical; when the provider fails the hits are lexical and `hint` says why.",
        enum: SEARCH_MODES,
      }),
    ),
  }),
  annotations: READ_ONLY,
  async handler(ctx, args) {
    const engine = ctx.vaults.get(args.vault);
    const keepFile = fileFilter(args, ctx.now());
    const conditions = args.properties ? conditionsFrom(args.properties) : [];
    const wantedTags = args.tags ?? [];
    const hasTags = allTagsMatcher(wantedTags);
    const filtered = args.prefix !== undefined || args.glob !== undefined || args.modified_after !== undefined || wantedTags.length > 0 || conditions.length > 0;
    const accept = (path: string): boolean => {
      const file = engine.file(path);
      if (!file || !keepFile(file)) return false;
      if (wantedTags.length > 0 && !hasTags(engine.noteFacts(path)?.tags ?? [])) return false;
      if (conditions.length > 0) {
        const frontmatter = engine.cache(path)?.frontmatter;
        if (!conditions.every((condition) => matches(frontmatter, condition))) return false;
      }
      return true;
    };
    const query = args.query ?? "";
    let total: number;
    let totalEstimated = false;
    let hits: Array<ReturnType<typeof hitEntry>>;
    let mode: SearchMode = "lexical";
    let hint: string | undefined;
    if (query === "") {
      const recent = engine
        .files()
        .filter((file) => file.isNote && accept(file.path))
        .sort((a, b) => b.mtime - a.mtime || (a.path < b.path ? -1 : 1));
      if (args.include_sensitive === true) {
        const paged = page(recent, args.offset, args.limit);
        total = paged.total;
        hits = paged.items.map((file) => hitEntry(engine, file, null, undefined));
      } else {
        // Frontmatter is looked at only as far as the page reaches: on a large vault it is parsed on demand.
        const shown = visibleRecent(engine, recent, args.offset + args.limit);
        total = recent.length - shown.hidden;
        totalEstimated = shown.hidden > 0 && shown.walked < recent.length;
        hits = shown.notes.slice(args.offset).map((file) => hitEntry(engine, file, null, undefined));
      }
    } else {
      const parsed = parseQuery(query);
      // Unfiltered, every indexed note is a file of the vault: no check per match (thousands for a common word).
      const outcome = await engine.search(query, {
        limit: args.limit,
        offset: args.offset,
        ...(filtered ? { filter: accept } : {}),
        ...(args.explain === true ? { explain: true } : {}),
        ...(args.mode !== undefined ? { mode: args.mode as SearchMode } : {}),
        ...(args.include_sensitive === true ? { includeSensitive: true } : {}),
      });
      mode = outcome.mode;
      hint = outcome.hint;
      total = outcome.total;
      totalEstimated = outcome.total_estimated === true;
      const bodies = await Promise.all(outcome.hits.map((hit) => engine.bodyText(hit.path)));
      hits = [];
      outcome.hits.forEach((hit, position) => {
        const file = engine.file(hit.path);
        if (!file) return;
        const body = bodies[position] ?? null;
        const explanation: HitExplanation | undefined =
          hit.fusion || hit.chunk ? { ...(hit.explanation ?? {}), score: hit.score, ...(hit.fusion ? { fusion: hit.fusion } : {}), ...(hit.chunk ? { matched_chunk: hit.chunk } : {}) } : undefined;
        hits.push(hitEntry(engine, file, hit.score, body === null ? undefined : makeSnippet(body, parsed, { matchedTerms: hit.terms }), explanation));
      });
    }
    const result: Record<string, unknown> = {
      vault: engine.name,
      query,
      total,
      ...(totalEstimated ? { total_estimated: true } : {}),
      returned: hits.length,
      offset: args.offset,
      index: engine.indexState(),
      mode,
      hits,
    };
    if (hint !== undefined) result.hint = hint;
    if (total === 0) result.hint = hint === undefined ? ZERO_HITS_HINT : `${hint} ${ZERO_HITS_HINT}`;
    return result;
  },
});
