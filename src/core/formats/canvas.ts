// JSON Canvas 1.0 (https://jsoncanvas.org/spec/1.0/): reading a canvas as nodes and edges, checking it
// against the spec, and the edits canvas_edit makes (add, change, remove a node or an edge). Objects are
// changed in place of their parsed JSON, so fields this code does not know (other apps' extensions)
// and the order of keys survive an edit.
import { ToolError } from "../errors";
import { largestFitting, type FormatReader, type FormatRequest, type FormatResult } from "./registry";

type Json = null | boolean | number | string | Json[] | JsonObject;
export interface JsonObject {
  [key: string]: Json;
}

export interface Canvas {
  /** The whole document, with any top-level fields besides nodes and edges. */
  root: JsonObject;
  nodes: JsonObject[];
  edges: JsonObject[];
}

export const NODE_TYPES = ["text", "file", "link", "group"] as const;
export const SIDES = ["top", "right", "bottom", "left"] as const;
export const ENDS = ["none", "arrow"] as const;
export const BACKGROUND_STYLES = ["cover", "ratio", "repeat"] as const;
/** Fields every node has, and what each node type requires besides. */
const REQUIRED_BY_TYPE: Record<string, string> = { text: "text", file: "file", link: "url" };
/** The size a node gets when the edit names none, close to what Obsidian gives a new card of that type. */
const DEFAULT_SIZE: Record<string, [number, number]> = { text: [250, 60], file: [400, 400], link: [400, 400], group: [500, 400] };
const GAP = 40;

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function notCanvas(path: string, why: string): ToolError {
  return new ToolError(
    "invalid_argument",
    `"${path}" is not a JSON Canvas file: ${why}. Read it with attachment_read and raw: true to see it, or fix it in Obsidian.`,
    { details: { path } },
  );
}

export function parseCanvas(path: string, text: string): Canvas {
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  let root: unknown;
  try {
    root = source.trim() === "" ? {} : JSON.parse(source);
  } catch {
    throw notCanvas(path, "it is not valid JSON");
  }
  if (!isObject(root)) throw notCanvas(path, "the document must be a JSON object with `nodes` and `edges`");
  const list = (key: "nodes" | "edges"): JsonObject[] => {
    const value = root[key];
    if (value === undefined) return [];
    if (!Array.isArray(value)) throw notCanvas(path, `\`${key}\` must be an array`);
    value.forEach((item, index) => {
      if (!isObject(item)) throw notCanvas(path, `${key}[${index}] is not an object`);
    });
    return value as JsonObject[];
  };
  return { root, nodes: list("nodes"), edges: list("edges") };
}

function isColor(value: Json | undefined): boolean {
  return typeof value === "string" && (/^[1-6]$/.test(value) || /^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/.test(value));
}

function oneOf(value: Json | undefined, allowed: readonly string[]): boolean {
  return typeof value === "string" && allowed.includes(value);
}

function label(kind: "node" | "edge", item: JsonObject, index: number): string {
  return typeof item.id === "string" && item.id !== "" ? `${kind} "${item.id}"` : `${kind}s[${index}]`;
}

/** What one node breaks of the spec; empty when nothing. */
export function nodeProblems(node: JsonObject, where: string): string[] {
  const problems: string[] = [];
  if (typeof node.id !== "string" || node.id === "") problems.push(`${where} has no id (a non-empty string)`);
  if (!oneOf(node.type, NODE_TYPES)) problems.push(`${where}: type must be one of ${NODE_TYPES.join(", ")}`);
  for (const key of ["x", "y", "width", "height"]) {
    if (typeof node[key] !== "number" || !Number.isInteger(node[key])) problems.push(`${where}: ${key} must be an integer (pixels)`);
  }
  if (typeof node.width === "number" && node.width <= 0) problems.push(`${where}: width must be positive`);
  if (typeof node.height === "number" && node.height <= 0) problems.push(`${where}: height must be positive`);
  if (node.color !== undefined && !isColor(node.color)) problems.push(`${where}: color must be a preset "1" to "6" or a hex color like "#FF0000"`);
  const type = typeof node.type === "string" ? node.type : "";
  const required = REQUIRED_BY_TYPE[type];
  if (required !== undefined && typeof node[required] !== "string") problems.push(`${where}: a ${type} node needs \`${required}\` (a string)`);
  if (node.type === "file" && node.subpath !== undefined && (typeof node.subpath !== "string" || !node.subpath.startsWith("#"))) {
    problems.push(`${where}: subpath must start with # (a heading or block of the file)`);
  }
  if (node.type === "group") {
    if (node.label !== undefined && typeof node.label !== "string") problems.push(`${where}: label must be a string`);
    if (node.background !== undefined && typeof node.background !== "string") problems.push(`${where}: background must be a path (a string)`);
    if (node.backgroundStyle !== undefined && !oneOf(node.backgroundStyle, BACKGROUND_STYLES)) {
      problems.push(`${where}: backgroundStyle must be one of ${BACKGROUND_STYLES.join(", ")}`);
    }
  }
  return problems;
}

