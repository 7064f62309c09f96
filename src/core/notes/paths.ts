// The one gate every outside path passes (SPEC §6). The invariant "no segment is empty or starts with
// a dot" is what keeps .obsidian/, .git/, .trash/ and every other hidden file out of reach, so it is
// enforced here rather than with a deny-list elsewhere.
import { ToolError } from "../errors";

export interface ResolveOptions {
  /** Complete a missing `.md` on the last segment (case-insensitive check). */
  note?: boolean;
  /** The path names a folder: one trailing slash is accepted and dropped. */
  folder?: boolean;
}

const HINT = "use a vault-relative path like `folder/note.md`; call note_list to see paths";
const MAX_ECHO = 200;

function invalidPath(problem: string, input?: string): ToolError {
  const shown = input === undefined ? "" : ` (got \`${input.length > MAX_ECHO ? `${input.slice(0, MAX_ECHO)}…` : input}\`)`;
  return new ToolError("invalid_path", `${problem}${shown}; ${HINT}.`);
}

export function resolveVaultPath(input: string, options: ResolveOptions = {}): string {
  if (input.includes("\0")) throw invalidPath("The path contains a NUL character");
  const trimmed = input.trim().normalize("NFC");
  if (trimmed === "") throw invalidPath("The path is empty");

  let path = trimmed.replace(/\\/g, "/");
  if (path.startsWith("./")) path = path.slice(2);
  if (path.startsWith("/") || /^[A-Za-z]:/.test(path)) {
    throw invalidPath("The path is absolute; paths are relative to the vault root", trimmed);
  }
  path = path.replace(/\/{2,}/g, "/");

  if (path.endsWith("/")) {
    if (!options.folder) throw invalidPath("The path ends with a slash, so it names a folder, not a file", trimmed);
    path = path.slice(0, -1);
  }
  if (path === "") throw invalidPath("The path names no file or folder", trimmed);

  for (const segment of path.split("/")) {
    if (segment === "") throw invalidPath("The path has an empty segment", trimmed);
    if (segment === "." || segment === "..") {
      throw invalidPath("The path contains a `.` or `..` segment; paths cannot step outside or around folders", trimmed);
    }
    if (segment.startsWith(".")) {
      throw invalidPath(
        `The segment \`${segment}\` starts with a dot; hidden files and folders are not reachable`,
        trimmed,
      );
    }
  }

  if (options.note && !path.toLowerCase().endsWith(".md")) path += ".md";
  return path;
}

/** Walkers use this to skip dot-folders and dot-files; "" is the vault root and is visible. */
export function isVisiblePath(path: string): boolean {
  if (path === "") return true;
  for (const segment of path.split("/")) {
    if (segment === "" || segment.startsWith(".")) return false;
  }
  return true;
}

/** Obsidian's getLinkpath: everything from the first `#` is a heading or block subpath. */
export function stripSubpath(linktext: string): string {
  const hash = linktext.indexOf("#");
  return hash < 0 ? linktext : linktext.slice(0, hash);
}

export function basename(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash < 0 ? path : path.slice(slash + 1);
}

/** The parent folder, "" for a file in the vault root. */
export function dirname(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash < 0 ? "" : path.slice(0, slash);
}

/** Lower-case extension without the dot; "" when there is none (a leading dot is not an extension). */
export function extname(path: string): string {
  const name = basename(path);
  const dot = name.lastIndexOf(".");
  return dot <= 0 ? "" : name.slice(dot + 1).toLowerCase();
}

export function joinPath(a: string, b: string): string {
  const head = a.replace(/\/+$/, "");
  const tail = b.replace(/^\/+/, "");
  if (head === "") return tail;
  if (tail === "") return head;
  return `${head}/${tail}`;
}

/** Code-unit order, the same on every machine (localeCompare is not). */
export function comparePaths(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
