// Moment-style formatting, because Obsidian's Daily Notes and Templates settings store Moment
// formats (`YYYY-MM-DD`, `dddd, D MMMM YYYY`, `gggg-[W]ww`) and file names must come out exactly as
// Obsidian would write them. English names and Moment's default "en" week (weeks start on Sunday,
// week 1 contains January 1st), all in local time. Also the local calendar days the journal tools count in.
import { ToolError } from "./errors";

const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

// Longest first, as Moment's tokenizer tries them; anything else is copied as it is.
const TOKEN = new RegExp(
  [
    String.raw`\[[^\[]*\]`,
    String.raw`\\.`,
    "YYYYYY|YYYYY|YYYY|YY|Y",
    "Qo|Q",
    "MMMM|MMM|MM|Mo|M",
    "DDDo|DDDD|DDD|Do|DD|D",
    "dddd|ddd|dd|do|d",
    "E|e",
    "WW|Wo|W|ww|wo|w",
    "ggggg|gggg|gg|GGGGG|GGGG|GG",
    "HH|H|hh|h|kk|k",
    "mm|m|ss|s",
    "S{1,9}",
    "A|a",
    "X|x",
    "ZZ|Z",
  ].join("|"),
  "g",
);

function pad(value: number, width: number): string {
  const sign = value < 0 ? "-" : "";
  return sign + String(Math.abs(value)).padStart(width, "0");
}

/** `1st`, `2nd`, `3rd`, `4th`, `11th`, `22nd`, as Moment's English locale writes them. */
export function ordinal(value: number): string {
  const lastTwo = value % 100;
  if (lastTwo >= 11 && lastTwo <= 13) return `${value}th`;
  const suffix = ["th", "st", "nd", "rd"][value % 10] ?? "th";
  return `${value}${suffix}`;
}

function daysInYear(year: number): number {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 366 : 365;
}

/** 1-based day of the year, computed on the calendar (UTC arithmetic, so DST cannot shift it). */
function dayOfYear(year: number, month: number, day: number): number {
  return Math.round((Date.UTC(year, month, day) - Date.UTC(year, 0, 1)) / 86_400_000) + 1;
}

// Moment's week rules: `dow` is the first day of the week, `doy` fixes which January day is always in
// week 1 (ISO: Monday and Jan 4th → dow 1, doy 4; en: Sunday and Jan 1st → dow 0, doy 6).
function firstWeekOffset(year: number, dow: number, doy: number): number {
  const fwd = 7 + dow - doy;
  const fwdWeekday = (7 + new Date(Date.UTC(year, 0, fwd)).getUTCDay() - dow) % 7;
  return -fwdWeekday + fwd - 1;
}

function weeksInYear(year: number, dow: number, doy: number): number {
  return (daysInYear(year) - firstWeekOffset(year, dow, doy) + firstWeekOffset(year + 1, dow, doy)) / 7;
}

function weekOfYear(year: number, yearDay: number, dow: number, doy: number): { week: number; year: number } {
  const week = Math.floor((yearDay - firstWeekOffset(year, dow, doy) - 1) / 7) + 1;
  if (week < 1) return { week: week + weeksInYear(year - 1, dow, doy), year: year - 1 };
  const inYear = weeksInYear(year, dow, doy);
  if (week > inYear) return { week: week - inYear, year: year + 1 };
  return { week, year };
}

function offsetText(date: Date, separator: string): string {
  const minutes = -date.getTimezoneOffset();
  const sign = minutes < 0 ? "-" : "+";
  const absolute = Math.abs(minutes);
  return `${sign}${pad(Math.floor(absolute / 60), 2)}${separator}${pad(absolute % 60, 2)}`;
}

function yearText(year: number, width: number): string {
  return year > 9999 && width === 4 ? `+${year}` : pad(year, width);
}

