// The baseline: SQLite FTS5 through better-sqlite3 with the reference server's schema and queries.
// Tags live in a side table and filter the FTS5 matches (a post-filter: the MATCH is unchanged).
import { readFileSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { performance } from "node:perf_hooks";
import { readPlainNote } from "./markdown";

export const FTS5_SCHEMA = `CREATE VIRTUAL TABLE notes_fts USING fts5(path UNINDEXED, title, body, tokenize="unicode61 remove_diacritics 2")`;
const TAGS_SCHEMA = `CREATE TABLE note_tags (note INTEGER NOT NULL, tag TEXT NOT NULL); CREATE INDEX note_tags_tag ON note_tags(tag)`;

/**
 * `reference`: as the reference server writes it; its weights go to path (UNINDEXED) and title, so
 * title and body both weigh 1. `intended`: title 8, body 1, as it was meant.
 */
export const FTS5_RANKINGS = {
  reference: "bm25(notes_fts, 8.0, 1.0)",
  intended: "bm25(notes_fts, 0.0, 8.0, 1.0)",
} as const;
export type Fts5Ranking = keyof typeof FTS5_RANKINGS;

const SNIPPET = `snippet(notes_fts, 2, '<<', '>>', '…', 12)`;
// A note carries the tag, or a nested tag under it (`topic` matches `topic/x`), like note_search.
const TAG_CONDITION = `notes_fts.rowid IN (SELECT note FROM note_tags WHERE tag = ? OR (tag >= ? AND tag < ?))`;

export interface Fts5BuildTiming {
  notes: number;
  /** Reading, parsing and inserting every note inside one transaction. */
  insert_ms: number;
  commit_ms: number;
}

/** Builds a fresh database file the way the reference server does: one transaction, synchronous. */
export function buildFts5(root: string, notes: readonly string[], dbFile: string): Fts5BuildTiming {
  const db = new Database(dbFile);
  try {
    db.exec(FTS5_SCHEMA);
    db.exec(TAGS_SCHEMA);
    const insertNote = db.prepare("INSERT INTO notes_fts (path, title, body) VALUES (?, ?, ?)");
    const insertTag = db.prepare("INSERT INTO note_tags (note, tag) VALUES (?, ?)");
    const started = performance.now();
    db.exec("BEGIN");
    for (const relative of notes) {
      const note = readPlainNote(relative, readFileSync(path.join(root, relative), "utf8"));
      const row = insertNote.run(relative, note.title, note.body);
      for (const tag of note.tags) insertTag.run(row.lastInsertRowid, tag);
    }
    const inserted = performance.now();
    db.exec("COMMIT");
    return { notes: notes.length, insert_ms: inserted - started, commit_ms: performance.now() - inserted };
  } finally {
    db.close();
  }
}

export interface Fts5Hit {
  path: string;
  title: string;
  snippet: string;
}

interface RankedStatements {
  plain: Database.Statement<[string, number], Fts5Hit>;
  tagged: Database.Statement<[string, string, string, string, number], Fts5Hit>;
}

export class Fts5Searcher {
  private readonly db: Database.Database;
  private readonly ranked: Record<Fts5Ranking, RankedStatements>;
  private readonly countPlain: Database.Statement<[string], { n: number }>;
  private readonly countTagged: Database.Statement<[string, string, string, string], { n: number }>;

  constructor(dbFile: string) {
    this.db = new Database(dbFile, { readonly: true, fileMustExist: true });
    const statements = (ranking: string): RankedStatements => ({
      plain: this.db.prepare(
        `SELECT path, title, ${SNIPPET} AS snippet FROM notes_fts WHERE notes_fts MATCH ? ORDER BY ${ranking} LIMIT ?`,
      ),
      tagged: this.db.prepare(
        `SELECT path, title, ${SNIPPET} AS snippet FROM notes_fts WHERE notes_fts MATCH ? AND ${TAG_CONDITION} ORDER BY ${ranking} LIMIT ?`,
      ),
    });
    this.ranked = { reference: statements(FTS5_RANKINGS.reference), intended: statements(FTS5_RANKINGS.intended) };
    this.countPlain = this.db.prepare("SELECT count(*) AS n FROM notes_fts WHERE notes_fts MATCH ?");
    this.countTagged = this.db.prepare(`SELECT count(*) AS n FROM notes_fts WHERE notes_fts MATCH ? AND ${TAG_CONDITION}`);
  }

  search(match: string, tags: readonly string[] | undefined, ranking: Fts5Ranking, limit: number): Fts5Hit[] {
    const tag = tags?.[0];
    const statements = this.ranked[ranking];
    if (tag === undefined) return statements.plain.all(match, limit);
    return statements.tagged.all(match, tag, `${tag}/`, `${tag}0`, limit);
  }

  /** Every match (not timed): how many notes the query finds, to set beside note_search's total. */
  count(match: string, tags: readonly string[] | undefined): number {
    const tag = tags?.[0];
    const row = tag === undefined ? this.countPlain.get(match) : this.countTagged.get(match, tag, `${tag}/`, `${tag}0`);
    return row?.n ?? 0;
  }

  close(): void {
    this.db.close();
  }
}

export function sqliteVersion(): string {
  const db = new Database(":memory:");
  try {
    const row = db.prepare("SELECT sqlite_version() AS version").get() as { version: string } | undefined;
    return row?.version ?? "unknown";
  } finally {
    db.close();
  }
}