/** What one edge breaks of the spec, given the node ids that exist. */
export function edgeProblems(edge: JsonObject, where: string, nodeIds: ReadonlySet<string>): string[] {
  const problems: string[] = [];
  if (typeof edge.id !== "string" || edge.id === "") problems.push(`${where} has no id (a non-empty string)`);
  for (const end of ["fromNode", "toNode"]) {
    const id = edge[end];
    if (typeof id !== "string") problems.push(`${where}: ${end} must name a node id`);
    else if (!nodeIds.has(id)) problems.push(`${where}: ${end} "${id}" is not a node of this canvas`);
  }
  for (const side of ["fromSide", "toSide"]) {
    if (edge[side] !== undefined && !oneOf(edge[side], SIDES)) problems.push(`${where}: ${side} must be one of ${SIDES.join(", ")}`);
  }
  for (const end of ["fromEnd", "toEnd"]) {
    if (edge[end] !== undefined && !oneOf(edge[end], ENDS)) problems.push(`${where}: ${end} must be one of ${ENDS.join(", ")}`);
  }
  if (edge.color !== undefined && !isColor(edge.color)) problems.push(`${where}: color must be a preset "1" to "6" or a hex color like "#FF0000"`);
  if (edge.label !== undefined && typeof edge.label !== "string") problems.push(`${where}: label must be a string`);
  return problems;
}

/** Everything in the canvas that breaks the spec: each item, unique ids, edges to existing nodes. */
export function canvasProblems(canvas: Canvas): string[] {
  const problems: string[] = [];
  const nodeIds = new Set<string>();
  canvas.nodes.forEach((node, index) => {
    const where = label("node", node, index);
    problems.push(...nodeProblems(node, where));
    if (typeof node.id === "string") {
      if (nodeIds.has(node.id)) problems.push(`${where}: the id is used by more than one node`);
      nodeIds.add(node.id);
    }
  });
  const edgeIds = new Set<string>();
  canvas.edges.forEach((edge, index) => {
    const where = label("edge", edge, index);
    problems.push(...edgeProblems(edge, where, nodeIds));
    if (typeof edge.id === "string") {
      if (edgeIds.has(edge.id) || nodeIds.has(edge.id)) problems.push(`${where}: the id is used by more than one node or edge`);
      edgeIds.add(edge.id);
    }
  });
  return problems;
}

// ---------------------------------------------------------------- edits

export const CANVAS_ACTIONS = ["add_node", "change_node", "remove_node", "add_edge", "change_edge", "remove_edge"] as const;
export type CanvasAction = (typeof CANVAS_ACTIONS)[number];

export interface CanvasEdit {
  action: CanvasAction;
  id?: string;
  /** add: the new node or edge; change: the fields to set (null removes an optional field). */
  fields?: Record<string, unknown>;
}

export interface CanvasEditOutcome {
  /** The node or edge as it is after the edit; absent after a removal. */
  item?: JsonObject;
  id: string;
  /** Edges removed with their node. */
  removed_edges?: string[];
  /** Problems the canvas had before this edit and still has. */
  problems_before: string[];
}

function badEdit(message: string, argument = "fields"): ToolError {
  return new ToolError("invalid_argument", message, { details: { argument } });
}

/** A JSON value from the arguments; anything else (undefined, functions) cannot be in a canvas. */
function asJson(value: unknown, key: string): Json {
  if (value === null || typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw badEdit(`fields.${key} must be a finite number.`);
    return value;
  }
  if (Array.isArray(value)) return value.map((item, index) => asJson(item, `${key}[${index}]`));
  if (typeof value === "object") {
    const out: JsonObject = {};
    for (const [inner, item] of Object.entries(value as Record<string, unknown>)) out[inner] = asJson(item, `${key}.${inner}`);
    return out;
  }
  throw badEdit(`fields.${key} is not a JSON value.`);
}