function tokenValue(token: string, date: Date, ms: number): string {
  const year = date.getFullYear();
  const month = date.getMonth();
  const day = date.getDate();
  const weekday = date.getDay();
  const hours = date.getHours();
  const yearDay = (): number => dayOfYear(year, month, day);
  const iso = (): { week: number; year: number } => weekOfYear(year, yearDay(), 1, 4);
  const local = (): { week: number; year: number } => weekOfYear(year, yearDay(), 0, 6);
  switch (token) {
    case "YYYYYY": return (year < 0 ? "-" : "+") + pad(Math.abs(year), 6);
    case "YYYYY": return pad(year, 5);
    case "YYYY": return yearText(year, 4);
    case "YY": return pad(Math.abs(year) % 100, 2);
    case "Y": return year <= 9999 ? pad(year, 4) : `+${year}`;
    case "Q": return String(Math.floor(month / 3) + 1);
    case "Qo": return ordinal(Math.floor(month / 3) + 1);
    case "M": return String(month + 1);
    case "Mo": return ordinal(month + 1);
    case "MM": return pad(month + 1, 2);
    case "MMM": return MONTHS[month]!.slice(0, 3);
    case "MMMM": return MONTHS[month]!;
    case "D": return String(day);
    case "Do": return ordinal(day);
    case "DD": return pad(day, 2);
    case "DDD": return String(yearDay());
    case "DDDo": return ordinal(yearDay());
    case "DDDD": return pad(yearDay(), 3);
    case "d": return String(weekday);
    case "do": return ordinal(weekday);
    case "dd": return WEEKDAYS[weekday]!.slice(0, 2);
    case "ddd": return WEEKDAYS[weekday]!.slice(0, 3);
    case "dddd": return WEEKDAYS[weekday]!;
    case "e": return String(weekday);
    case "E": return String(weekday === 0 ? 7 : weekday);
    case "W": return String(iso().week);
    case "Wo": return ordinal(iso().week);
    case "WW": return pad(iso().week, 2);
    case "w": return String(local().week);
    case "wo": return ordinal(local().week);
    case "ww": return pad(local().week, 2);
    case "gg": return pad(Math.abs(local().year) % 100, 2);
    case "gggg": return pad(local().year, 4);
    case "ggggg": return pad(local().year, 5);
    case "GG": return pad(Math.abs(iso().year) % 100, 2);
    case "GGGG": return pad(iso().year, 4);
    case "GGGGG": return pad(iso().year, 5);
    case "H": return String(hours);
    case "HH": return pad(hours, 2);
    case "h": return String(hours % 12 || 12);
    case "hh": return pad(hours % 12 || 12, 2);
    case "k": return String(hours || 24);
    case "kk": return pad(hours || 24, 2);
    case "m": return String(date.getMinutes());
    case "mm": return pad(date.getMinutes(), 2);
    case "s": return String(date.getSeconds());
    case "ss": return pad(date.getSeconds(), 2);
    case "A": return hours < 12 ? "AM" : "PM";
    case "a": return hours < 12 ? "am" : "pm";
    case "X": return String(Math.floor(ms / 1000));
    case "x": return String(ms);
    case "Z": return offsetText(date, ":");
    case "ZZ": return offsetText(date, "");
    default:
      if (/^S+$/.test(token)) return pad(date.getMilliseconds(), 3).padEnd(token.length, "0").slice(0, token.length);
      return token;
  }
}

/** The local time `ms` written in a Moment format, e.g. `formatMoment(t, "dddd, D MMMM YYYY")`. */
export function formatMoment(ms: number, format: string): string {
  const date = new Date(ms);
  return format.replace(TOKEN, (token) => {
    if (token.startsWith("[")) return token.slice(1, -1);
    if (token.startsWith("\\")) return token.slice(1);
    return tokenValue(token, date, ms);
  });
}

/** A calendar day in the user's time zone; month is 1-based. */
export interface LocalDay {
  year: number;
  month: number;
  day: number;
}

