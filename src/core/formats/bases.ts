// Obsidian Bases (`.base`, YAML): filters, formulas, properties, summaries and views as structure, with
// what does not follow the documented schema (a filter object with other keys than and/or/not, a view
// without a type, a formula or summary used but never defined) listed as problems.
import { isAlias, isMap, isSeq, parseDocument } from "yaml";
import { ToolError } from "../errors";
import { lineColumn, type FormatReader, type FormatRequest, type FormatResult } from "./registry";

/** Bases are written by hand or by the app: far below this. Larger YAML is not parsed (SPEC §15). */
export const MAX_BASE_BYTES = 256 * 1024;
const MAX_ALIASES = 50;
const FILTER_KEYS = ["and", "or", "not"] as const;
const KNOWN_TOP = new Set(["filters", "formulas", "properties", "summaries", "views"]);
/** The summaries every base has (Bases syntax, "Default Summary Formulas"). */
const DEFAULT_SUMMARIES = new Set(["Average", "Min", "Max", "Sum", "Range", "Median", "Stddev", "Earliest", "Latest", "Checked", "Unchecked", "Empty", "Filled", "Unique"]);

const decoder = new TextDecoder("utf-8");

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function countAliases(root: unknown): number {
  let aliases = 0;
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (isAlias(node)) aliases++;
    else if (isMap(node)) for (const pair of node.items) stack.push(pair.key, pair.value);
    else if (isSeq(node)) stack.push(...node.items);
  }
  return aliases;
}

export function parseBase(path: string, text: string): Record<string, unknown> {
  const fail = (why: string, details: Record<string, unknown> = {}): never => {
    throw new ToolError("invalid_argument", `"${path}" is not a valid base: ${why}. Read it with raw: true to see the YAML, or fix it in Obsidian.`, {
      details: { path, ...details },
    });
  };
  // The core schema keeps dates as strings, as Obsidian does; duplicate keys are left to Obsidian.
  const document = parseDocument(text, { schema: "core", prettyErrors: false, uniqueKeys: false, logLevel: "error" });
  const error = document.errors[0];
  if (error) {
    const { line, column } = lineColumn(text, error.pos[0]);
    fail(`its YAML is invalid at line ${line}, column ${column} (${error.code})`, { line, column });
  }
  if (countAliases(document.contents) > MAX_ALIASES) fail(`it uses more than ${MAX_ALIASES} YAML aliases (*name)`);
  let value: unknown;
  try {
    value = document.toJS({ maxAliasCount: MAX_ALIASES });
  } catch {
    fail("a YAML alias cannot be resolved or expands too far");
  }
  if (value === null || value === undefined) return {};
  if (!isRecord(value)) fail("the YAML must be a map with filters, formulas, properties, summaries and views");
  return value as Record<string, unknown>;
}

