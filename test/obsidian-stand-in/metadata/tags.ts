// Tag and alias helpers of obsidian-api.md §5.
import type { CachedMetadata, FrontMatterCache } from "obsidian";

function listOf(frontmatter: FrontMatterCache | null | undefined, key: RegExp): string[] | null {
  if (!frontmatter) return null;
  const entry = Object.entries(frontmatter).find(([name]) => key.test(name));
  if (!entry) return null;
  const raw: unknown = entry[1];
  const values = typeof raw === "string" ? [raw] : Array.isArray(raw) ? raw : [];
  const kept = values.filter((value): value is string => typeof value === "string" && value !== "" && !value.includes(" "));
  return kept.length > 0 ? kept : null;
}

export function parseFrontMatterTags(frontmatter: FrontMatterCache | null): string[] | null {
  return listOf(frontmatter, /^tags$/i)?.map((tag) => (tag.startsWith("#") ? tag : `#${tag}`)) ?? null;
}

export function parseFrontMatterAliases(frontmatter: FrontMatterCache | null): string[] | null {
  return listOf(frontmatter, /^aliases$/i);
}

export function getAllTags(cache: CachedMetadata | null): string[] | null {
  if (!cache) return null;
  return [...(parseFrontMatterTags(cache.frontmatter ?? null) ?? []), ...(cache.tags ?? []).map((tag) => tag.tag)];
}
