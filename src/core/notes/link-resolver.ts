// Obsidian's link resolution (obsidian-api.md §6, checked against the de-minified
// MetadataCache.getLinkpathDest): the headless host must send every link where the editor sends it,
// and the plugin host uses it to list every candidate of an ambiguous link.

import { basename, dirname, extname, stripSubpath } from "./paths";

export type NewLinkFormat = "shortest" | "relative" | "absolute";

interface IndexedFile {
  path: string;
  lowerPath: string;
}

const MD_SUFFIX = ".md";

export { stripSubpath };

/**
 * Joins a `./` or `../` linkpath to the (lowercased) source folder the way Obsidian does: `../`
 * above the vault root stays at the root, and inner `./` segments are not normalised.
 */
function joinRelative(lowerLinkpath: string, lowerFolder: string): string {
  let rest = lowerLinkpath.startsWith("./../") ? lowerLinkpath.slice(2) : lowerLinkpath;
  let folder = lowerFolder;
  if (rest.startsWith("./")) {
    rest = rest.slice(2);
  } else {
    while (rest.startsWith("../")) {
      rest = rest.slice(3);
      folder = dirname(folder);
    }
  }
  return folder === "" ? rest : `${folder}/${rest}`;
}

function byLengthThenPath(a: IndexedFile, b: IndexedFile): number {
  if (a.path.length !== b.path.length) return a.path.length - b.path.length;
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}

/**
 * Among files whose paths are equal ignoring case, the one spelled exactly as asked wins, then the
 * smallest path, so two case variants never resolve by insertion order.
 */
function pickExact(named: readonly IndexedFile[], lowerTarget: string, target: string): string | null {
  let best: string | null = null;
  for (const file of named) {
    if (file.lowerPath !== lowerTarget) continue;
    if (file.path === target) return file.path;
    if (best === null || file.path < best) best = file.path;
  }
  return best;
}

export class LinkResolver {
  private readonly files = new Set<string>();
  /** Lowercased file name (with extension) → the files carrying it; Obsidian's uniqueFileLookup. */
  private readonly byName = new Map<string, IndexedFile[]>();

  constructor(paths: readonly string[] = []) {
    this.setFiles(paths);
  }

  setFiles(paths: readonly string[]): void {
    this.files.clear();
    this.byName.clear();
    for (const path of paths) this.addFile(path);
  }

  addFile(path: string): void {
    if (this.files.has(path)) return;
    this.files.add(path);
    const lowerPath = path.toLowerCase();
    const key = basename(lowerPath);
    const named = this.byName.get(key);
    const entry: IndexedFile = { path, lowerPath };
    if (named) named.push(entry);
    else this.byName.set(key, [entry]);
  }

  removeFile(path: string): void {
    if (!this.files.delete(path)) return;
    const key = basename(path.toLowerCase());
    const named = this.byName.get(key);
    if (!named) return;
    const rest = named.filter((file) => file.path !== path);
    if (rest.length > 0) this.byName.set(key, rest);
    else this.byName.delete(key);
  }

  hasFile(path: string): boolean {
    return this.files.has(path);
  }

  allFiles(): string[] {
    return [...this.files];
  }

  /** Every destination for the link, best first; empty when the link is broken. */
  candidates(linkpath: string, sourcePath: string): string[] {
    const path = stripSubpath(linkpath).normalize("NFC");
    if (path === "") return this.files.has(sourcePath) ? [sourcePath] : [];
    const lower = path.toLowerCase();
    const asWritten = this.rank(path, lower, sourcePath);
    return asWritten.length > 0 ? asWritten : this.rank(path + MD_SUFFIX, lower + MD_SUFFIX, sourcePath);
  }

  resolve(linkpath: string, sourcePath: string): string | null {
    return this.candidates(linkpath, sourcePath)[0] ?? null;
  }

  /** The text Obsidian would write for a link from `sourcePath` to `targetPath` (newLinkFormat). */
  fileToLinktext(
    targetPath: string,
    sourcePath: string,
    format: NewLinkFormat,
    omitMdExtension = true,
  ): string {
    const dropExtension = omitMdExtension && extname(targetPath) === "md";
    const fullLink = dropExtension ? targetPath.slice(0, -MD_SUFFIX.length) : targetPath;
    if (format === "absolute") return fullLink;
    if (format === "relative") return relativeLink(fullLink, sourcePath);
    const name = basename(fullLink);
    const found = this.candidates(name, sourcePath);
    return found.length === 1 && found[0] === targetPath ? name : fullLink;
  }

  private rank(linkpath: string, lowerLinkpath: string, sourcePath: string): string[] {
    let target = lowerLinkpath;
    const named = this.byName.get(basename(target));
    if (!named) return [];
    // Without a slash the one file carrying the name is the answer whichever step finds it.
    const only = named.length === 1 ? named[0] : undefined;
    if (only && !target.includes("/")) return [only.path];
    const lowerFolder = dirname(sourcePath).toLowerCase();

    if (target.startsWith("./") || target.startsWith("../")) {
      target = joinRelative(target, lowerFolder);
      const relative = pickExact(named, target, target);
      if (relative !== null) return [relative];
      // A miss goes on with the joined path (as Obsidian does), so it can still match as a longer
      // path's suffix but never falls back to the bare name.
    }

    const rooted = linkpath.startsWith("/");
    if (target.startsWith("/")) target = target.slice(1);
    const exact = pickExact(named, target, rooted ? linkpath.slice(1) : linkpath);
    if (exact !== null) return [exact];
    if (rooted) return [];

    const folderPrefix = lowerFolder === "" ? "" : `${lowerFolder}/`;
    const sameFolder: IndexedFile[] = [];
    const elsewhere: IndexedFile[] = [];
    for (const file of named) {
      if (!file.lowerPath.endsWith(target)) continue;
      if (file.lowerPath.startsWith(folderPrefix)) sameFolder.push(file);
      else elsewhere.push(file);
    }
    sameFolder.sort(byLengthThenPath);
    elsewhere.sort(byLengthThenPath);
    return [...sameFolder, ...elsewhere].map((file) => file.path);
  }
}

/** Climbs from the source folder until it is a prefix of the target, as Obsidian's "relative" does. */
function relativeLink(fullLink: string, sourcePath: string): string {
  let ups = "";
  let folder = dirname(sourcePath);
  while (folder !== "" && !fullLink.startsWith(`${folder}/`)) {
    ups = `../${ups}`;
    folder = dirname(folder);
  }
  return folder === "" ? ups + fullLink : ups + fullLink.slice(folder.length + 1);
}
