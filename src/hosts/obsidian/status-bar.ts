// The status bar item: server state, and the last tool call with its duration.
import type { LogRecord } from "../../core/ports";
import type { ServerState } from "./plugin-server";

function stateText(state: ServerState): string {
  switch (state.kind) {
    case "running":
      return `MCP :${state.port}`;
    case "starting":
      return "MCP starting…";
    case "stopped":
      return "MCP off";
    case "failed":
      return "MCP failed";
  }
}

export class StatusBar {
  private readonly el: HTMLElement;
  private state: ServerState = { kind: "stopped" };
  private lastCall = "";

  constructor(el: HTMLElement) {
    this.el = el;
    el.addClass("secondbrain-status-bar");
    this.render();
  }

  setState(state: ServerState): void {
    this.state = state;
    this.render();
  }

  /** Tool-call records only; the text names the tool and duration, never arguments. */
  record(record: LogRecord): void {
    if (record.event !== "tool_call" || typeof record.tool !== "string") return;
    const duration = typeof record.duration_ms === "number" ? ` ${record.duration_ms} ms` : "";
    this.lastCall = `${record.tool}${duration}${record.error ? " ✗" : ""}`;
    this.render();
  }

  private render(): void {
    const text = this.lastCall === "" ? stateText(this.state) : `${stateText(this.state)} · ${this.lastCall}`;
    this.el.setText(text);
    this.el.setAttr("aria-label", this.state.kind === "failed" ? this.state.reason : "Second Brain MCP server");
    this.el.toggleClass("secondbrain-status-failed", this.state.kind === "failed");
  }
}
