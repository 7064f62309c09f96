// "Show connection info": where the server listens and what to paste into each client.
import { Modal, Setting, type App } from "obsidian";
import { CLIENT_KINDS, CLIENT_LABELS, clientConfig } from "../../mcp/client-config";
import { copyToClipboard } from "./clipboard";
import type { ServerState } from "./plugin-server";

export function describeState(state: ServerState): string {
  switch (state.kind) {
    case "running":
      return `Running at ${state.url}`;
    case "starting":
      return "Starting…";
    case "stopped":
      return "Stopped";
    case "failed":
      return state.reason;
  }
}

export class ConnectionInfoModal extends Modal {
  private readonly state: ServerState;
  private readonly url: string;
  private readonly token: string | undefined;

  constructor(app: App, state: ServerState, url: string, token: string | undefined) {
    super(app);
    this.state = state;
    this.url = url;
    this.token = token;
  }

  override onOpen(): void {
    this.setTitle("MCP connection");
    const { contentEl } = this;
    contentEl.empty();
    new Setting(contentEl).setName("Server").setDesc(describeState(this.state));
    new Setting(contentEl).setName("Endpoint").setDesc(this.url).addButton((button) =>
      button.setButtonText("Copy").onClick(async () => {
        await copyToClipboard(this.url, "the endpoint");
      }),
    );
    if (this.token === undefined) {
      contentEl.createEl("p", {
        cls: "secondbrain-hint",
        text: "The configurations below carry a placeholder where the token goes: paste a token from the settings tab there (tokens are shown only once, when they are created).",
      });
    }
    for (const kind of CLIENT_KINDS) {
      const config = clientConfig(kind, this.url, this.token);
      new Setting(contentEl)
        .setName(CLIENT_LABELS[kind])
        .setDesc(config.where)
        .addButton((button) =>
          button.setButtonText("Copy").onClick(async () => {
            await copyToClipboard(config.text, `the ${CLIENT_LABELS[kind]} configuration`);
          }),
        );
      contentEl.createEl("pre", { cls: "secondbrain-config", text: config.text });
    }
  }

  override onClose(): void {
    this.contentEl.empty();
  }
}
