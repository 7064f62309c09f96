// The server `instructions` sent at initialize (SPEC §4): how to work with this server, which vaults
// this user sees, then each vault's own INSTRUCTIONS.md.
import { offersGroup } from "../tools/toolsets";
import type { UserInfo, VaultDirectory } from "../tools/types";
import { instructionsUri } from "./resources";

// An INSTRUCTIONS.md longer than this is cut here and offered whole as a resource.
export const MAX_VAULT_INSTRUCTIONS_CHARS = 16 * 1024;

const INTRO =
  "Second Brain MCP serves Obsidian vaults: Markdown notes with [[wiki links]], #tags and YAML frontmatter. " +
  "Every tool result is JSON and names its vault; errors say what went wrong and which call to make next.";

const READ_RULES = [
  "Find notes first: note_search for topics, vault_grep for exact text, note_list to browse a folder.",
  "On long notes call note_outline before note_read, then read one section with heading or page with byte_offset.",
];

const WRITE_RULES = [
  "Search before writing: extend an existing note instead of creating a near-duplicate.",
  "Read before changing: every read returns content_hash; pass it back as content_hash so a note changed meanwhile is refused, not overwritten.",
  "Prefer note_edit (old_string → new_string) and note_section_edit (one heading's section) over note_write, which replaces the whole note.",
  "Use dry_run: true first for anything that touches more than one file (note_move, note_merge, note_split, tag_rename, vault_replace), then apply.",
];

function bullets(lines: readonly string[]): string {
  return lines.map((line) => `- ${line}`).join("\n");
}

function accessSection(user: UserInfo, directory: VaultDirectory): string {
  const names = directory.visible().map((engine) => engine.name);
  const lines = [
    `Default vault: "${directory.defaultName()}" (used when a tool's vault argument is omitted).`,
    `Vaults you can use: ${names.length > 0 ? names.map((name) => `"${name}"`).join(", ") : "none"}.`,
  ];
  if (user.toolsets !== undefined) {
    lines.push(`Toolsets enabled for you: ${user.toolsets.join(", ")}. Tools of other toolsets are not offered; say so when a task needs one.`);
  }
  if (user.readOnly) {
    lines.push("Your access is read-only: no tools that change notes exist for you. Report proposed changes instead of making them.");
  }
  return lines.join("\n");
}

function vaultSection(vault: string, text: string): string {
  const body = text.trim();
  const cut = body.length > MAX_VAULT_INSTRUCTIONS_CHARS;
  const shown = cut ? `${body.slice(0, MAX_VAULT_INSTRUCTIONS_CHARS)}\n\n(cut here; read ${instructionsUri(vault)} for the rest)` : body;
  return `## Vault "${vault}": INSTRUCTIONS.md\n\n${shown}`;
}

async function vaultSections(directory: VaultDirectory): Promise<string[]> {
  const sections: string[] = [];
  for (const engine of directory.visible()) {
    const text = await engine.instructions();
    if (text !== null && text.trim() !== "") sections.push(vaultSection(engine.name, text));
  }
  return sections;
}

export async function buildInstructions(user: UserInfo, directory: VaultDirectory): Promise<string> {
  // Rules name tools; a rule about tools the user is not offered would only mislead.
  const writes = !user.readOnly && (offersGroup(user, "write") || offersGroup(user, "maintain"));
  const rules = [...(offersGroup(user, "find") ? READ_RULES : []), ...(writes ? WRITE_RULES : [])];
  const parts = [INTRO, ...(rules.length > 0 ? [`## Rules\n\n${bullets(rules)}`] : []), `## Access\n\n${accessSection(user, directory)}`];
  return [...parts, ...(await vaultSections(directory))].join("\n\n");
}
