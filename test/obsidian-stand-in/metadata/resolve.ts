// Link resolution (obsidian-api.md §6), written from the document, independent of src/.

function lower(s: string): string {
  return s.toLowerCase();
}

function folderOf(p: string): string {
  const slash = p.lastIndexOf("/");
  return slash < 0 ? "" : p.slice(0, slash);
}

function rank(linkpath: string, sourcePath: string, filePaths: readonly string[]): string[] {
  const lastSegment = lower(linkpath.slice(linkpath.lastIndexOf("/") + 1));
  const candidates = filePaths.filter((p) => lower(p.slice(p.lastIndexOf("/") + 1)) === lastSegment);
  if (candidates.length === 0) return [];
  let wanted = lower(linkpath);
  if (wanted.startsWith("./") || wanted.startsWith("../")) {
    let folder = lower(folderOf(sourcePath));
    let rest = wanted;
    if (rest.startsWith("./")) rest = rest.slice(2);
    while (rest.startsWith("../")) {
      rest = rest.slice(3);
      folder = folderOf(folder);
    }
    const joined = folder === "" ? rest : `${folder}/${rest}`;
    const hit = candidates.find((p) => lower(p) === joined);
    return hit ? [hit] : [];
  }
  const absolute = wanted.startsWith("/");
  wanted = wanted.replace(/^\/+/, "");
  const exact = candidates.find((p) => lower(p) === wanted);
  if (exact) return [exact];
  if (absolute) return [];
  const suffix = candidates.filter((p) => lower(p).endsWith(wanted));
  const sourceFolder = lower(folderOf(sourcePath));
  const inFolder = (p: string): boolean => sourceFolder === "" ? false : lower(p).startsWith(`${sourceFolder}/`);
  const byLength = (a: string, b: string): number => a.length - b.length || (a < b ? -1 : 1);
  return [...suffix.filter(inFolder).sort(byLength), ...suffix.filter((p) => !inFolder(p)).sort(byLength)];
}

export function getLinkpathDest(linkpath: string, sourcePath: string, filePaths: readonly string[]): string[] {
  if (linkpath === "") return filePaths.includes(sourcePath) ? [sourcePath] : [];
  const bare = rank(linkpath, sourcePath, filePaths);
  return bare.length > 0 ? bare : rank(`${linkpath}.md`, sourcePath, filePaths);
}

export function fileToLinktext(targetPath: string, sourcePath: string, omitMdExtension: boolean, format: "shortest" | "relative" | "absolute", filePaths: readonly string[]): string {
  const strip = (p: string): string => (omitMdExtension && p.endsWith(".md") ? p.slice(0, -3) : p);
  if (format === "absolute") return strip(targetPath);
  if (format === "relative") {
    const from = folderOf(sourcePath).split("/").filter(Boolean);
    const to = targetPath.split("/");
    let common = 0;
    while (common < from.length && common < to.length - 1 && from[common] === to[common]) common++;
    return strip([...from.slice(common).map(() => ".."), ...to.slice(common)].join("/"));
  }
  const name = targetPath.slice(targetPath.lastIndexOf("/") + 1);
  const shortest = strip(name);
  const resolved = getLinkpathDest(shortest, sourcePath, filePaths);
  return resolved.length === 1 && resolved[0] === targetPath ? shortest : strip(targetPath);
}
