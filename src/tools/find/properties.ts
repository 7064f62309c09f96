// Frontmatter property matching shared by note_search (equality filters) and note_query (operators).
import { ToolError } from "../../core/errors";

export type Scalar = string | number | boolean | null;

export const OPERATORS = ["eq", "ne", "gt", "gte", "lt", "lte", "contains", "exists", "in"] as const;
export type Operator = (typeof OPERATORS)[number];

export interface Condition {
  key: string;
  op: Operator;
  value: unknown;
}

/**
 * Reads `a.b` style keys; Obsidian property names are case-insensitive in practice. Only the note's own
 * keys count: `constructor` or `toString` would otherwise be found on every note's prototype.
 */
export function property(frontmatter: Record<string, unknown> | undefined, key: string): unknown {
  if (!frontmatter) return undefined;
  let current: unknown = frontmatter;
  for (const part of key.split(".")) {
    if (typeof current !== "object" || current === null) return undefined;
    const record = current as Record<string, unknown>;
    const exact = Object.hasOwn(record, part) ? record[part] : undefined;
    if (exact !== undefined) {
      current = exact;
      continue;
    }
    const lower = part.toLowerCase();
    const found = Object.keys(record).find((candidate) => candidate.toLowerCase() === lower);
    current = found === undefined ? undefined : record[found];
  }
  return current;
}

function comparable(value: unknown): string | number | null {
  if (typeof value === "number") return value;
  if (typeof value === "boolean") return String(value);
  if (typeof value === "string") {
    const trimmed = value.trim();
    return /^-?\d+(\.\d+)?$/.test(trimmed) ? Number(trimmed) : trimmed.toLowerCase();
  }
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  return null;
}

function equals(actual: unknown, expected: unknown): boolean {
  if (Array.isArray(actual)) return actual.some((item) => equals(item, expected));
  if (expected === null) return actual === null || actual === undefined;
  const a = comparable(actual);
  const b = comparable(expected);
  return a !== null && b !== null && a === b;
}

function order(actual: unknown, expected: unknown): number | null {
  const a = comparable(actual);
  const b = comparable(expected);
  if (a === null || b === null || typeof a !== typeof b) return null;
  return a < b ? -1 : a > b ? 1 : 0;
}

export function matches(frontmatter: Record<string, unknown> | undefined, condition: Condition): boolean {
  const actual = property(frontmatter, condition.key);
  const expected = condition.value;
  switch (condition.op) {
    case "exists":
      return expected === false ? actual === undefined : actual !== undefined && actual !== null;
    case "eq":
      return equals(actual, expected);
    case "ne":
      return !equals(actual, expected);
    case "in":
      return Array.isArray(expected) && expected.some((item) => equals(actual, item));
    case "contains": {
      if (Array.isArray(actual)) return actual.some((item) => equals(item, expected));
      const a = comparable(actual);
      const b = comparable(expected);
      return typeof a === "string" && b !== null && a.includes(String(b));
    }
    default: {
      const compared = order(actual, expected);
      if (compared === null) return false;
      if (condition.op === "gt") return compared > 0;
      if (condition.op === "gte") return compared >= 0;
      if (condition.op === "lt") return compared < 0;
      return compared <= 0;
    }
  }
}

/**
 * `{status: "active", due: {lt: "2026-04-01"}, tags: {contains: "x"}}` → conditions. A plain value
 * means equality; an object names operators.
 */
export function conditionsFrom(where: Record<string, unknown>): Condition[] {
  const conditions: Condition[] = [];
  for (const [key, spec] of Object.entries(where)) {
    if (spec !== null && typeof spec === "object" && !Array.isArray(spec)) {
      for (const [op, value] of Object.entries(spec as Record<string, unknown>)) {
        if (!(OPERATORS as readonly string[]).includes(op)) {
          throw new ToolError(
            "invalid_argument",
            `Unknown operator "${op}" for property "${key}". Use one of: ${OPERATORS.join(", ")}; e.g. {"due": {"lt": "2026-04-01"}}.`,
          );
        }
        conditions.push({ key, op: op as Operator, value });
      }
    } else {
      conditions.push({ key, op: Array.isArray(spec) ? "in" : "eq", value: spec });
    }
  }
  return conditions;
}