function newId(taken: ReadonlySet<string>): string {
  for (;;) {
    const bytes = new Uint8Array(8);
    crypto.getRandomValues(bytes);
    const id = [...bytes].map((byte) => byte.toString(16).padStart(2, "0")).join("");
    if (!taken.has(id)) return id;
  }
}

function allIds(canvas: Canvas): Set<string> {
  const ids = new Set<string>();
  for (const item of [...canvas.nodes, ...canvas.edges]) if (typeof item.id === "string") ids.add(item.id);
  return ids;
}

/** Below everything already there, so a new card never hides another. */
function freeSpot(canvas: Canvas): { x: number; y: number } {
  let left = Infinity;
  let bottom = -Infinity;
  for (const node of canvas.nodes) {
    if (typeof node.x === "number") left = Math.min(left, node.x);
    if (typeof node.y === "number" && typeof node.height === "number") bottom = Math.max(bottom, node.y + node.height);
  }
  return Number.isFinite(bottom) ? { x: Number.isFinite(left) ? Math.round(left) : 0, y: Math.round(bottom) + GAP } : { x: 0, y: 0 };
}

function listsFor(canvas: Canvas): void {
  // A canvas without nodes or edges gains the arrays the edit needs.
  canvas.root.nodes = canvas.nodes;
  canvas.root.edges = canvas.edges;
}

function findIndex(items: JsonObject[], id: string, kind: "node" | "edge", path: string): number {
  if (id === "") throw badEdit(`This action needs the id of the ${kind}; attachment_read of "${path}" lists the ids.`, "id");
  const index = items.findIndex((item) => item.id === id);
  if (index < 0) {
    throw new ToolError("not_found", `"${path}" has no ${kind} with id "${id}". Read the canvas with attachment_read to see its ${kind}s and their ids.`, {
      details: { path, id },
    });
  }
  return index;
}

function refuseIf(problems: string[], before: ReadonlySet<string>, what: string): void {
  const introduced = problems.filter((problem) => !before.has(problem));
  if (introduced.length > 0) {
    throw badEdit(`The ${what} would break the JSON Canvas spec: ${introduced.join("; ")}. Fix fields and call again (nothing was written).`);
  }
}

/** Applies one edit to the canvas in place; refuses an edit that would leave it breaking the spec. */
export function applyCanvasEdit(canvas: Canvas, edit: CanvasEdit, path: string): CanvasEditOutcome {
  const before = canvasProblems(canvas);
  const known = new Set(before);
  const fields: Record<string, unknown> = edit.fields ?? {};
  const outcome = (id: string, item?: JsonObject): CanvasEditOutcome => ({ id, ...(item ? { item } : {}), problems_before: before });
  switch (edit.action) {
    case "add_node":
    case "add_edge": {
      const kind = edit.action === "add_node" ? "node" : "edge";
      const taken = allIds(canvas);
      const id = edit.id ?? (typeof fields.id === "string" ? fields.id : undefined) ?? newId(taken);
      if (taken.has(id)) throw badEdit(`The id "${id}" is already used by a node or edge of "${path}"; pick another or leave id out to get a new one.`, "id");
      if (fields.id !== undefined && fields.id !== id) throw badEdit(`id "${id}" and fields.id ${JSON.stringify(fields.id)} differ; pass one of them.`, "id");
      const item: JsonObject = { id };
      if (kind === "node") {
        const type = typeof fields.type === "string" ? fields.type : "text";
        item.type = type;
        const spot = fields.x === undefined && fields.y === undefined ? freeSpot(canvas) : { x: 0, y: 0 };
        const [width, height] = DEFAULT_SIZE[type] ?? [250, 60];
        Object.assign(item, { x: spot.x, y: spot.y, width, height });
      }
      for (const [key, value] of Object.entries(fields)) if (key !== "id" && value !== null) item[key] = asJson(value, key);
      listsFor(canvas);
      if (kind === "node") canvas.nodes.push(item);
      else canvas.edges.push(item);
      refuseIf(canvasProblems(canvas), known, `new ${kind}`);
      return outcome(id, item);
    }
    case "change_node":
    case "change_edge": {
      const kind = edit.action === "change_node" ? "node" : "edge";
      const items = kind === "node" ? canvas.nodes : canvas.edges;
      const id = edit.id ?? "";
      const item = items[findIndex(items, id, kind, path)]!;
      if (Object.keys(fields).length === 0) throw badEdit(`Pass the fields to change, e.g. {"text": "..."} or {"x": 100}; null removes an optional field.`);
      if (fields.id !== undefined && fields.id !== item.id) {
        throw badEdit(`An id cannot be changed (edges refer to it). Add a new ${kind} and remove this one instead.`);
      }
      for (const [key, value] of Object.entries(fields)) {
        if (key === "id") continue;
        if (value === null) delete item[key];
        else item[key] = asJson(value, key);
      }
      refuseIf(canvasProblems(canvas), known, `changed ${kind}`);
      return outcome(id, item);
    }
    case "remove_node": {
      const id = edit.id ?? "";
      const index = findIndex(canvas.nodes, id, "node", path);
      canvas.nodes.splice(index, 1);
      const removed: string[] = [];
      for (let i = canvas.edges.length - 1; i >= 0; i--) {
        const edge = canvas.edges[i]!;
        if (edge.fromNode === id || edge.toNode === id) {
          removed.unshift(typeof edge.id === "string" ? edge.id : `edges[${i}]`);
          canvas.edges.splice(i, 1);
        }
      }
      return { ...outcome(id), removed_edges: removed };
    }
    case "remove_edge": {
      const id = edit.id ?? "";
      const index = findIndex(canvas.edges, id, "edge", path);
      canvas.edges.splice(index, 1);
      return outcome(id);
    }
  }
}

