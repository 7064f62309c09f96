// JSON pointers as RFC 6901 defines them (its section 5 examples), and errors that say where.
import { test } from "node:test";
import assert from "node:assert/strict";
import { jsonFault, parseJson, parsePointer, pointerOf, resolvePointer } from "../../../src/core/formats/json";
import type { ToolError } from "../../../src/core/errors";

const RFC = { foo: ["bar", "baz"], "": 0, "a/b": 1, "c%d": 2, "e^f": 3, "g|h": 4, "i\\j": 5, 'k"l': 6, " ": 7, "m~n": 8 };

test("the RFC 6901 examples resolve, as strings and as URI fragments", () => {
  const cases: Array<[string, unknown]> = [
    ["", RFC], ["/foo", ["bar", "baz"]], ["/foo/0", "bar"], ["/", 0], ["/a~1b", 1], ["/c%d", 2], ["/e^f", 3],
    ["/g|h", 4], ["/i\\j", 5], ['/k"l', 6], ["/ ", 7], ["/m~0n", 8],
    ["#", RFC], ["#/foo/0", "bar"], ["#/a~1b", 1], ["#/c%25d", 2], ["#/%20", 7], ["#/m~0n", 8],
  ];
  for (const [pointer, expected] of cases) assert.deepEqual(resolvePointer("x.json", RFC, parsePointer(pointer)), expected, pointer);
});

test("~01 is ~1, not /: the escapes are undone in the right order, and written back the same way", () => {
  assert.deepEqual(parsePointer("/~01"), ["~1"]);
  assert.equal(pointerOf(["~1", "a/b"]), "/~01/a~1b");
});

test("bad pointers and missing members are refused with what is there", () => {
  assert.throws(() => parsePointer("foo"), (error: ToolError) => error.code === "invalid_argument" && /start with `\/`/.test(error.message));
  assert.throws(() => parsePointer("/a~2"), /`~` must be followed by 0/);
  assert.throws(() => resolvePointer("x.json", RFC, parsePointer("/foo/2")), (error: ToolError) => error.code === "not_found" && /an array of 2/.test(error.message));
  assert.throws(() => resolvePointer("x.json", RFC, parsePointer("/foo/01")), /not_found|nothing at/);
  assert.throws(() => resolvePointer("x.json", RFC, parsePointer("/foo/-")), /nothing at \/foo\/-/);
  assert.throws(() => resolvePointer("x.json", RFC, parsePointer("/nope")), /the keys "foo", "", "a\/b"/);
});

test("invalid JSON names the line and column of the fault", () => {
  assert.throws(() => parseJson("x.json", '{\n  "a": 1,\n  }\n'), (error: ToolError) => {
    assert.equal(error.code, "invalid_argument");
    assert.deepEqual(error.details, { path: "x.json", line: 3, column: 3 });
    assert.match(error.message, /not valid JSON: a comma before `}` \(trailing commas are not allowed\) at line 3, column 3/);
    return true;
  });
  assert.throws(() => parseJson("x.json", '{"a": [1,\n2'), (error: ToolError) => error.details?.line === 2 && error.details?.column === 2);
});

test("the scan finds the first fault of each kind, and none in valid JSON", () => {
  const cases: Array<[string, number, RegExp]> = [
    ['{"a": "line\nbreak"}', 11, /control character/],
    ['{"a": "\\x"}', 7, /unknown escape/],
    ["[1, 2,]", 6, /comma before `]`/],
    ["{'a': 1}", 1, /double-quoted property name/],
    ['{"a" 1}', 5, /expected `:`/],
    ["[1 2]", 3, /expected `,` or `]`/],
    ["[tru]", 1, /expected a value/],
    ["01", 1, /after the end/],
    ['"open', 5, /not closed/],
    ["", 0, /expected a value, found the end/],
    ["[".repeat(3000), 2001, /nests too deep/],
  ];
  for (const [text, offset, reason] of cases) {
    const fault = jsonFault(text);
    assert.equal(fault?.offset, offset, text.slice(0, 20));
    assert.match(fault?.reason ?? "", reason);
  }
  for (const valid of ['{"a": [1, -2.5e3, true, false, null, "\\u00e9\\n"], "b": {}}', " [] ", '"x"', "0"]) {
    assert.doesNotThrow(() => JSON.parse(valid));
    assert.equal(jsonFault(valid), null, valid);
  }
});
