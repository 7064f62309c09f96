// formatMoment against known values and against Moment itself (the library Obsidian formats daily-note
// names with; installed here as a dependency of the obsidian package), in several time zones.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
// Moment is the oracle here, not a dependency of the product: it comes with the obsidian dev package.
import moment from "moment";
import { ToolError } from "../../src/core/errors";
import { addDays, dayKey, daysBetween, formatMoment, localDayOf, localDayStart, ordinal, parseDay } from "../../src/core/dates-format";

const originalTz = process.env.TZ;
after(() => {
  if (originalTz === undefined) delete process.env.TZ;
  else process.env.TZ = originalTz;
});

// Node re-reads TZ when it is assigned, so one process can check several zones.
function inZone<T>(zone: string, run: () => T): T {
  const previous = process.env.TZ;
  process.env.TZ = zone;
  try {
    return run();
  } finally {
    if (previous === undefined) delete process.env.TZ;
    else process.env.TZ = previous;
  }
}

const TOKENS = [
  "YYYY", "YY", "Y", "Q", "Qo", "M", "Mo", "MM", "MMM", "MMMM", "D", "Do", "DD", "DDD", "DDDo", "DDDD",
  "d", "do", "dd", "ddd", "dddd", "E", "e", "W", "Wo", "WW", "w", "wo", "ww", "gg", "gggg", "GG", "GGGG",
  "H", "HH", "h", "hh", "k", "kk", "m", "mm", "s", "ss", "S", "SS", "SSS", "A", "a", "X", "x", "Z", "ZZ",
];

const ZONES = ["UTC", "America/New_York", "Asia/Kolkata", "Pacific/Auckland", "America/Santiago"];