/** The canvas as text in the style of the original: tabs as Obsidian writes, or its own indent, or one line. */
export function serializeCanvas(canvas: Canvas, original: string): string {
  const body = original.charCodeAt(0) === 0xfeff ? original.slice(1) : original;
  const trailing = /\r?\n$/.exec(body)?.[0] ?? "";
  let indent: string | number = "\t";
  if (body.trim() !== "" && !body.trim().includes("\n")) indent = 0;
  else {
    const first = /\n([ \t]+)\S/.exec(body)?.[1];
    if (first !== undefined) indent = first.startsWith("\t") ? "\t" : first.length;
  }
  const text = indent === 0 ? JSON.stringify(canvas.root) : JSON.stringify(canvas.root, null, indent);
  return text + trailing;
}

// ---------------------------------------------------------------- reading

function readCanvas(request: FormatRequest): FormatResult {
  const text = new TextDecoder("utf-8").decode(request.bytes);
  const canvas = parseCanvas(request.path, text);
  const { args } = request;
  const items = [...canvas.nodes.map((node) => ({ kind: "node" as const, item: node })), ...canvas.edges.map((edge) => ({ kind: "edge" as const, item: edge }))];
  const types: Record<string, number> = {};
  for (const node of canvas.nodes) {
    const type = typeof node.type === "string" ? node.type : "unknown";
    types[type] = (types[type] ?? 0) + 1;
  }
  const problems = canvasProblems(canvas);
  const window = items.slice(args.offset, args.offset + args.limit);
  const build = (count: number): FormatResult => {
    const shown = window.slice(0, count);
    const body: Record<string, unknown> = {
      format: "canvas",
      total_nodes: canvas.nodes.length,
      total_edges: canvas.edges.length,
      node_types: types,
      ...(problems.length > 0 ? { problems } : {}),
      offset: args.offset,
      returned: count,
      ...(count < window.length ? { window_shortened: `${window.length} items do not fit the response limit, so ${count} are returned; continue with the cursor.` } : {}),
      nodes: shown.filter((entry) => entry.kind === "node").map((entry) => entry.item),
      edges: shown.filter((entry) => entry.kind === "edge").map((entry) => entry.item),
    };
    const next = args.offset + count;
    return next < items.length ? { body, next: { offset: next } } : { body };
  };
  const full = build(window.length);
  if (request.fits(full.body)) return full;
  return largestFitting(request, window.length, build, () => build(Math.min(1, window.length)));
}

export const canvasReader: FormatReader = {
  format: "canvas",
  extensions: ["canvas"],
  read: readCanvas,
};
