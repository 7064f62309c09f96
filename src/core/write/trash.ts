// Trash copies (SPEC §8): `<vault root>/.trash/secondbrain/<UTC yyyymmdd-hhmmss-mmm>-<path, / as __>`.
// The dot-folder keeps them out of every tool; the timestamp prefix makes them sort by time.

export const TRASH_FOLDER = ".trash/secondbrain";
export const DEFAULT_TRASH_RETENTION_DAYS = 30;

function pad(value: number, width = 2): string {
  return String(value).padStart(width, "0");
}

export function trashStamp(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}-${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}${pad(d.getUTCSeconds())}-${pad(d.getUTCMilliseconds(), 3)}`;
}

/** `attempt` > 0 disambiguates two copies of one file within the same millisecond. */
export function trashPath(path: string, ms: number, attempt = 0): string {
  const suffix = attempt > 0 ? `~${attempt}` : "";
  return `${TRASH_FOLDER}/${trashStamp(ms)}${suffix}-${path.split("/").join("__")}`;
}

export interface TrashEntry {
  trashPath: string;
  originalPath: string;
  /** Milliseconds since the epoch, from the name. */
  when: number;
}

const NAME = /^(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})-(\d{3})(?:~\d+)?-(.+)$/;

export function parseTrashName(name: string): TrashEntry | null {
  const match = NAME.exec(name);
  if (!match) return null;
  const [, y, mo, d, h, mi, s, ms, rest] = match;
  const when = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), Number(ms));
  return { trashPath: `${TRASH_FOLDER}/${name}`, originalPath: rest!.split("__").join("/"), when };
}