export function localDayOf(ms: number): LocalDay {
  const date = new Date(ms);
  return { year: date.getFullYear(), month: date.getMonth() + 1, day: date.getDate() };
}

/** Local midnight of the day (or the first moment of it where midnight does not exist). */
export function localDayStart(day: LocalDay): number {
  return new Date(day.year, day.month - 1, day.day).getTime();
}

export function addDays(day: LocalDay, days: number): LocalDay {
  const date = new Date(day.year, day.month - 1, day.day + days);
  return { year: date.getFullYear(), month: date.getMonth() + 1, day: date.getDate() };
}

/** Calendar days from `from` to `to`, 0 when equal, negative when `to` is earlier. */
export function daysBetween(from: LocalDay, to: LocalDay): number {
  return Math.round((Date.UTC(to.year, to.month - 1, to.day) - Date.UTC(from.year, from.month - 1, from.day)) / 86_400_000);
}

export function dayKey(day: LocalDay): string {
  return `${pad(day.year, 4)}-${pad(day.month, 2)}-${pad(day.day, 2)}`;
}

const DAY_FORMS = "YYYY-MM-DD, YYYY-MM, an RFC 3339 time, today, yesterday, tomorrow, or a span back from today like 1d, 2w, 6m, 1y";

function invalidDay(input: string, name: string): ToolError {
  return new ToolError("invalid_argument", `Argument "${name}" is not a day I understand: "${input.slice(0, 40)}". Use ${DAY_FORMS}.`, {
    details: { argument: name },
  });
}

/**
 * The local calendar day an agent means (SPEC §10 date forms). A month (`YYYY-MM`) is its first day,
 * or its last one with `endOfMonth` (the `to` of a range); a span counts back from today.
 */
export function parseDay(input: string, now: number, name: string, options: { endOfMonth?: boolean } = {}): LocalDay {
  const text = input.trim().toLowerCase();
  const today = localDayOf(now);
  if (text === "today") return today;
  if (text === "yesterday") return addDays(today, -1);
  if (text === "tomorrow") return addDays(today, 1);
  const span = /^(\d{1,4})\s*([hdwmy])$/.exec(text);
  if (span) {
    const amount = Number(span[1]);
    switch (span[2]) {
      case "h": return localDayOf(now - amount * 3_600_000);
      case "d": return addDays(today, -amount);
      case "w": return addDays(today, -7 * amount);
      case "m": return clampedDay(today.year, today.month - amount, today.day);
      default: return clampedDay(today.year - amount, today.month, today.day);
    }
  }
  const month = /^(\d{4})-(\d{2})$/.exec(text);
  if (month) {
    const year = Number(month[1]);
    const monthNumber = Number(month[2]);
    if (monthNumber < 1 || monthNumber > 12) throw invalidDay(input, name);
    return options.endOfMonth ? addDays({ year, month: monthNumber + 1, day: 1 }, -1) : { year, month: monthNumber, day: 1 };
  }
  const date = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (date) {
    const day = { year: Number(date[1]), month: Number(date[2]), day: Number(date[3]) };
    const real = addDays(day, 0);
    if (real.year !== day.year || real.month !== day.month || real.day !== day.day) throw invalidDay(input, name);
    return day;
  }
  if (/^\d{4}-\d{2}-\d{2}t\d{2}:\d{2}(:\d{2}(\.\d+)?)?(z|[+-]\d{2}:?\d{2})?$/.test(text)) {
    const ms = Date.parse(text.toUpperCase());
    if (!Number.isNaN(ms)) return localDayOf(ms);
  }
  throw invalidDay(input, name);
}

/** `month` may run outside 1..12; a day past the month's end becomes its last day (Mar 31 − 1m = Feb 28). */
function clampedDay(year: number, month: number, day: number): LocalDay {
  const first = addDays({ year, month, day: 1 }, 0);
  const last = addDays({ year: first.year, month: first.month + 1, day: 1 }, -1);
  return { year: first.year, month: first.month, day: Math.min(day, last.day) };
}
