// Events, Component and Plugin of the stand-in against obsidian-api.md §3 and checklist 1, 3, 13, 15.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { createStandInApp, type App } from "./app";
import { Component, Plugin, type PluginManifest } from "./component";
import { Events, setListenerErrorReporter } from "./events";
import { withVaultDir } from "./fixtures";

test("Events: listeners run synchronously, in order, over a copy of the list", () => {
  const events = new Events();
  const log: string[] = [];
  const late = (): void => {
    log.push("late");
  };
  events.on("ping", (value: string) => {
    log.push(`a:${value}`);
    // Changes during a trigger only affect the next trigger.
    events.on("ping", late);
    events.off("ping", second);
  });
  const second = (value: string): void => {
    log.push(`b:${value}`);
  };
  events.on("ping", second);
  events.trigger("ping", "1");
  log.push("after");
  assert.deepEqual(log, ["a:1", "b:1", "after"]);
  log.length = 0;
  events.trigger("ping", "2");
  assert.deepEqual(log, ["a:2", "late"]);
});

test("Events: the ctx argument becomes `this` for the listener", () => {
  const events = new Events();
  const ctx = { name: "owner" };
  const seen: string[] = [];
  events.on(
    "ping",
    function (this: { name: string }) {
      seen.push(this.name);
    },
    ctx,
  );
  events.trigger("ping");
  assert.deepEqual(seen, ["owner"]);
});

test("Events: a throwing listener does not stop the others and its error is reported, not thrown", () => {
  const events = new Events();
  const reported: unknown[] = [];
  const restore = setListenerErrorReporter((error) => reported.push(error));
  try {
    const log: string[] = [];
    const boom = new Error("boom");
    events.on("ping", () => log.push("first"));
    events.on("ping", () => {
      throw boom;
    });
    events.on("ping", () => log.push("third"));
    assert.doesNotThrow(() => events.trigger("ping"));
    assert.deepEqual(log, ["first", "third"]);
    assert.deepEqual(reported, [boom]);
  } finally {
    restore();
  }
});

test("Events: by default a listener's error is re-thrown on a later tick", async () => {
  const events = new Events();
  const boom = new Error("later");
  // The test runner listens for uncaught exceptions too; step it aside while this one is expected.
  const runnerListeners = process.listeners("uncaughtException");
  process.removeAllListeners("uncaughtException");
  const caught: unknown[] = [];
  const capture = (error: unknown): void => {
    caught.push(error);
  };
  process.on("uncaughtException", capture);
  try {
    events.on("ping", () => {
      throw boom;
    });
    let after = false;
    events.on("ping", () => {
      after = true;
    });
    events.trigger("ping");
    assert.equal(after, true);
    assert.deepEqual(caught, [], "not thrown synchronously");
    await new Promise((resolve) => setTimeout(resolve, 10));
    assert.deepEqual(caught, [boom]);
  } finally {
    process.off("uncaughtException", capture);
    for (const listener of runnerListeners) process.on("uncaughtException", listener);
  }
});

test("Events: offref removes exactly that registration; off removes by callback", () => {
  const events = new Events();
  const log: string[] = [];
  const fn = (): void => {
    log.push("fn");
  };
  const first = events.on("ping", fn);
  events.on("ping", fn);
  events.on("ping", () => log.push("other"));
  events.offref(first);
  events.trigger("ping");
  assert.deepEqual(log, ["fn", "other"]);
  assert.equal(events.listenerCount("ping"), 2);
  events.off("ping", fn);
  log.length = 0;
  events.trigger("ping");
  assert.deepEqual(log, ["other"]);
});

class Logged extends Component {
  constructor(
    private readonly name: string,
    private readonly log: string[],
  ) {
    super();
  }

  override onload(): void {
    this.log.push(`${this.name}.onload`);
  }

  override onunload(): void {
    this.log.push(`${this.name}.onunload`);
  }
}