/** Problems of a filter (a statement string, or an object of exactly one of and/or/not holding a list). */
function filterProblems(filter: unknown, where: string, out: string[]): void {
  if (typeof filter === "string") return;
  if (!isRecord(filter)) {
    out.push(`${where} must be a filter statement (a string) or an object with one of and, or, not`);
    return;
  }
  const keys = Object.keys(filter);
  const known = keys.filter((key) => (FILTER_KEYS as readonly string[]).includes(key));
  const others = keys.filter((key) => !(FILTER_KEYS as readonly string[]).includes(key));
  if (others.length > 0) out.push(`${where} has ${others.map((key) => `\`${key}\``).join(", ")}; a filter object holds only one of and, or, not`);
  if (known.length !== 1) {
    if (others.length === 0) out.push(`${where} must hold exactly one of and, or, not (it holds ${known.length === 0 ? "none" : known.join(" and ")})`);
    return;
  }
  const key = known[0]!;
  const list = filter[key];
  if (!Array.isArray(list)) {
    out.push(`${where}.${key} must be a list of filter statements or filter objects`);
    return;
  }
  list.forEach((item, index) => filterProblems(item, `${where}.${key}[${index}]`, out));
}

/** Every string in a value, for finding formula references. */
function strings(value: unknown, out: string[] = []): string[] {
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) for (const item of value) strings(item, out);
  else if (isRecord(value)) for (const [key, item] of Object.entries(value)) {
    out.push(key);
    strings(item, out);
  }
  return out;
}

export interface BaseStructure {
  filters: unknown;
  formulas: Record<string, unknown>;
  properties: Record<string, unknown>;
  summaries: Record<string, unknown>;
  views: Array<Record<string, unknown>>;
  other: Record<string, unknown>;
  problems: string[];
}

export function baseStructure(data: Record<string, unknown>): BaseStructure {
  const problems: string[] = [];
  const section = (key: string): Record<string, unknown> => {
    const value = data[key];
    if (value === undefined || value === null) return {};
    if (!isRecord(value)) {
      problems.push(`\`${key}\` must be a map`);
      return {};
    }
    return value;
  };
  const formulas = section("formulas");
  const properties = section("properties");
  const summaries = section("summaries");
  for (const [name, formula] of Object.entries(formulas)) if (typeof formula !== "string") problems.push(`formula \`${name}\` must be a string (an expression)`);
  for (const [name, formula] of Object.entries(summaries)) if (typeof formula !== "string") problems.push(`summary \`${name}\` must be a string (an expression over \`values\`)`);
  if (data.filters !== undefined && data.filters !== null) filterProblems(data.filters, "filters", problems);

  let views: Array<Record<string, unknown>> = [];
  if (data.views !== undefined && data.views !== null) {
    if (!Array.isArray(data.views)) problems.push("`views` must be a list of views");
    else {
      views = data.views.map((view, index) => (isRecord(view) ? view : { invalid: view, index }));
      data.views.forEach((view, index) => {
        const where = `views[${index}]`;
        if (!isRecord(view)) {
          problems.push(`${where} must be a map with at least a type`);
          return;
        }
        if (typeof view.type !== "string" || view.type === "") problems.push(`${where} has no type (table, cards, list, map, or a plugin's view)`);
        if (view.name !== undefined && typeof view.name !== "string") problems.push(`${where}.name must be a string`);
        if (view.limit !== undefined && (typeof view.limit !== "number" || !Number.isInteger(view.limit) || view.limit < 0)) problems.push(`${where}.limit must be a whole number`);
        if (view.filters !== undefined && view.filters !== null) filterProblems(view.filters, `${where}.filters`, problems);
        if (view.order !== undefined && (!Array.isArray(view.order) || view.order.some((item) => typeof item !== "string"))) problems.push(`${where}.order must be a list of property names`);
        if (view.groupBy !== undefined) {
          const group = view.groupBy;
          if (!isRecord(group) || typeof group.property !== "string") problems.push(`${where}.groupBy must have a property`);
          else if (group.direction !== undefined && group.direction !== "ASC" && group.direction !== "DESC") problems.push(`${where}.groupBy.direction must be ASC or DESC`);
        }
        if (view.summaries !== undefined) {
          if (!isRecord(view.summaries)) problems.push(`${where}.summaries must map property names to summary names`);
          else {
            for (const [property, summary] of Object.entries(view.summaries)) {
              if (typeof summary !== "string" || (!DEFAULT_SUMMARIES.has(summary) && !(summary in summaries))) {
                problems.push(`${where}.summaries: \`${property}\` uses the summary ${JSON.stringify(summary)}, which is neither a default summary nor defined under \`summaries\``);
              }
            }
          }
        }
      });
      const names = new Map<string, number>();
      for (const view of views) if (typeof view.name === "string") names.set(view.name, (names.get(view.name) ?? 0) + 1);
      for (const [name, count] of names) if (count > 1) problems.push(`${count} views are named ${JSON.stringify(name)}; a name picks the default view, so names should differ`);
    }
  }
  // A formula.X used anywhere (views, properties, other formulas, filters) must be defined.
  const used = new Set<string>();
  for (const text of strings([data.filters, formulas, properties, data.views])) {
    for (const match of text.matchAll(/\bformula\.([A-Za-z_][A-Za-z0-9_]*)/g)) used.add(match[1]!);
  }
  for (const name of used) if (!(name in formulas)) problems.push(`\`formula.${name}\` is used but no formula \`${name}\` is defined under \`formulas\``);
  const other = Object.fromEntries(Object.entries(data).filter(([key]) => !KNOWN_TOP.has(key)));
  return { filters: data.filters ?? null, formulas, properties, summaries, views, other, problems };
}

function readBase(request: FormatRequest): FormatResult {
  if (request.bytes.length > MAX_BASE_BYTES) {
    throw new ToolError(
      "too_large",
      `"${request.path}" is ${request.bytes.length} bytes; bases over ${MAX_BASE_BYTES} bytes are not parsed. Read it as text with raw: true.`,
      { details: { path: request.path, bytes: request.bytes.length, limit: MAX_BASE_BYTES } },
    );
  }
  const structure = baseStructure(parseBase(request.path, decoder.decode(request.bytes)));
  const { args } = request;
  const window = structure.views.slice(args.offset, args.offset + args.limit);
  const build = (count: number): FormatResult => {
    const body: Record<string, unknown> = {
      format: "base",
      ...(structure.problems.length > 0 ? { problems: structure.problems } : {}),
      filters: structure.filters,
      formulas: structure.formulas,
      properties: structure.properties,
      summaries: structure.summaries,
      ...(Object.keys(structure.other).length > 0 ? { other: structure.other } : {}),
      total_views: structure.views.length,
      offset: args.offset,
      returned: count,
      ...(count < window.length ? { window_shortened: `${window.length} views do not fit the response limit, so ${count} are returned; continue with the cursor.` } : {}),
      views: window.slice(0, count),
    };
    const next = args.offset + count;
    return next < structure.views.length ? { body, next: { offset: next } } : { body };
  };
  const full = build(window.length);
  if (request.fits(full.body)) return full;
  for (let count = window.length - 1; count >= 1; count--) {
    const attempt = build(count);
    if (request.fits(attempt.body)) return attempt;
  }
  return build(Math.min(1, window.length));
}

export const baseReader: FormatReader = {
  format: "base",
  extensions: ["base"],
  read: readBase,
};
