// The vocabulary of note structure is Obsidian's CachedMetadata (obsidian-api.md §5), so that the
// plugin host can hand over metadataCache results unchanged and the Node host must produce the same.

export interface Loc {
  line: number;
  col: number;
  offset: number;
}

export interface Pos {
  start: Loc;
  end: Loc;
}

export interface Reference {
  link: string;
  original: string;
  displayText?: string;
}

export interface ReferenceCache extends Reference {
  position: Pos;
}

export type LinkCache = ReferenceCache;
export type EmbedCache = ReferenceCache;

export interface FrontmatterLinkCache extends Reference {
  key: string;
}

export interface TagCache {
  tag: string;
  position: Pos;
}

export interface HeadingCache {
  heading: string;
  level: number;
  position: Pos;
}

export interface ListItemCache {
  id?: string;
  task?: string;
  parent: number;
  position: Pos;
}

export interface SectionCache {
  id?: string;
  type: string;
  position: Pos;
}

export interface BlockCache {
  id: string;
  position: Pos;
}

export interface FrontMatterCache {
  [key: string]: unknown;
}

export interface CachedMetadata {
  links?: LinkCache[];
  embeds?: EmbedCache[];
  tags?: TagCache[];
  headings?: HeadingCache[];
  sections?: SectionCache[];
  listItems?: ListItemCache[];
  frontmatter?: FrontMatterCache;
  frontmatterPosition?: Pos;
  frontmatterLinks?: FrontmatterLinkCache[];
  blocks?: Record<string, BlockCache>;
}
