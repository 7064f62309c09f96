// canvas_edit: one change to a JSON Canvas (add, change or remove a node or an edge) through the write
// path, so it gets the hash check, dry run, diff, trash copy and history of every other write.
import { ToolError } from "../../core/errors";
import { applyCanvasEdit, CANVAS_ACTIONS, parseCanvas, serializeCanvas, type CanvasAction, type CanvasEditOutcome } from "../../core/formats/canvas";
import { extname } from "../../core/notes/paths";
import type { Field } from "../schema";
import { object, optional, string } from "../schema";
import { vaultField } from "../common";
import { defineTool } from "../types";
import { actorOf, contentHashField, dryRunField, reasonField, REPLACES_NOTE, writeResult } from "./common";

/** An object, or its JSON as a string (some clients send nested arguments that way). */
const fieldsField: Field<Record<string, unknown> | undefined> = {
  schema: {
    type: "object",
    additionalProperties: true,
    description:
      'add_node/add_edge: the new item, e.g. {"type": "text", "text": "Idea", "x": 0, "y": 0} or {"fromNode": "a", "toNode": "b", "label": "leads to"}; x, y, width and height default to a free spot and a usual size. change_*: only the fields to set; null removes an optional field. Fields the spec does not name are kept.',
  },
  optional: true,
  parse(value, name) {
    if (value === undefined || value === null) return undefined;
    let parsed: unknown = value;
    if (typeof value === "string") {
      try {
        parsed = JSON.parse(value);
      } catch {
        parsed = undefined;
      }
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      throw new ToolError("invalid_argument", `Argument "${name}" must be an object of node or edge fields, e.g. {"text": "Idea"}. Fix it and call again.`, {
        details: { argument: name },
      });
    }
    return parsed as Record<string, unknown>;
  },
};

export const canvasEdit = defineTool({
  name: "canvas_edit",
  title: "Edit a canvas",
  description:
    "Changes a JSON Canvas (.canvas): add_node, change_node, remove_node (its edges go with it), add_edge, change_edge, remove_edge. The result is checked against JSON Canvas 1.0 (unique ids, edges between existing nodes, node types text/file/link/group with their required field, integer positions and sizes, colors \"1\"-\"6\" or #hex, sides top/right/bottom/left, ends none/arrow) and refused, unwritten, if the edit breaks it; fields other apps added are kept. Read the canvas first with attachment_read (nodes, edges, ids) and pass its content_hash. Returns the write result with the diff, and the item as it now is.",
  group: "write",
  input: object({
    vault: vaultField,
    path: string({ description: "Vault-relative path of the canvas, e.g. `boards/project.canvas`." }),
    action: string({ description: "What to do.", enum: CANVAS_ACTIONS }),
    id: optional(string({ description: "The node or edge to change or remove; for add_*, the new id (default: a new random one)." })),
    fields: fieldsField,
    content_hash: contentHashField,
    dry_run: dryRunField,
    reason: reasonField,
  }),
  annotations: REPLACES_NOTE,
  async handler(ctx, args) {
    const engine = ctx.vaults.get(args.vault);
    const { path, stat } = await engine.resolve(args.path);
    if (extname(path) !== "canvas") {
      throw new ToolError("invalid_argument", `"${path}" is not a canvas (.canvas). canvas_edit changes canvases only; notes change with note_edit.`, { details: { argument: "path" } });
    }
    if (!stat) {
      throw new ToolError(
        "not_found",
        `Canvas "${path}" does not exist in vault "${engine.name}". Find canvases with attachment_list (extension canvas), or create one with attachment_put (the JSON {"nodes":[],"edges":[]}).`,
        { details: { path } },
      );
    }
    const action = args.action as CanvasAction;
    let outcome: CanvasEditOutcome | undefined;
    const result = await engine.writes.write({
      path,
      tool: `canvas_edit(${action})`,
      actor: actorOf(ctx),
      mode: "update",
      expected_hash: args.content_hash,
      dry_run: args.dry_run,
      reason: args.reason,
      skip_touch: true,
      transform: (current) => {
        const text = current ?? "";
        const canvas = parseCanvas(path, text);
        outcome = applyCanvasEdit(canvas, { action, ...(args.id !== undefined ? { id: args.id } : {}), ...(args.fields ? { fields: args.fields } : {}) }, path);
        return serializeCanvas(canvas, text);
      },
    });
    const done = outcome!;
    const warnings = [...result.warnings];
    const file = done.item?.type === "file" ? done.item.file : undefined;
    if (typeof file === "string" && !engine.file(file)) {
      warnings.push(`The file node points to "${file}", which is not a file of this vault; Obsidian shows it as missing until it exists.`);
    }
    if (done.problems_before.length > 0) {
      warnings.push(`The canvas already broke the JSON Canvas spec before this edit (left as it was): ${done.problems_before.join("; ")}.`);
    }
    const kind = action.endsWith("_node") ? "node" : "edge";
    return writeResult(
      { ...result, warnings },
      {
        action,
        id: done.id,
        ...(done.item ? { [kind]: done.item } : {}),
        ...(done.removed_edges ? { removed_edges: done.removed_edges } : {}),
      },
    );
  },
});
