// Each note's facts as the engine keeps them for a whole vault. Kept as parsed, a 20,000-note vault's
// facts were 18 MB of heap, more than its search index: an object, a text and a heading string for
// each of fifty thousand tasks, a title string equal to the file's name, and each note's own copy of
// tags that a thousand notes share. Here a note's tasks are one string (decoded when read: only
// task and outline tools read them), a title equal to the file's name is not stored, and tag and
// alias strings are shared. The same packed form travels in snapshots and from build workers.
import type { NoteFacts, TaskItem } from "../notes/structure";
import { baseTitle } from "./note-document";

/** Facts as plain data, as snapshots and build workers hand them over. */
export interface FactsRecord {
  /** Null when the title is the file's name. */
  title: string | null;
  tags: string[];
  aliases: string[];
  /** The tasks as packTasks packs them; "" for none. */
  tasks: string;
  words: number;
}

const NONE: string[] = [];
Object.freeze(NONE);

/**
 * JSON of `[headings, line, status, heading number, text, …]`: four values a task, each heading once
 * (−1 for a task above every heading).
 */
export function packTasks(tasks: readonly TaskItem[]): string {
  if (tasks.length === 0) return "";
  const headings: string[] = [];
  const numbers = new Map<string, number>();
  const packed: unknown[] = [headings];
  for (const task of tasks) {
    let heading = -1;
    if (task.heading !== null) {
      heading = numbers.get(task.heading) ?? -1;
      if (heading < 0) {
        heading = headings.length;
        numbers.set(task.heading, heading);
        headings.push(task.heading);
      }
    }
    packed.push(task.line, task.status, heading, task.text);
  }
  // V8 keeps a string holding any character past U+00FF at two bytes a character: escaped, the tasks
  // of such a note (one emoji date is enough) take half the memory, and JSON.parse reads them back.
  return JSON.stringify(packed).replace(WIDE_CHARACTER, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

const WIDE_CHARACTER = /[\u0100-\uffff]/g;

/** Throws when `packed` is not what packTasks makes. */
export function unpackTasks(packed: string): TaskItem[] {
  if (packed === "") return [];
  const fail = (): never => {
    throw new Error("A note's stored tasks are malformed; rebuild the index (the reindex command).");
  };
  let value: unknown;
  try {
    value = JSON.parse(packed);
  } catch {
    return fail();
  }
  if (!Array.isArray(value) || value.length % 4 !== 1) fail();
  const [headings, ...rest] = value as unknown[];
  if (!Array.isArray(headings) || !headings.every((heading) => typeof heading === "string")) fail();
  const names = headings as string[];
  const tasks: TaskItem[] = [];
  for (let at = 0; at < rest.length; at += 4) {
    const [line, status, heading, text] = rest.slice(at, at + 4);
    if (typeof line !== "number" || typeof status !== "string" || typeof heading !== "number" || typeof text !== "string") fail();
    if (heading !== -1 && names[heading as number] === undefined) fail();
    tasks.push({ line: line as number, text: text as string, done: status !== " ", status: status as string, heading: heading === -1 ? null : names[heading as number]! });
  }
  return tasks;
}

/** A note's facts in the packed form of its path. */
export function factsRecord(path: string, facts: NoteFacts): FactsRecord {
  return {
    title: facts.title === baseTitle(path) ? null : facts.title,
    tags: facts.tags,
    aliases: facts.aliases,
    tasks: packTasks(facts.tasks),
    words: facts.words,
  };
}

/** One note's stored facts, read as NoteFacts. Its arrays are shared: never change them. */
export class StoredFacts implements NoteFacts {
  private readonly path: string;
  private readonly ownTitle: string | null;
  readonly tags: string[];
  readonly aliases: string[];
  /** As packTasks packs them. */
  readonly packedTasks: string;
  readonly words: number;

  constructor(path: string, record: FactsRecord, tags: string[], aliases: string[]) {
    this.path = path;
    this.ownTitle = record.title;
    this.tags = tags;
    this.aliases = aliases;
    this.packedTasks = record.tasks;
    this.words = record.words;
  }

  get title(): string {
    return this.ownTitle ?? baseTitle(this.path);
  }

  /** Decoded on each read. */
  get tasks(): TaskItem[] {
    return unpackTasks(this.packedTasks);
  }

  record(): FactsRecord {
    return { title: this.ownTitle, tags: this.tags, aliases: this.aliases, tasks: this.packedTasks, words: this.words };
  }
}

/** The facts of a vault's notes and canvases by path. */
export class FactsTable {
  private readonly byPath = new Map<string, StoredFacts>();
  /** One copy of each tag and alias. */
  private readonly strings = new Map<string, string>();

  get size(): number {
    return this.byPath.size;
  }

  get(path: string): StoredFacts | undefined {
    return this.byPath.get(path);
  }

  /** `path` keeps the string given (the engine's own copy of it). */
  set(path: string, record: FactsRecord): void {
    this.byPath.set(path, new StoredFacts(path, record, this.shared(record.tags), this.shared(record.aliases)));
  }

  setFacts(path: string, facts: NoteFacts): void {
    this.set(path, factsRecord(path, facts));
  }

  delete(path: string): void {
    this.byPath.delete(path);
  }

  clear(): void {
    this.byPath.clear();
    this.strings.clear();
  }

  private shared(values: readonly string[]): string[] {
    if (values.length === 0) return NONE;
    return values.map((value) => {
      const known = this.strings.get(value);
      if (known !== undefined) return known;
      this.strings.set(value, value);
      return value;
    });
  }
}
