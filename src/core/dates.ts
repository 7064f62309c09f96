// Dates from agents come in many spellings (SPEC §10): YYYY-MM-DD, RFC 3339, YYYY-MM, "today", or a
// span back from now such as 7d, 2w, 6m, 1y, 12h.
import { ToolError } from "./errors";

const SPAN_MS: Record<string, number> = {
  h: 3_600_000,
  d: 86_400_000,
  w: 7 * 86_400_000,
};

/** Milliseconds since the epoch for the start of the given moment (UTC for plain dates). */
export function parseDateArg(input: string, now: number, name = "date"): number {
  const text = input.trim().toLowerCase();
  if (text === "today") return startOfUtcDay(now);
  if (text === "yesterday") return startOfUtcDay(now) - SPAN_MS.d!;
  const span = /^(\d{1,4})\s*([hdwmy])$/.exec(text);
  if (span) {
    const amount = Number(span[1]);
    const unit = span[2]!;
    if (unit === "m" || unit === "y") {
      const date = new Date(now);
      if (unit === "m") date.setUTCMonth(date.getUTCMonth() - amount);
      else date.setUTCFullYear(date.getUTCFullYear() - amount);
      return date.getTime();
    }
    return now - amount * SPAN_MS[unit]!;
  }
  if (/^\d{4}-\d{2}$/.test(text)) return checked(Date.parse(`${text}-01T00:00:00Z`), input, name);
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) return checked(Date.parse(`${text}T00:00:00Z`), input, name);
  if (/^\d{4}-\d{2}-\d{2}t\d{2}:\d{2}(:\d{2}(\.\d+)?)?(z|[+-]\d{2}:?\d{2})?$/.test(text)) {
    return checked(Date.parse(text.toUpperCase()), input, name);
  }
  throw invalid(input, name);
}

function checked(value: number, input: string, name: string): number {
  if (Number.isNaN(value)) throw invalid(input, name);
  return value;
}

function invalid(input: string, name: string): ToolError {
  return new ToolError(
    "invalid_argument",
    `Argument "${name}" is not a date I understand: "${input.slice(0, 40)}". Use YYYY-MM-DD, YYYY-MM, an RFC 3339 time, "today", or a span like 7d, 2w, 6m, 1y, 12h.`,
    { details: { argument: name } },
  );
}

export function startOfUtcDay(ms: number): number {
  const date = new Date(ms);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate());
}

export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}