test("Component: load runs onload then loads the children; unload unloads children, then undo last-first, then onunload", () => {
  const log: string[] = [];
  const parent = new Logged("parent", log);
  const child = parent.addChild(new Logged("child", log));
  parent.register(() => log.push("undo 1"));
  parent.register(() => log.push("undo 2"));
  parent.load();
  assert.equal(parent.isLoaded, true);
  assert.equal(child.isLoaded, true);
  assert.deepEqual(log, ["parent.onload", "child.onload"]);
  log.length = 0;
  parent.load();
  assert.deepEqual(log, [], "a second load does nothing");
  const late = parent.addChild(new Logged("late", log));
  assert.deepEqual(log, ["late.onload"], "a child added to a loaded parent loads at once");
  log.length = 0;
  parent.unload();
  assert.deepEqual(log, ["late.onunload", "child.onunload", "undo 2", "undo 1", "parent.onunload"]);
  assert.equal(late.isLoaded, false);
  log.length = 0;
  parent.unload();
  assert.deepEqual(log, [], "a second unload does nothing");
});

test("Component: registerEvent, registerDomEvent and registerInterval are undone on unload", async () => {
  const events = new Events();
  const component = new Component();
  component.load();
  let pings = 0;
  component.registerEvent(events.on("ping", () => pings++));
  const target = new EventTarget();
  let clicks = 0;
  component.registerDomEvent(target, "click", () => clicks++);
  let ticks = 0;
  component.registerInterval(setInterval(() => ticks++, 1) as unknown as number);
  events.trigger("ping");
  target.dispatchEvent(new Event("click"));
  assert.equal(pings, 1);
  assert.equal(clicks, 1);
  component.unload();
  assert.equal(events.listenerCount("ping"), 0);
  events.trigger("ping");
  target.dispatchEvent(new Event("click"));
  const ticksAtUnload = ticks;
  await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(pings, 1);
  assert.equal(clicks, 1);
  assert.equal(ticks, ticksAtUnload, "the interval was cleared");
});

const MANIFEST: PluginManifest = {
  id: "demo-tool",
  name: "Demo Tool",
  version: "1.0.0",
  minAppVersion: "1.8.7",
  description: "A test plugin",
  author: "tests",
  dir: ".obsidian/plugins/demo-tool",
};

class DemoPlugin extends Plugin {}

async function withPlugin(fn: (app: App, plugin: DemoPlugin, dir: string) => Promise<void>): Promise<void> {
  await withVaultDir({ "Note.md": "text" }, async (dir) => {
    const app = createStandInApp({ vaultDir: dir });
    const plugin = new DemoPlugin(app, { ...MANIFEST });
    plugin.load();
    await fn(app, plugin, dir);
  });
}

test("Plugin.addCommand prefixes the id with `<manifest.id>:` and the name with `<manifest.name>: `", async () => {
  await withPlugin(async (app, plugin) => {
    const command = plugin.addCommand({ id: "run", name: "Run it", callback: () => undefined });
    assert.equal(command.id, "demo-tool:run");
    assert.equal(command.name, "Demo Tool: Run it");
    assert.equal(app.commands.commands.get("demo-tool:run")?.name, "Demo Tool: Run it");
    assert.equal(app.commands.commands.has("run"), false);
  });
});

test("Commands: checkCallback(true) only checks and a falsy answer hides the command; running calls checkCallback(false)", async () => {
  await withPlugin(async (app, plugin) => {
    let enabled = false;
    const checks: boolean[] = [];
    let ran = 0;
    let callbackRan = 0;
    plugin.addCommand({
      id: "guarded",
      name: "Guarded",
      checkCallback: (checking) => {
        checks.push(checking);
        if (!enabled) return false;
        if (!checking) ran++;
        return true;
      },
      // checkCallback takes precedence over callback.
      callback: () => callbackRan++,
    });
    assert.equal(app.commands.isAvailable("demo-tool:guarded"), false);
    assert.equal(app.commands.executeCommandById("demo-tool:guarded"), false);
    assert.deepEqual(checks, [true, true], "only checked, never run");
    assert.equal(ran, 0);
    enabled = true;
    checks.length = 0;
    assert.equal(app.commands.isAvailable("demo-tool:guarded"), true);
    assert.equal(ran, 0, "isAvailable never acts");
    assert.equal(app.commands.executeCommandById("demo-tool:guarded"), true);
    assert.deepEqual(checks, [true, true, false]);
    assert.equal(ran, 1);
    assert.equal(callbackRan, 0);
    assert.equal(app.commands.executeCommandById("demo-tool:missing"), false);
  });
});

