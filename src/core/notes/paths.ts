// The one gate every outside path passes (SPEC §6). The invariant "no segment is empty or starts with
// a dot" is what keeps .obsidian/, .git/, .trash/ and every other hidden file out of reach, so it is
// enforced here rather than with a deny-list elsewhere.
import { ToolError } from "../errors";

export interface ResolveOptions {
  /**
   * true: a note, so a missing `.md` on the last segment is completed (case-insensitive check).
   * "only": a note that is to be written, so a path naming another kind of file (`diagram.png`) is
   * refused rather than turned into `diagram.png.md`. "or-attachment": a note, unless the extension
   * is one attachment_put stores (the history tools take either).
   */
  note?: boolean | "only" | "or-attachment";
  /** The path names a folder: one trailing slash is accepted and dropped. */
  folder?: boolean;
}

/** What attachment_put stores: nothing executable (SPEC §5). */
export const ATTACHMENT_EXTENSIONS: readonly string[] = [
  "png", "jpg", "jpeg", "gif", "webp", "svg", "pdf", "txt", "csv", "json", "yaml", "yml", "mp3", "m4a", "wav", "canvas",
];

// Extensions that name a file, not part of a note's name ("Meeting 2026.01.05" stays a note). Without
// this, `diagram.png` would silently become the note `diagram.png.md`.
const NON_NOTE_EXTENSIONS = new Set([
  "png", "jpg", "jpeg", "gif", "webp", "svg", "bmp", "tif", "tiff", "heic", "avif", "ico",
  "pdf", "txt", "csv", "tsv", "json", "yaml", "yml", "xml", "html", "htm", "css", "js", "ts",
  "mp3", "m4a", "wav", "ogg", "flac", "mp4", "mov", "webm", "mkv",
  "canvas", "base", "zip", "docx", "xlsx", "pptx", "doc", "xls", "ppt", "epub",
]);

const HINT = "use a vault-relative path like `folder/note.md`; call note_list to see paths";
const MAX_ECHO = 200;
/** What ext4, APFS, NTFS and most other file systems allow for one file or folder name. */
export const MAX_NAME_BYTES = 255;

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

  const extension = extname(path);
  if (options.note === "only" && extension !== "md" && NON_NOTE_EXTENSIONS.has(extension)) {
    throw new ToolError(
      "invalid_path",
      `"${trimmed}" is not a note (notes end in .md). Write attachments with attachment_put; for a note, use a path ending in .md.`,
      { details: { path: trimmed } },
    );
  }
  const note = options.note === "or-attachment" ? !ATTACHMENT_EXTENSIONS.includes(extension) : options.note !== undefined && options.note !== false;
  if (note && extension !== "md") path += ".md";
  for (const segment of path.split("/")) {
    const bytes = utf8ByteLength(segment);
    if (bytes > MAX_NAME_BYTES) {
      throw invalidPath(`Name too long: \`${shorten(segment)}\` has ${bytes} bytes in UTF-8, and a file or folder name may have at most ${MAX_NAME_BYTES}; shorten it`);
    }
  }
  return path;
}

export function utf8ByteLength(text: string): number {
  let bytes = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && index + 1 < text.length && (text.charCodeAt(index + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      index++;
    } else bytes += 3;
  }
  return bytes;
}

function shorten(name: string): string {
  return name.length > 40 ? `${name.slice(0, 40)}…` : name;
}

// Names Windows cannot hold, so a vault synced to a Windows machine would lose or refuse them. Only new
// names are held to this: files that already have such names (made on Linux or macOS) stay readable.
const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[1-9¹²³]|lpt[1-9¹²³])(\.|$)/i;
// eslint-disable-next-line no-control-regex -- control characters are exactly what is looked for
const WINDOWS_FORBIDDEN = /[<>:"|?*\u0000-\u001f]/;

/** Why Windows cannot hold this file or folder name, or null when it can. */
export function windowsNameProblem(name: string): string | null {
  if (WINDOWS_RESERVED.test(name)) {
    return `\`${shorten(name)}\` is a name Windows reserves (CON, PRN, AUX, NUL, COM1–COM9 and LPT1–LPT9, in any letter case and with any extension)`;
  }
  const forbidden = WINDOWS_FORBIDDEN.exec(name)?.[0];
  if (forbidden !== undefined) {
    const shown = forbidden.charCodeAt(0) < 0x20 ? "a control character" : `\`${forbidden}\``;
    return `\`${shorten(name)}\` contains ${shown}, which Windows does not allow in names (none of < > : " | ? * or control characters)`;
  }
  if (/[. ]$/.test(name)) {
    return `\`${shorten(name)}\` ends with ${name.endsWith(".") ? "a dot" : "a space"}, which Windows drops from names`;
  }
  return null;
}

/** The name with what Windows cannot hold replaced, as a suggestion in errors. */
export function windowsSafeName(name: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is looked for
  let safe = name.replace(/[<>:"|?*\u0000-\u001f]/g, "-").replace(/[. ]+$/, "");
  if (WINDOWS_RESERVED.test(safe)) safe = safe.replace(/^([^.]*)/, "$1-1");
  return safe === "" ? "untitled" : safe;
}

/**
 * Refuses a path that would create a file or folder name a vault synced to Windows cannot hold (SPEC §6).
 * Folders that exist already are left alone (they hold files that are there anyway), so only the file
 * name and the folders the write would create are checked; `folderExists` is asked only about a folder
 * whose name has a problem.
 */
export function checkNewPath(path: string, folderExists: (folder: string) => boolean): void {
  const segments = path.split("/");
  for (let index = segments.length - 1; index >= 0; index--) {
    const segment = segments[index]!;
    const problem = windowsNameProblem(segment);
    if (problem === null) continue;
    const isFile = index === segments.length - 1;
    if (!isFile && folderExists(segments.slice(0, index + 1).join("/"))) return;
    const suggestion = [...segments.slice(0, index), windowsSafeName(segment), ...segments.slice(index + 1)].join("/");
    throw new ToolError(
      "invalid_path",
      `The new ${isFile ? "file" : "folder"} name ${problem}, so a vault synced to Windows could not hold "${path.length > MAX_ECHO ? `${path.slice(0, MAX_ECHO)}…` : path}". Choose another name, e.g. "${suggestion}".`,
      { details: { path } },
    );
  }
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
