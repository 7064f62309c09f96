// Trash copies (SPEC §8): `<vault root>/.trash/secondbrain/<UTC yyyymmdd-hhmmss-mmm>-<path, / as __>`.
// The dot-folder keeps them out of every tool; the timestamp prefix makes them sort by time.
import { MAX_NAME_BYTES, utf8ByteLength } from "../notes/paths";

export const TRASH_FOLDER = ".trash/secondbrain";
export const DEFAULT_TRASH_RETENTION_DAYS = 30;

function pad(value: number, width = 2): string {
  return String(value).padStart(width, "0");
}

export function trashStamp(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}-${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}${pad(d.getUTCSeconds())}-${pad(d.getUTCMilliseconds(), 3)}`;
}

/** 64-bit FNV-1a of the path, in hex: names a long path's trash copies (not a security measure). */
export function trashPathHash(path: string): string {
  let hash = 0xcbf29ce484222325n;
  for (let index = 0; index < path.length; index++) {
    hash ^= BigInt(path.charCodeAt(index));
    hash = (hash * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return hash.toString(16).padStart(16, "0");
}

/** The end of `text` that fits in `budget` UTF-8 bytes, cut between characters. */
function tailWithin(text: string, budget: number): string {
  const characters = [...text];
  let bytes = 0;
  let start = characters.length;
  while (start > 0) {
    const size = utf8ByteLength(characters[start - 1]!);
    if (bytes + size > budget) break;
    bytes += size;
    start--;
  }
  return characters.slice(start).join("");
}

/**
 * `attempt` > 0 disambiguates two copies of one file within the same millisecond. A name that would
 * pass the 255-byte limit of file names (a long name, a deep folder) keeps the path's hash and as much
 * of its end as fits, after `=` instead of `-`: `20260105-093007-042=<hash>-…__Long name.md`.
 */
export function trashPath(path: string, ms: number, attempt = 0): string {
  const head = `${trashStamp(ms)}${attempt > 0 ? `~${attempt}` : ""}`;
  const flat = path.split("/").join("__");
  const name = `${head}-${flat}`;
  if (utf8ByteLength(name) <= MAX_NAME_BYTES) return `${TRASH_FOLDER}/${name}`;
  const prefix = `${head}=${trashPathHash(path)}-`;
  return `${TRASH_FOLDER}/${prefix}${tailWithin(flat, MAX_NAME_BYTES - prefix.length)}`;
}

export interface TrashEntry {
  trashPath: string;
  /** Null for a copy of a path too long to spell out in the name; `pathHash` tells whose it is. */
  originalPath: string | null;
  pathHash?: string;
  /** Milliseconds since the epoch, from the name. */
  when: number;
}

const NAME = /^(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})-(\d{3})(?:~\d+)?(?:-(.+)|=([0-9a-f]{16})-.*)$/s;

export function parseTrashName(name: string): TrashEntry | null {
  const match = NAME.exec(name);
  if (!match) return null;
  const [, y, mo, d, h, mi, s, ms, rest, hash] = match;
  const when = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), Number(ms));
  if (hash !== undefined) return { trashPath: `${TRASH_FOLDER}/${name}`, originalPath: null, pathHash: hash, when };
  return { trashPath: `${TRASH_FOLDER}/${name}`, originalPath: rest!.split("__").join("/"), when };
}

export function isTrashCopyOf(entry: TrashEntry, path: string): boolean {
  return entry.originalPath !== null ? entry.originalPath === path : entry.pathHash === trashPathHash(path);
}
