// Tools only the plugin can offer (SPEC §10): what the user has open, and opening a note for them.
import { MarkdownView, TFile, type App } from "obsidian";
import { ToolError } from "../../core/errors";
import type { VaultEngine } from "../../core/vault/types";
import { pathField, vaultField } from "../../tools/common";
import { boolean, integer, object, optional, withDefault } from "../../tools/schema";
import { READ_ONLY, defineTool, type AnyToolDefinition, type ToolContext } from "../../tools/types";
import type { FolderScope } from "./scope";

export interface HostToolsOptions {
  app: App;
  scopeOf(vault: string): FolderScope | undefined;
}

/** The visible vault holding a vault path, preferring the narrowest scope. */
function vaultHolding(ctx: ToolContext, options: HostToolsOptions, vaultPath: string): { engine: VaultEngine; path: string } | null {
  let best: { engine: VaultEngine; path: string; depth: number } | null = null;
  for (const engine of ctx.vaults.visible()) {
    const scope = options.scopeOf(engine.name);
    const relative = scope?.fromVault(vaultPath);
    if (!scope || relative === null || relative === undefined) continue;
    const depth = scope.prefix.length;
    if (!best || depth > best.depth) best = { engine, path: relative, depth };
  }
  return best ? { engine: best.engine, path: best.path } : null;
}

export function hostTools(options: HostToolsOptions): AnyToolDefinition[] {
  const { app } = options;

  const activeNote = defineTool({
    name: "active_note",
    title: "Active note",
    description:
      "The note the user has open in Obsidian right now, with the selected text and cursor position when an editor is focused. Use it when the user says \"this note\" or \"the selection\". Read the note itself with note_read.",
    group: "host",
    input: object({}),
    annotations: READ_ONLY,
    async handler(ctx) {
      const file = app.workspace.getActiveFile();
      if (!file) {
        throw new ToolError("not_found", "No note is open in Obsidian. Ask the user to open one, or find it with note_search.", { retry: "inspect_state" });
      }
      const held = vaultHolding(ctx, options, file.path);
      if (!held) {
        throw new ToolError("not_found", "The note open in Obsidian is outside the vaults you can use. Call vault_list to see them.", { retry: "inspect_state" });
      }
      const result: Record<string, unknown> = { vault: held.engine.name, path: held.path, title: held.engine.summary(held.path)?.title ?? file.basename };
      const view = app.workspace.getActiveViewOfType(MarkdownView);
      if (view && view.file?.path === file.path) {
        const editor = view.editor;
        const from = editor.getCursor("from");
        const to = editor.getCursor("to");
        const selection = editor.getSelection();
        result.cursor = { line: editor.getCursor("head").line, ch: editor.getCursor("head").ch };
        if (selection !== "") result.selection = { text: selection, from: { line: from.line, ch: from.ch }, to: { line: to.line, ch: to.ch } };
      }
      const record = held.engine.file(held.path);
      if (record?.hash) result.content_hash = record.hash;
      return result;
    },
  });

  const openNote = defineTool({
    name: "open_note",
    title: "Open note for the user",
    description:
      "Opens a note in Obsidian so the user sees it, optionally at a line. It changes nothing in the vault. Use it to show the user the note you just wrote or found.",
    group: "host",
    input: object({
      vault: vaultField,
      path: pathField,
      line: optional(integer({ description: "0-based line to scroll to.", minimum: 0 })),
      new_tab: withDefault(boolean({ description: "Open in a new tab instead of the current one." }), false),
    }),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    async handler(ctx, args) {
      const engine = ctx.vaults.get(args.vault);
      const { path, stat } = await engine.resolve(args.path, { note: false });
      const scope = options.scopeOf(engine.name);
      const file = scope ? app.vault.getAbstractFileByPath(scope.toVault(path)) : null;
      if (!stat || !(file instanceof TFile)) {
        throw new ToolError("not_found", `"${path}" does not exist in vault "${engine.name}". Call note_search or note_list to find the right path.`, { details: { path } });
      }
      const leaf = app.workspace.getLeaf(args.new_tab ? "tab" : false);
      await leaf.openFile(file, args.line === undefined ? undefined : { eState: { line: args.line } });
      return { vault: engine.name, path, opened: true };
    },
  });

  return [activeNote, openNote];
}