describe("formatMoment", () => {
  test("a fixed instant in UTC, token by token", () => {
    // 2026-01-04T15:07:09.045Z: a Sunday, day 4 of the year, ISO week 1 of 2026, en week 2.
    const ms = Date.UTC(2026, 0, 4, 15, 7, 9, 45);
    const expected: Record<string, string> = {
      YYYY: "2026", YY: "26", Q: "1", Qo: "1st", M: "1", MM: "01", MMM: "Jan", MMMM: "January",
      D: "4", Do: "4th", DD: "04", DDD: "4", DDDD: "004", d: "0", dd: "Su", ddd: "Sun", dddd: "Sunday",
      E: "7", e: "0", W: "1", WW: "01", w: "2", ww: "02", gggg: "2026", GGGG: "2026",
      H: "15", HH: "15", h: "3", hh: "03", m: "7", mm: "07", s: "9", ss: "09", SSS: "045", A: "PM", a: "pm",
      X: String(Math.floor(ms / 1000)), x: String(ms), Z: "+00:00", ZZ: "+0000",
    };
    inZone("UTC", () => {
      for (const [token, value] of Object.entries(expected)) assert.equal(formatMoment(ms, token), value, token);
    });
  });

  test("week-years differ from calendar years around New Year", () => {
    inZone("UTC", () => {
      // 2024-12-30 is a Monday: ISO week 1 of 2025, but en week 1 of 2025 too (the week holding Jan 1).
      assert.equal(formatMoment(Date.UTC(2024, 11, 30, 12), "GGGG-[W]WW gggg-ww"), "2025-W01 2025-01");
      // 2027-01-01 is a Friday: ISO week 53 of 2026; en week 1 of 2027.
      assert.equal(formatMoment(Date.UTC(2027, 0, 1, 12), "GGGG-[W]WW gggg-ww"), "2026-W53 2027-01");
    });
  });

  test("literals in brackets and after a backslash are copied; other characters pass through", () => {
    inZone("UTC", () => {
      const ms = Date.UTC(2026, 2, 1, 9, 5);
      assert.equal(formatMoment(ms, "[Week] W [of] YYYY"), "Week 9 of 2026");
      assert.equal(formatMoment(ms, "YYYY/MM/[Daily] DD"), "2026/03/Daily 01");
      assert.equal(formatMoment(ms, "\\Y\\M YYYY"), "YM 2026");
      assert.equal(formatMoment(ms, "dddd, D MMMM YYYY"), "Sunday, 1 March 2026");
      assert.equal(formatMoment(ms, "YYYY-MM-DD-HHmm"), "2026-03-01-0905");
    });
  });

  test("uses local time: the same instant is a different day in Auckland", () => {
    const ms = Date.UTC(2026, 5, 30, 20, 0);
    assert.equal(inZone("UTC", () => formatMoment(ms, "YYYY-MM-DD HH:mm Z")), "2026-06-30 20:00 +00:00");
    assert.equal(inZone("Pacific/Auckland", () => formatMoment(ms, "YYYY-MM-DD HH:mm Z")), "2026-07-01 08:00 +12:00");
  });

  test("agrees with the local Date getters for the date and time tokens", () => {
    const ms = Date.UTC(2026, 9, 25, 1, 30, 15);
    for (const zone of ZONES) {
      inZone(zone, () => {
        const date = new Date(ms);
        const pad = (value: number) => String(value).padStart(2, "0");
        const expected = `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
        assert.equal(formatMoment(ms, "YYYY-MM-DD HH:mm:ss"), expected, zone);
      });
    }
  });

  test("agrees with Moment for every token, across zones and four centuries of instants", () => {
    for (const zone of ZONES) {
      inZone(zone, () => {
        fc.assert(
          fc.property(fc.integer({ min: Date.UTC(1900, 0, 1), max: Date.UTC(2300, 0, 1) }), (ms) => {
            for (const token of TOKENS) assert.equal(formatMoment(ms, token), moment(ms).format(token), `${zone} ${token} ${ms}`);
          }),
          { numRuns: 150 },
        );
      });
    }
  });

  test("agrees with Moment on whole daily-note formats people use", () => {
    const formats = ["YYYY-MM-DD", "YYYY/MM/YYYY-MM-DD", "DD.MM.YYYY", "dddd, MMMM Do YYYY", "gggg-[W]ww", "YYYY-[Q]Q", "MMM D, YYYY h:mm A", "[Journal] YYYY-MM-DD ddd"];
    inZone("America/New_York", () => {
      fc.assert(
        fc.property(fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2100, 0, 1) }), (ms) => {
          for (const format of formats) assert.equal(formatMoment(ms, format), moment(ms).format(format), format);
        }),
        { numRuns: 300 },
      );
    });
  });

  test("ordinals follow English rules", () => {
    assert.deepEqual([1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 101, 111, 112].map(ordinal), [
      "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "23rd", "101st", "111th", "112th",
    ]);
  });
});

describe("local days", () => {
  const now = Date.UTC(2026, 2, 31, 12); // 2026-03-31, noon UTC: the same day in the zones used here

  test("parseDay accepts the SPEC date forms", () => {
    inZone("UTC", () => {
      assert.equal(dayKey(parseDay("today", now, "date")), "2026-03-31");
      assert.equal(dayKey(parseDay(" Yesterday ", now, "date")), "2026-03-30");
      assert.equal(dayKey(parseDay("tomorrow", now, "date")), "2026-04-01");
      assert.equal(dayKey(parseDay("1d", now, "date")), "2026-03-30");
      assert.equal(dayKey(parseDay("2w", now, "date")), "2026-03-17");
      assert.equal(dayKey(parseDay("1m", now, "date")), "2026-02-28", "a month back from the 31st clamps to the month's end");
      assert.equal(dayKey(parseDay("1y", now, "date")), "2025-03-31");
      assert.equal(dayKey(parseDay("2026-01-05", now, "date")), "2026-01-05");
      assert.equal(dayKey(parseDay("2024-02", now, "from")), "2024-02-01");
      assert.equal(dayKey(parseDay("2024-02", now, "to", { endOfMonth: true })), "2024-02-29");
      assert.equal(dayKey(parseDay("2026-01-05T23:30:00-05:00", now, "date")), "2026-01-06");
    });
  });

  test("parseDay refuses impossible dates and other text, naming the accepted forms", () => {
    for (const bad of ["2026-02-30", "2026-13", "last week", "", "5q"]) {
      assert.throws(
        () => parseDay(bad, now, "from"),
        (error: unknown) => error instanceof ToolError && error.code === "invalid_argument" && /"from"/.test(error.message) && /YYYY-MM-DD/.test(error.message),
        bad,
      );
    }
  });

  test("day arithmetic is calendar arithmetic, even across a DST change", () => {
    inZone("America/New_York", () => {
      const before = { year: 2026, month: 3, day: 7 };
      assert.equal(dayKey(addDays(before, 1)), "2026-03-08");
      assert.equal(dayKey(addDays(before, 2)), "2026-03-09");
      assert.equal(daysBetween(before, { year: 2027, month: 3, day: 7 }), 365);
      assert.equal(daysBetween(before, { year: 2026, month: 3, day: 1 }), -6);
      const start = localDayStart({ year: 2026, month: 3, day: 8 });
      assert.equal(new Date(start).getHours(), 0);
      assert.deepEqual(localDayOf(start), { year: 2026, month: 3, day: 8 });
    });
  });
});
