// Notes as MCP resources: `secondbrain://<vault>/<path>` per note, and
// `secondbrain://<vault>/INSTRUCTIONS` for a vault that has an INSTRUCTIONS.md.
import type {
  ListResourcesResult,
  ListResourceTemplatesResult,
  ReadResourceResult,
  Resource,
} from "@modelcontextprotocol/server";
import { ToolError } from "../core/errors";
import type { FileRecord, VaultEngine } from "../core/vault/types";
import type { VaultDirectory } from "../tools/types";

export const URI_SCHEME = "secondbrain://";
export const NOTE_URI_TEMPLATE = `${URI_SCHEME}{vault}/{+path}`;
export const MARKDOWN = "text/markdown";
export const INSTRUCTIONS_NAME = "INSTRUCTIONS";
// Listing every note of a large vault helps no agent; note_list and note_search page properly.
export const MAX_LISTED_RESOURCES = 1000;

const INSTRUCTIONS_FILE = `${INSTRUCTIONS_NAME}.md`;

export interface ResourceAddress {
  vault: string;
  path: string;
}

function encodePath(path: string): string {
  return path.split("/").map(encodeURIComponent).join("/");
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export function noteUri(vault: string, path: string): string {
  return `${URI_SCHEME}${vault}/${encodePath(path)}`;
}

export function instructionsUri(vault: string): string {
  return `${URI_SCHEME}${vault}/${INSTRUCTIONS_NAME}`;
}

export function parseResourceUri(uri: string): ResourceAddress | null {
  if (!uri.startsWith(URI_SCHEME)) return null;
  const rest = uri.slice(URI_SCHEME.length);
  const slash = rest.indexOf("/");
  if (slash <= 0 || slash === rest.length - 1) return null;
  return { vault: rest.slice(0, slash), path: rest.slice(slash + 1).split("/").map(decodeSegment).join("/") };
}

function noteResource(engine: VaultEngine, file: FileRecord): Resource {
  const resource: Resource = {
    uri: noteUri(engine.name, file.path),
    name: file.path,
    mimeType: MARKDOWN,
    size: file.size,
    annotations: { lastModified: new Date(file.mtime).toISOString() },
  };
  const title = engine.summary(file.path)?.title;
  if (title !== undefined) resource.title = title;
  return resource;
}

function instructionsResource(vault: string): Resource {
  return {
    uri: instructionsUri(vault),
    name: `${vault}/${INSTRUCTIONS_FILE}`,
    title: `Instructions for vault ${vault}`,
    description: "How the owner of this vault wants agents to work in it. Read it before changing anything.",
    mimeType: MARKDOWN,
  };
}

async function vaultResources(engine: VaultEngine): Promise<Resource[]> {
  const head = (await engine.instructions()) === null ? [] : [instructionsResource(engine.name)];
  const notes = engine.files().filter((file) => file.isNote && file.path !== INSTRUCTIONS_FILE);
  return [...head, ...notes.map((file) => noteResource(engine, file))];
}

export async function listResources(directory: VaultDirectory): Promise<ListResourcesResult> {
  const all: Resource[] = [];
  // A vault whose folder is missing has nothing to read; its notes come back with the folder.
  for (const engine of directory.visible()) if (engine.available()) all.push(...(await vaultResources(engine)));
  if (all.length <= MAX_LISTED_RESOURCES) return { resources: all };
  return {
    resources: all.slice(0, MAX_LISTED_RESOURCES),
    _meta: {
      truncated: {
        total: all.length,
        returned: MAX_LISTED_RESOURCES,
        hint: `Only the first ${MAX_LISTED_RESOURCES} notes are listed; use note_list or note_search to find the others, then read ${NOTE_URI_TEMPLATE}.`,
      },
    },
  };
}

export function listResourceTemplates(): ListResourceTemplatesResult {
  return {
    resourceTemplates: [
      {
        uriTemplate: NOTE_URI_TEMPLATE,
        name: "note",
        title: "Note",
        description: "A note of a vault by its vault-relative path, e.g. secondbrain://default/projects/plan.md.",
        mimeType: MARKDOWN,
      },
    ],
  };
}

async function readText(engine: VaultEngine, path: string): Promise<{ text: string; hash?: string }> {
  if (path === INSTRUCTIONS_NAME) {
    const text = await engine.instructions();
    if (text === null) throw new ToolError("not_found", `Vault "${engine.name}" has no ${INSTRUCTIONS_FILE}.`);
    return { text };
  }
  const file = await engine.read(path, { note: true });
  if (file.text === undefined) {
    throw new ToolError("too_large", `"${file.path}" is too large to read as text (${file.stat.size} bytes).`);
  }
  return { text: file.text, hash: file.content_hash };
}

export async function readResource(directory: VaultDirectory, uri: string): Promise<ReadResourceResult> {
  const address = parseResourceUri(uri);
  if (!address) {
    throw new ToolError("not_found", `Unknown resource "${uri}". Note resources look like ${NOTE_URI_TEMPLATE}; see resources/list.`);
  }
  const { text, hash } = await readText(directory.get(address.vault), address.path);
  const content = { uri, mimeType: MARKDOWN, text };
  return { contents: [hash === undefined ? content : { ...content, _meta: { content_hash: hash } }] };
}
