// The stand-in's UI layer against obsidian-api.md §8: the DOM helpers, Setting rows and their
// components' event rules, modals and suggest modals, notices and setting tabs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { installDom } from "./ui/dom";
import { Setting } from "./ui/setting";
import { Modal, SuggestModal, FuzzySuggestModal, chooseSuggestion, openModals, setQuery, suggestions } from "./ui/modal";
import { Notice, notices, clearNotices } from "./ui/notice";
import { PluginSettingTab, openSettingTab, closeSettingTab } from "./ui/setting-tab";

installDom();

test("createEl: a string means cls, attr null removes, the callback runs before the element joins its parent", () => {
  const parent = document.createElement("div");
  const first = parent.createEl("p", "lead");
  assert.equal(first.className, "lead");
  assert.equal(first.parentElement, parent);

  let attachedDuringCallback: boolean | null = null;
  const second = parent.createEl("a", { cls: ["x", "y"], text: "hello", attr: { "data-a": 1, title: null }, href: "https://example.org" }, (el) => {
    attachedDuringCallback = el.parentElement !== null;
  });
  assert.equal(attachedDuringCallback, false);
  assert.equal(second.className, "x y");
  assert.equal(second.textContent, "hello");
  assert.equal(second.getAttribute("data-a"), "1");
  assert.equal(second.hasAttribute("title"), false);
  assert.equal(second.getAttribute("href"), "https://example.org");

  const prepended = createEl("span", { text: "top", parent, prepend: true });
  assert.equal(parent.firstChild, prepended);
  const empty = parent.createDiv({ text: "" });
  assert.equal(empty.textContent, "", "an empty text is not set");
  assert.equal(parent.createSpan().tagName, "SPAN");
  assert.equal(parent.children.length, 5);
});

test("setText appends a fragment or sets the text; empty, classes, attributes and detach work on any element", () => {
  const el = createDiv();
  el.setText("plain");
  assert.equal(el.textContent, "plain");
  el.setText(createFragment((fragment) => fragment.createEl("strong", { text: "bold" })));
  assert.equal(el.innerHTML, "<strong>bold</strong>");
  el.addClass("a", "b");
  el.toggleClass("a", false);
  assert.equal(el.className, "b");
  el.setAttr("aria-label", "label");
  assert.equal(el.getAttribute("aria-label"), "label");
  el.setAttr("aria-label", null);
  assert.equal(el.hasAttribute("aria-label"), false);
  const parent = createDiv();
  parent.appendChild(el);
  el.detach();
  assert.equal(parent.children.length, 0);
  el.empty();
  assert.equal(el.childNodes.length, 0);
});

test("Setting builds Obsidian's row structure; a heading row carries its class", () => {
  const container = createDiv();
  const row = new Setting(container).setName("Port").setDesc("Where the server listens.");
  assert.equal(row.settingEl.className, "setting-item");
  assert.equal(container.querySelector(".setting-item-info > .setting-item-name")?.textContent, "Port");
  assert.equal(container.querySelector(".setting-item-info > .setting-item-description")?.textContent, "Where the server listens.");
  assert.ok(container.querySelector(".setting-item > .setting-item-control"));
  const heading = new Setting(container).setName("Server").setHeading();
  assert.ok(heading.settingEl.classList.contains("setting-item-heading"));
  const fragment = createFragment((f) => f.createEl("em", { text: "rich" }));
  row.setDesc(fragment);
  assert.equal(row.descEl.querySelector("em")?.textContent, "rich");
});

test("text fires onChange on every input event; dropdown on change; a disabled button does not click", async () => {
  const container = createDiv();
  const typed: string[] = [];
  const picked: string[] = [];
  let clicks = 0;
  new Setting(container)
    .addText((text) => text.setValue("a").onChange((value) => typed.push(value)))
    .addDropdown((dropdown) => dropdown.addOption("one", "One").addOption("two", "Two").setValue("one").onChange((value) => picked.push(value)))
    .addButton((button) => button.setButtonText("Go").onClick(() => void clicks++));
  const input = container.querySelector("input")!;
  input.value = "ab";
  input.dispatchEvent(new window.Event("input"));
  input.value = "abc";
  input.dispatchEvent(new window.Event("input"));
  assert.deepEqual(typed, ["ab", "abc"]);
  assert.deepEqual(picked, [], "setValue does not fire onChange for a dropdown");
  const select = container.querySelector("select")!;
  select.value = "two";
  select.dispatchEvent(new window.Event("change"));
  assert.deepEqual(picked, ["two"]);
  const button = container.querySelector("button")!;
  assert.equal(button.textContent, "Go");
  button.click();
  assert.equal(clicks, 1);
  const row = new Setting(container).addButton((b) => b.setButtonText("Off").onClick(() => void clicks++));
  row.setDisabled(true);
  row.settingEl.querySelector("button")!.click();
  assert.equal(clicks, 1);
});

