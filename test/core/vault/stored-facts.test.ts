import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import type { TaskItem } from "../../../src/core/notes/structure";
import { FactsTable, factsRecord, packTasks, unpackTasks } from "../../../src/core/vault/stored-facts";

const task = fc.record({
  line: fc.integer({ min: 1, max: 100_000 }),
  text: fc.string({ unit: "binary", maxLength: 40 }),
  status: fc.constantFrom(" ", "x", "X", "-", "/", "é"),
  heading: fc.option(fc.constantFrom("Plan", "Done", "Größe 東京", "", "a \"quoted\" \\ heading"), { nil: null }),
});

test("tasks packed into one string come back exactly, done derived from the status", () => {
  fc.assert(
    fc.property(fc.array(task, { maxLength: 12 }), (raw) => {
      const tasks: TaskItem[] = raw.map((item) => ({ ...item, done: item.status !== " " }));
      const packed = packTasks(tasks);
      assert.deepEqual(unpackTasks(packed), tasks);
      assert.doesNotMatch(packed, /[\u0100-\uffff]/, "only one-byte characters, whatever the tasks hold");
      if (tasks.length === 0) assert.equal(packed, "");
    }),
    { numRuns: 500 },
  );
});

test("each heading is stored once however many tasks sit under it", () => {
  const tasks: TaskItem[] = Array.from({ length: 50 }, (_, i) => ({ line: i + 3, text: `task ${i}`, done: false, status: " ", heading: "A rather long heading of a section" }));
  const packed = packTasks(tasks);
  assert.equal(packed.split("A rather long heading").length - 1, 1);
  assert.deepEqual(unpackTasks(packed), tasks);
});

test("tasks with an emoji date or CJK text pack into a string of one-byte characters that reads back the same", () => {
  const tasks: TaskItem[] = [
    { line: 4, text: "Pay the rent 📅 2024-09-10", done: false, status: " ", heading: "Größe 東京" },
    { line: 5, text: "会議の準備 ✅ 2024-09-11", done: true, status: "x", heading: "Größe 東京" },
  ];
  const packed = packTasks(tasks);
  assert.doesNotMatch(packed, /[\u0100-\uffff]/);
  assert.match(packed, /\\ud83d\\udcc5/, "the emoji as its two escaped halves");
  assert.match(packed, /Größe/, "Latin-1 letters stay as they are");
  assert.deepEqual(unpackTasks(packed), tasks);
});

test("malformed packed tasks are refused with the call that repairs them", () => {
  for (const bad of ["[", "{}", "[[], 1, \" \", 0]", "[[\"h\"], 1, \" \", 3, \"t\"]", "[[], \"1\", \" \", -1, \"t\"]", "[[1], 1, \" \", 0, \"t\"]"]) {
    assert.throws(() => unpackTasks(bad), /rebuild the index/, bad);
  }
});

test("the table stores a title equal to the file's name as none, and reads every fact back", () => {
  const table = new FactsTable();
  const tasks: TaskItem[] = [{ line: 4, text: "call back", done: true, status: "x", heading: null }];
  table.setFacts("notes/Meeting.md", { title: "Meeting", tags: ["work", "work/meetings"], aliases: [], tasks, words: 12 });
  table.setFacts("notes/Other.md", { title: "Another title", tags: [], aliases: ["Other"], tasks: [], words: 0 });
  const meeting = table.get("notes/Meeting.md")!;
  assert.equal(meeting.title, "Meeting");
  assert.equal(meeting.record().title, null);
  assert.deepEqual(meeting.tags, ["work", "work/meetings"]);
  assert.deepEqual(meeting.tasks, tasks);
  assert.equal(meeting.words, 12);
  const other = table.get("notes/Other.md")!;
  assert.equal(other.title, "Another title");
  assert.deepEqual(other.aliases, ["Other"]);
  assert.deepEqual(other.tasks, []);
  assert.throws(() => other.tags.push("x"), TypeError, "the shared empty list cannot be changed");
  assert.deepEqual(factsRecord("a/Canvas board.canvas", { title: "Canvas board", tags: [], aliases: [], tasks: [], words: 3 }).title, null);
  table.delete("notes/Other.md");
  assert.equal(table.get("notes/Other.md"), undefined);
  assert.equal(table.size, 1);
});