test("Commands: a truthy non-boolean check counts as available; callback-only commands always run", async () => {
  await withPlugin(async (app, plugin) => {
    let ran = 0;
    plugin.addCommand({ id: "loose", name: "Loose", checkCallback: (checking) => (checking ? (1 as unknown as boolean) : void ran++) });
    let plain = 0;
    plugin.addCommand({ id: "plain", name: "Plain", callback: () => plain++ });
    assert.equal(app.commands.isAvailable("demo-tool:loose"), true);
    assert.equal(app.commands.executeCommandById("demo-tool:loose"), true);
    assert.equal(ran, 1);
    assert.equal(app.commands.isAvailable("demo-tool:plain"), true);
    assert.equal(plain, 0);
    assert.equal(app.commands.executeCommandById("demo-tool:plain"), true);
    assert.equal(plain, 1);
  });
});

test("Commands: editor callbacks come first and need an active markdown view", async () => {
  await withPlugin(async (app, plugin) => {
    const seen: string[] = [];
    plugin.addCommand({
      id: "edit",
      name: "Edit",
      editorCheckCallback: (checking, editor) => {
        seen.push(`check:${checking}:${(editor as { getValue(): string }).getValue()}`);
        return true;
      },
      editorCallback: () => seen.push("editorCallback"),
      checkCallback: () => {
        seen.push("checkCallback");
        return true;
      },
      callback: () => seen.push("callback"),
    });
    plugin.addCommand({ id: "edit-plain", name: "Edit plain", editorCallback: () => seen.push("plain editorCallback") });
    assert.equal(app.commands.isAvailable("demo-tool:edit"), false, "no editor, no editor command");
    assert.equal(app.commands.executeCommandById("demo-tool:edit-plain"), false);
    assert.deepEqual(seen, []);
    await app.finishStartup();
    const note = app.vault.getFileByPath("Note.md");
    assert.ok(note);
    await app.workspace.getLeaf(true).openFile(note);
    assert.equal(app.commands.executeCommandById("demo-tool:edit"), true);
    assert.deepEqual(seen, ["check:true:text", "check:false:text"]);
    assert.equal(app.commands.executeCommandById("demo-tool:edit-plain"), true);
    assert.deepEqual(seen.slice(2), ["plain editorCallback"]);
  });
});

test("Plugin unload removes its commands, status bar items, ribbon icons and setting tabs", async () => {
  await withPlugin(async (app, plugin) => {
    plugin.addCommand({ id: "run", name: "Run", callback: () => undefined });
    plugin.addCommand({ id: "gone", name: "Gone", callback: () => undefined });
    plugin.removeCommand("gone");
    assert.equal(app.commands.commands.has("demo-tool:gone"), false, "removeCommand takes the unprefixed id");
    const item = plugin.addStatusBarItem();
    item.textContent = "status";
    let clicked = 0;
    const ribbon = plugin.addRibbonIcon("dice", "Roll", () => clicked++);
    const tab = { display: () => undefined };
    plugin.addSettingTab(tab);
    assert.equal(app.commands.commands.has("demo-tool:run"), true);
    assert.equal(item.parentElement, app.statusBar);
    assert.equal(app.ribbon.get("demo-tool:Roll"), ribbon);
    ribbon.dispatchEvent(new window.MouseEvent("click"));
    assert.equal(clicked, 1);
    assert.ok(app.setting.tabs.includes(tab));
    plugin.unload();
    assert.equal(app.commands.commands.has("demo-tool:run"), false);
    assert.equal(item.parentElement, null);
    assert.equal(app.statusBar.contains(item), false);
    assert.equal(app.ribbon.has("demo-tool:Roll"), false);
    assert.equal(app.setting.tabs.includes(tab), false);
  });
});

test("Plugin.loadData is null without data.json; saveData writes 2-space JSON to <manifest.dir>/data.json", async () => {
  await withPlugin(async (_app, plugin, dir) => {
    const file = path.join(dir, ".obsidian/plugins/demo-tool/data.json");
    assert.equal(existsSync(file), false);
    assert.equal(await plugin.loadData(), null);
    const data = { server: { port: 1234 }, users: ["a"] };
    await plugin.saveData(data);
    assert.equal(readFileSync(file, "utf8"), JSON.stringify(data, null, 2));
    assert.equal(readFileSync(file, "utf8"), '{\n  "server": {\n    "port": 1234\n  },\n  "users": [\n    "a"\n  ]\n}');
    assert.deepEqual(await plugin.loadData(), data);
  });
});