test("toggle setValue fires onChange when the value changes, so the value is set before onChange is registered", () => {
  const container = createDiv();
  const seen: boolean[] = [];
  new Setting(container).addToggle((toggle) => {
    toggle.setValue(true).onChange((value) => seen.push(value));
    toggle.setValue(true);
    assert.deepEqual(seen, [], "no change, no event");
    toggle.setValue(false);
    assert.deepEqual(seen, [false]);
  });
  (container.querySelector(".checkbox-container") as HTMLElement).click();
  assert.deepEqual(seen, [false, true]);
  assert.ok(container.querySelector(".checkbox-container")!.classList.contains("is-enabled"));
});

class Colours extends SuggestModal<string> {
  queries: string[] = [];
  chosen: Array<{ value: string; stillOpen: boolean }> = [];
  getSuggestions(query: string): string[] {
    this.queries.push(query);
    return ["red", "green", "blue"].filter((colour) => colour.includes(query));
  }
  renderSuggestion(value: string, el: HTMLElement): void {
    el.setText(value.toUpperCase());
  }
  onChooseSuggestion(item: string): void {
    this.chosen.push({ value: item, stillOpen: this.isOpen });
  }
}

test("SuggestModal queries '' on open, filters on input, and closes before it delivers the choice", async () => {
  const modal = new Colours({});
  modal.open();
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.deepEqual(modal.queries, [""]);
  assert.ok(openModals.includes(modal));
  assert.deepEqual(suggestions(modal as never).map((entry) => entry.el.textContent), ["RED", "GREEN", "BLUE"]);
  await setQuery(modal, "re");
  assert.deepEqual(suggestions(modal as never).map((entry) => entry.value), ["red", "green"]);
  await chooseSuggestion(modal, 1);
  assert.deepEqual(modal.chosen, [{ value: "green", stillOpen: false }]);
  assert.equal(openModals.includes(modal), false);
  await setQuery(modal, "zzz");
  assert.equal(modal.resultContainerEl.querySelector(".suggestion-empty")?.textContent, "No results found.");
});

test("FuzzySuggestModal matches characters in order and hands back the item", async () => {
  const chosen: string[] = [];
  const modal = new (class extends FuzzySuggestModal<string> {
    getItems(): string[] {
      return ["Claude Code", "Claude Desktop", "Cursor", "Codex"];
    }
    getItemText(item: string): string {
      return item;
    }
    onChooseItem(item: string): void {
      chosen.push(item);
    }
  })({});
  modal.open();
  await setQuery(modal, "cde");
  assert.deepEqual(suggestions(modal as never).map((entry) => entry.el.textContent), ["Claude Code", "Claude Desktop", "Codex"]);
  await chooseSuggestion(modal, 2);
  assert.deepEqual(chosen, ["Codex"]);
});

test("Modal open attaches and runs onOpen; close detaches and runs onClose once", () => {
  const events: string[] = [];
  const modal = new (class extends Modal {
    override onOpen(): void {
      events.push("open");
      this.setTitle("Title");
      this.contentEl.createEl("p", { text: "body" });
    }
    override onClose(): void {
      events.push("close");
    }
  })({});
  modal.open();
  assert.ok(document.body.contains(modal.containerEl));
  assert.equal(modal.titleEl.textContent, "Title");
  modal.close();
  modal.close();
  assert.deepEqual(events, ["open", "close"]);
  assert.equal(document.body.contains(modal.containerEl), false);
});

test("Notice records each message, its updates and whether it was hidden", () => {
  clearNotices();
  const notice = new Notice("Indexing…", 0);
  notice.setMessage("Indexed 12 notes");
  new Notice(createFragment((f) => f.createSpan({ text: "fragment" })));
  assert.equal(notices.length, 2);
  assert.deepEqual(notices[0]!.history, ["Indexing…", "Indexed 12 notes"]);
  assert.equal(notices[0]!.duration, 0);
  assert.equal(notices[1]!.message, "fragment");
  notice.hide();
  assert.equal(notices[0]!.hidden, true);
  assert.equal(notices[1]!.hidden, false);
});

test("a setting tab is attached before display() runs, and closing it calls hide()", () => {
  const calls: string[] = [];
  const tab = new (class extends PluginSettingTab {
    display(): void {
      calls.push(`display attached=${document.body.contains(this.containerEl)}`);
      this.containerEl.empty();
      new Setting(this.containerEl).setName("Only row");
    }
    override hide(): void {
      calls.push("hide");
    }
  })({}, {});
  const container = openSettingTab(tab);
  openSettingTab(tab);
  assert.equal(container.querySelectorAll(".setting-item").length, 1, "display() starts from an empty container");
  closeSettingTab(tab);
  assert.deepEqual(calls, ["display attached=true", "display attached=true", "hide"]);
  assert.equal(document.body.contains(container), false);
});
