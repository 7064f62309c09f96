// The settings tab (SPEC §12). General server settings come first and unheaded; then clients, users,
// vaults, limits and the audit log. A new token is shown once, right under its user, and only its
// hash is saved.
import { PluginSettingTab, Setting, type App, type Plugin } from "obsidian";
import type { SignedInClient } from "../../auth/oauth/service";
import { endpointProblem } from "../../core/search/semantic/provider";
import { generateToken, hashToken } from "../../auth/tokens";
import { VAULT_NAME } from "../../core/vault/directory";
import { CLIENT_KINDS, CLIENT_LABELS, clientConfig } from "../../mcp/client-config";
import { TOOL_GROUPS } from "../../tools/types";
import { DEFAULT_METRICS_PATH } from "../../http/metrics";
import { copyToClipboard } from "./clipboard";
import { describeState } from "./info-modal";
import type { ServerState } from "./plugin-server";
import { downloadOnDevice, onDeviceState, type OnDeviceFolders } from "./on-device";
import { downloadSize, formatBytes, pinProblem } from "../../core/search/semantic/on-device-models";
import { DEFAULT_VAULT_NAME, EMBEDDINGS_SECRET, onDeviceModelsOf, secretStoreOf, storedToolsets, vaultsOf, type PluginSettings, type StoredUser } from "./settings";

export interface PluginControls {
  readonly config: PluginSettings;
  saveSettings(): Promise<void>;
  serverState(): ServerState;
  onServerState(listener: (state: ServerState) => void): () => void;
  startServer(): Promise<void>;
  stopServer(): Promise<void>;
  /** After a change of port, address or limits. */
  restartServer(): Promise<void>;
  /** After a change of the vault list. */
  reopenVaults(): Promise<void>;
  /** After a change of users or tokens: takes effect for the next request. */
  usersChanged(): void;
  /** Plaintext tokens created in this session, by user; never saved. */
  readonly freshTokens: Map<string, string>;
  endpoint(): string;
  /** Clients signed in through OAuth, per client and user. */
  signedInClients(): SignedInClient[];
  /** Signs a client out for a user: its tokens stop working at once. */
  revokeClient(clientId: string, user: string): Promise<void>;
  /** Where on-device models and their runtime are kept, or null where the vault is not on a file system. */
  onDeviceFolders(): OnDeviceFolders | null;
}

const USER_NAME = /^[A-Za-z0-9][A-Za-z0-9 ._@-]{0,63}$/;

function parseList(text: string): string[] {
  return text
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part !== "");
}

export class SecondBrainSettingTab extends PluginSettingTab {
  private readonly controls: PluginControls;
  private unsubscribe: (() => void) | null = null;
  private newUserName = "";
  private newVaultName = "";
  private newVaultFolder = "";
  private statusEl: HTMLElement | null = null;
  /** The metrics key generated in this visit of the tab; never saved, forgotten on leaving. */
  private freshMetricsKey: string | null = null;

  constructor(app: App, plugin: Plugin, controls: PluginControls) {
    super(app, plugin);
    this.controls = controls;
  }

  override display(): void {
    this.render();
  }

  private render(): void {
    const { containerEl } = this;
    containerEl.empty();
    containerEl.addClass("secondbrain-settings");
    this.unsubscribe?.();
    this.unsubscribe = this.controls.onServerState((state) => this.showState(state));
    this.renderServer(containerEl);
    this.renderClients(containerEl);
    this.renderSignIn(containerEl);
    this.renderUsers(containerEl);
    this.renderVaults(containerEl);
    this.renderHistory(containerEl);
    this.renderSemantic(containerEl);
    this.renderLimits(containerEl);
    this.renderAudit(containerEl);
    this.renderMetrics(containerEl);
  }

  override hide(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
    // "Shown once": leaving the tab forgets the plaintext of new tokens.
    this.controls.freshTokens.clear();
    this.freshMetricsKey = null;
  }

  private get settings(): PluginSettings {
    return this.controls.config;
  }

  private showState(state: ServerState): void {
    if (!this.statusEl) return;
    this.statusEl.setText(describeState(state));
    this.statusEl.toggleClass("secondbrain-status-running", state.kind === "running");
    this.statusEl.toggleClass("secondbrain-status-failed", state.kind === "failed");
  }

  private renderServer(containerEl: HTMLElement): void {
    const status = new Setting(containerEl).setName("Status");
    this.statusEl = status.descEl.createSpan({ cls: "secondbrain-status" });
    this.showState(this.controls.serverState());
    status.addButton((button) => {
      const running = this.controls.serverState().kind === "running";
      button.setButtonText(running ? "Stop" : "Start").onClick(async () => {
        if (this.controls.serverState().kind === "running") await this.controls.stopServer();
        else await this.controls.startServer();
        this.render();
      });
    });

    new Setting(containerEl)
      .setName("Enable server")
      .setDesc("Serve the vault to MCP clients on this computer whenever Obsidian is open.")
      .addToggle((toggle) =>
        toggle.setValue(this.settings.server.enabled).onChange(async (enabled) => {
          this.settings.server.enabled = enabled;
          await this.controls.saveSettings();
          if (enabled) await this.controls.startServer();
          else await this.controls.stopServer();
          this.render();
        }),
      );

    new Setting(containerEl)
      .setName("Port")
      .setDesc("Clients connect to http://127.0.0.1:<port>/mcp. Changing it restarts the server.")
      .addText((text) => {
        text.setPlaceholder("27126").setValue(String(this.settings.server.port));
        text.inputEl.addEventListener("change", () => {
          void (async () => {
            const port = Number(text.getValue().trim());
            if (!Number.isInteger(port) || port < 1 || port > 65535) {
              text.inputEl.addClass("secondbrain-invalid");
              return;
            }
            text.inputEl.removeClass("secondbrain-invalid");
            this.settings.server.port = port;
            await this.controls.saveSettings();
            await this.controls.restartServer();
            this.render();
          })();
        });
      });

    new Setting(containerEl)
      .setName("Bind address")
      .setDesc("127.0.0.1 keeps the server on this computer. Any other address exposes the vault to the network.")
      .addText((text) => {
        text.setPlaceholder("127.0.0.1").setValue(this.settings.server.host);
        text.inputEl.addEventListener("change", () => {
          void (async () => {
            const host = text.getValue().trim();
            if (host === "") return;
            this.settings.server.host = host;
            await this.controls.saveSettings();
            await this.controls.restartServer();
            this.render();
          })();
        });
      });
  }

  private renderClients(containerEl: HTMLElement): void {
    new Setting(containerEl).setName("Clients").setHeading();
    const token = [...this.controls.freshTokens.values()][0];
    containerEl.createEl("p", {
      cls: "setting-item-description secondbrain-hint",
      text:
        token === undefined
          ? "Copy a configuration and replace TOKEN with a user's token. Create a token under users below: it is shown only once."
          : "The configurations include the token you just created.",
    });
    for (const kind of CLIENT_KINDS) {
      new Setting(containerEl)
        .setName(CLIENT_LABELS[kind])
        .setDesc(clientConfig(kind, this.controls.endpoint()).where)
        .addButton((button) =>
          button.setButtonText("Copy configuration").onClick(async () => {
            await copyToClipboard(clientConfig(kind, this.controls.endpoint(), token).text, `the ${CLIENT_LABELS[kind]} configuration`);
          }),
        );
    }
  }

  private renderSignIn(containerEl: HTMLElement): void {
    new Setting(containerEl).setName("Sign-in from the browser").setHeading();
    const oauth = this.settings.oauth;
    new Setting(containerEl)
      .setName("Allow sign-in from the browser")
      .setDesc("Clients that sign in with OAuth, such as Claude Desktop, connect without a pasted token: the browser opens, and Obsidian asks you to allow each one. Nothing leaves this computer.")
      .addToggle((toggle) =>
        toggle.setValue(oauth.enabled).onChange(async (enabled) => {
          oauth.enabled = enabled;
          await this.controls.saveSettings();
          await this.controls.restartServer();
          this.render();
        }),
      );
    if (!oauth.enabled) return;
    if (this.settings.users.length > 1 || oauth.user !== null) {
      new Setting(containerEl)
        .setName("Sign-ins act as")
        .setDesc("The user whose vaults, read-only setting and toolsets a signed-in client gets.")
        .addDropdown((dropdown) => {
          dropdown.addOption("", "Choose a user");
          for (const user of this.settings.users) dropdown.addOption(user.name, user.name);
          dropdown.setValue(oauth.user ?? "").onChange(async (name) => {
            oauth.user = name === "" ? null : name;
            await this.controls.saveSettings();
          });
        });
    }
    const signedIn = this.controls.signedInClients();
    if (signedIn.length === 0) {
      containerEl.createEl("p", { cls: "setting-item-description secondbrain-hint", text: "No application is signed in." });
    }
    for (const user of this.settings.users) {
      for (const client of signedIn.filter((entry) => entry.user === user.name)) this.renderSignedIn(containerEl, client);
    }
  }

  private renderSignedIn(containerEl: HTMLElement, client: SignedInClient): void {
    const used = client.last_used > 0 ? new Date(client.last_used).toLocaleString() : "not yet";
    const row = new Setting(containerEl)
      .setName(client.client_name ?? "Application without a name")
      .setDesc(`As ${client.user} · last used ${used} · the name is the application's own`)
      .setClass("secondbrain-oauth-client")
      .addButton((button) =>
        button
          .setButtonText("Revoke")
          .setClass("mod-warning")
          .onClick(async () => {
            await this.controls.revokeClient(client.client_id, client.user);
            this.render();
          }),
      );
    row.settingEl.dataset.clientId = client.client_id;
    row.settingEl.dataset.oauthUser = client.user;
  }

  private async saveUsers(): Promise<void> {
    await this.controls.saveSettings();
    this.controls.usersChanged();
  }

  private renderUsers(containerEl: HTMLElement): void {
    new Setting(containerEl).setName("Users").setHeading();
    if (this.settings.users.length === 0) {
      containerEl.createEl("p", { cls: "setting-item-description", text: "No users yet: no client can connect. Add one to get a token." });
    }
    for (const user of this.settings.users) this.renderUser(containerEl, user);

    new Setting(containerEl)
      .setName("Add user")
      .setDesc("A name for the person or client, such as claude-code. A token is created for it.")
      .addText((text) =>
        text
          .setPlaceholder("Name")
          .setValue(this.newUserName)
          .onChange((value) => {
            this.newUserName = value;
          }),
      )
      .addButton((button) =>
        button
          .setButtonText("Add")
          .setCta()
          .onClick(async () => {
            const name = this.newUserName.trim();
            if (!USER_NAME.test(name) || this.settings.users.some((user) => user.name === name)) {
              this.newUserName = name;
              this.render();
              const error = this.containerEl.querySelector(".secondbrain-add-user-error");
              error?.setText(USER_NAME.test(name) ? `A user named "${name}" already exists.` : "Use letters, digits, spaces and . _ @ - (up to 64), starting with a letter or digit.");
              return;
            }
            const token = generateToken();
            this.settings.users.push({ name, token_hashes: [hashToken(token)], vaults: [], read_only: false, created: Date.now() });
            this.controls.freshTokens.set(name, token);
            this.newUserName = "";
            await this.saveUsers();
            this.render();
          }),
      );
    containerEl.createDiv({ cls: "secondbrain-add-user-error mod-warning" });
  }

  private renderUser(containerEl: HTMLElement, user: StoredUser): void {
    const scope = user.vaults.length === 0 ? "all vaults" : `vaults: ${user.vaults.join(", ")}`;
    const tokens = user.token_hashes.length === 1 ? "1 token" : `${user.token_hashes.length} tokens`;
    const row = new Setting(containerEl)
      .setName(user.name)
      .setDesc(`${tokens} · ${scope}${user.toolsets ? ` · toolsets: ${user.toolsets.join(", ")}` : ""}${user.read_only ? " · read-only" : ""}`)
      .setClass("secondbrain-user");
    row.settingEl.dataset.user = user.name;
    row
      .addButton((button) =>
        button.setButtonText("New token").onClick(async () => {
          const token = generateToken();
          user.token_hashes.push(hashToken(token));
          this.controls.freshTokens.set(user.name, token);
          await this.saveUsers();
          this.render();
        }),
      )
      .addButton((button) =>
        button
          .setButtonText("Revoke tokens")
          .setClass("mod-warning")
          .setDisabled(user.token_hashes.length === 0)
          .onClick(async () => {
            user.token_hashes = [];
            this.controls.freshTokens.delete(user.name);
            await this.saveUsers();
            this.render();
          }),
      )
      .addExtraButton((button) =>
        button
          .setIcon("trash")
          .setTooltip("Remove user")
          .onClick(async () => {
            this.settings.users = this.settings.users.filter((other) => other !== user);
            this.controls.freshTokens.delete(user.name);
            await this.saveUsers();
            this.render();
          }),
      );

    const fresh = this.controls.freshTokens.get(user.name);
    if (fresh !== undefined) {
      const box = containerEl.createDiv({ cls: "secondbrain-token" });
      box.createDiv({ cls: "secondbrain-token-warning", text: `Token for ${user.name}. Copy it now: it is not shown again.` });
      const value = box.createEl("code", { cls: "secondbrain-token-value", text: fresh });
      value.setAttr("data-user", user.name);
      new Setting(box).addButton((button) =>
        button
          .setButtonText("Copy token")
          .setCta()
          .onClick(async () => {
            await copyToClipboard(fresh, "the token");
          }),
      );
    }

    new Setting(containerEl)
      .setName("Read-only")
      .setDesc(`${user.name} only gets tools that change nothing.`)
      .setClass("secondbrain-user-detail")
      .addToggle((toggle) =>
        toggle.setValue(user.read_only).onChange(async (readOnly) => {
          user.read_only = readOnly;
          await this.saveUsers();
        }),
      );
    new Setting(containerEl)
      .setName("Vaults")
      .setDesc(`Comma-separated vault names ${user.name} may use; empty for all.`)
      .setClass("secondbrain-user-detail")
      .addText((text) => {
        text.setPlaceholder("All vaults").setValue(user.vaults.join(", "));
        text.inputEl.addEventListener("change", () => {
          void (async () => {
            const known = new Set(vaultsOf(this.settings).map((vault) => vault.name));
            user.vaults = parseList(text.getValue()).filter((name) => known.has(name));
            await this.saveUsers();
            this.render();
          })();
        });
      });
    this.renderToolsets(containerEl, user);
  }

  private renderToolsets(containerEl: HTMLElement, user: StoredUser): void {
    new Setting(containerEl)
      .setName("Toolsets")
      .setDesc(`Comma-separated tool groups ${user.name} is offered, of ${TOOL_GROUPS.join(", ")}; empty for all. Fewer tools leave the client's model more room.`)
      .setClass("secondbrain-user-detail")
      .addText((text) => {
        text.setPlaceholder("All toolsets").setValue(user.toolsets?.join(", ") ?? "");
        text.inputEl.addEventListener("change", () => {
          void (async () => {
            const toolsets = storedToolsets(parseList(text.getValue()));
            if (toolsets === undefined) delete user.toolsets;
            else user.toolsets = toolsets;
            await this.saveUsers();
            this.render();
          })();
        });
      });
  }

  private renderVaults(containerEl: HTMLElement): void {
    new Setting(containerEl).setName("Vaults").setHeading();
    containerEl.createEl("p", {
      cls: "setting-item-description",
      text: `"${DEFAULT_VAULT_NAME}" is the whole Obsidian vault. Add folders of it as further vaults to give users a narrower scope.`,
    });
    new Setting(containerEl)
      .setName("Default vault")
      .setDesc("Used when a tool call names no vault.")
      .addDropdown((dropdown) => {
        for (const vault of vaultsOf(this.settings)) dropdown.addOption(vault.name, vault.name);
        dropdown.setValue(this.settings.defaultVault).onChange(async (name) => {
          this.settings.defaultVault = name;
          await this.controls.saveSettings();
          await this.controls.reopenVaults();
        });
      });
    for (const vault of this.settings.vaults) {
      new Setting(containerEl)
        .setName(vault.name)
        .setDesc(`Folder: ${vault.folder || "(whole vault)"}`)
        .addExtraButton((button) =>
          button
            .setIcon("trash")
            .setTooltip("Remove vault")
            .onClick(async () => {
              this.settings.vaults = this.settings.vaults.filter((other) => other !== vault);
              if (this.settings.defaultVault === vault.name) this.settings.defaultVault = DEFAULT_VAULT_NAME;
              await this.controls.saveSettings();
              await this.controls.reopenVaults();
              this.render();
            }),
        );
    }
    new Setting(containerEl)
      .setName("Add vault")
      .setDesc("A name (lowercase letters, digits, - and _) and a folder of this Obsidian vault.")
      .addText((text) =>
        text
          .setPlaceholder("Name")
          .setValue(this.newVaultName)
          .onChange((value) => {
            this.newVaultName = value;
          }),
      )
      .addText((text) =>
        text
          .setPlaceholder("Folder")
          .setValue(this.newVaultFolder)
          .onChange((value) => {
            this.newVaultFolder = value;
          }),
      )
      .addButton((button) =>
        button.setButtonText("Add").onClick(async () => {
          const name = this.newVaultName.trim();
          const folder = this.newVaultFolder.trim().replace(/^\/+|\/+$/g, "");
          const taken = vaultsOf(this.settings).some((vault) => vault.name === name);
          const error = !VAULT_NAME.test(name)
            ? "Vault names are lowercase letters, digits, - and _, starting with a letter or digit."
            : taken
              ? `A vault named "${name}" already exists.`
              : folder === "" || !this.app.vault.getFolderByPath(folder)
                ? `"${folder}" is not a folder of this vault.`
                : null;
          if (error) {
            this.render();
            this.containerEl.querySelector(".secondbrain-add-vault-error")?.setText(error);
            return;
          }
          this.settings.vaults.push({ name, folder });
          this.newVaultName = "";
          this.newVaultFolder = "";
          await this.controls.saveSettings();
          await this.controls.reopenVaults();
          this.render();
        }),
      );
    containerEl.createDiv({ cls: "secondbrain-add-vault-error mod-warning" });
  }

  private numberSetting(containerEl: HTMLElement, name: string, desc: string, get: () => number, set: (value: number) => void, min: number, max: number): void {
    new Setting(containerEl)
      .setName(name)
      .setDesc(desc)
      .addText((text) => {
        text.setValue(String(get()));
        text.inputEl.addEventListener("change", () => {
          void (async () => {
            const value = Number(text.getValue().trim());
            const valid = Number.isInteger(value) && value >= min && value <= max;
            text.inputEl.toggleClass("secondbrain-invalid", !valid);
            if (!valid) return;
            set(value);
            await this.controls.saveSettings();
            await this.controls.restartServer();
          })();
        });
      });
  }

  private renderLimits(containerEl: HTMLElement): void {
    new Setting(containerEl).setName("Limits").setHeading();
    const limits = this.settings.limits;
    this.numberSetting(containerEl, "Maximum response size", "Bytes per tool result; longer results are cut and say how to page on.", () => limits.maxResponseBytes, (value) => (limits.maxResponseBytes = value), 4096, 64 * 1024 * 1024);
    this.numberSetting(containerEl, "Requests per minute", "Per user, averaged over a minute.", () => limits.rateLimitPerMinute, (value) => (limits.rateLimitPerMinute = value), 1, 1_000_000);
    this.numberSetting(containerEl, "Burst", "Requests a user may send at once before the per-minute rate applies.", () => limits.rateLimitBurst, (value) => (limits.rateLimitBurst = value), 1, 1_000_000);
    this.numberSetting(containerEl, "Keep trash copies (days)", "Copies of replaced and deleted notes are removed after this many days.", () => limits.trashRetentionDays, (value) => (limits.trashRetentionDays = value), 1, 3650);
  }

  private renderHistory(containerEl: HTMLElement): void {
    new Setting(containerEl).setName("History").setHeading();
    const history = this.settings.history;
    new Setting(containerEl)
      .setName("Keep a history")
      .setDesc("Every change a tool makes is recorded in a private git repository in the plugin folder, never in the vault's own .git.")
      .addToggle((toggle) =>
        toggle.setValue(history.enabled).onChange(async (enabled) => {
          history.enabled = enabled;
          await this.controls.saveSettings();
          await this.controls.reopenVaults();
        }),
      );
    const author = (name: string, desc: string, get: () => string, set: (value: string) => void, valid: RegExp): void => {
      new Setting(containerEl)
        .setName(name)
        .setDesc(desc)
        .addText((text) => {
          text.setValue(get());
          text.inputEl.addEventListener("change", () => {
            void (async () => {
              const value = text.getValue().trim();
              const ok = valid.test(value);
              text.inputEl.toggleClass("secondbrain-invalid", !ok);
              if (!ok) return;
              set(value);
              await this.controls.saveSettings();
              await this.controls.reopenVaults();
            })();
          });
        });
    };
    author("Author name", "Names the commits.", () => history.authorName, (value) => (history.authorName = value), /^[^<>\n]{1,100}$/);
    author("Author email", "For the commits; it does not need to exist.", () => history.authorEmail, (value) => (history.authorEmail = value), /^[^\s<>@]+@[^\s<>@]+$/);
  }

  private renderSemantic(containerEl: HTMLElement): void {
    new Setting(containerEl).setName("Semantic search").setHeading();
    const embeddings = this.settings.embeddings;
    const apply = async (): Promise<void> => {
      await this.controls.saveSettings();
      await this.controls.reopenVaults();
    };
    const onDevice = embeddings.kind === "on-device";
    new Setting(containerEl)
      .setName("Search by meaning")
      .setDesc(
        onDevice
          ? "Notes are cut into chunks and embedded in the background by the model below, run inside Obsidian: nothing leaves this computer. note_search then ranks by meaning and words together."
          : "Notes are cut into chunks and embedded in the background by the endpoint below (one that speaks the embeddings protocol of OpenAI); note_search then ranks by meaning and words together. Chunks of your notes are sent to that endpoint: use a local one to keep them on this machine.",
      )
      .addToggle((toggle) =>
        toggle.setValue(embeddings.enabled).onChange(async (enabled) => {
          embeddings.enabled = enabled;
          await apply();
        }),
      );
    new Setting(containerEl)
      .setName("Embedding provider")
      .setDesc("An embeddings endpoint, here or elsewhere, or a model run on this computer and downloaded once when you ask.")
      .addDropdown((dropdown) =>
        dropdown
          .addOption("endpoint", "Endpoint")
          .addOption("on-device", "On-device")
          .setValue(embeddings.kind)
          .onChange(async (kind) => {
            embeddings.kind = kind === "on-device" ? "on-device" : "endpoint";
            await apply();
            this.render();
          }),
      );
    if (onDevice) {
      this.renderOnDevice(containerEl, apply);
      return;
    }
    const text = (name: string, desc: string, get: () => string, set: (value: string) => void, problem: (value: string) => string | null): void => {
      new Setting(containerEl)
        .setName(name)
        .setDesc(desc)
        .addText((field) => {
          field.setValue(get());
          field.inputEl.addEventListener("change", () => {
            void (async () => {
              const value = field.getValue().trim();
              const ok = problem(value) === null;
              field.inputEl.toggleClass("secondbrain-invalid", !ok);
              if (!ok) return;
              set(value);
              await apply();
            })();
          });
        });
    };
    text("Endpoint", "An OpenAI-compatible embeddings endpoint, e.g. http://localhost:11434/v1 for Ollama.", () => embeddings.url, (value) => (embeddings.url = value), endpointProblem);
    text("Model", "The embedding model's name at the endpoint, e.g. nomic-embed-text. Changing it embeds every note again.", () => embeddings.model, (value) => (embeddings.model = value), (value) => (value === "" ? "empty" : null));
    const secrets = secretStoreOf(this.app);
    new Setting(containerEl)
      .setName("Key for the endpoint")
      .setDesc(secrets ? "Kept in Obsidian's secret storage, never in the plugin's settings file. Leave empty for a local endpoint." : "Needs Obsidian 1.11.4 or later (secret storage); local endpoints need no key.")
      .addText((field) => {
        field.inputEl.type = "password";
        field.setPlaceholder(secrets?.getSecret(EMBEDDINGS_SECRET) ? "stored" : "none");
        field.setDisabled(!secrets);
        field.inputEl.addEventListener("change", () => {
          void (async () => {
            secrets?.setSecret(EMBEDDINGS_SECRET, field.getValue().trim());
            field.setValue("");
            field.setPlaceholder(secrets?.getSecret(EMBEDDINGS_SECRET) ? "stored" : "none");
            await apply();
          })();
        });
      });
    text(
      "Requests per minute to the endpoint",
      "Embedding sends no more requests than this (each holds up to 32 chunks).",
      () => String(embeddings.requestsPerMinute),
      (value) => (embeddings.requestsPerMinute = Number(value)),
      (value) => (/^[1-9][0-9]{0,6}$/.test(value) ? null : "not a count"),
    );
  }

  /** The model picker and the Download button: nothing is fetched before the click. */
  private renderOnDevice(containerEl: HTMLElement, apply: () => Promise<void>): void {
    const embeddings = this.settings.embeddings;
    const models = onDeviceModelsOf(embeddings);
    new Setting(containerEl)
      .setName("On-device model")
      .setDesc("The multilingual model reads about 100 languages; the other is smaller and reads one language, as its label says. Changing it embeds every note again.")
      .addDropdown((dropdown) => {
        for (const model of Object.values(models)) {
          const size = pinProblem(model) === null ? formatBytes(downloadSize(model)) : "not pinned";
          dropdown.addOption(model.id, `${model.id} (${model.multilingual ? "multilingual" : "English"}, ${size})`);
        }
        dropdown.setValue(embeddings.onDeviceModel).onChange(async (id) => {
          embeddings.onDeviceModel = id;
          await apply();
          this.render();
        });
      });
    const download = new Setting(containerEl).setName("Download model");
    const info = download.descEl.createDiv({ cls: "secondbrain-download-info" });
    const status = download.descEl.createDiv({ cls: "secondbrain-download-status" });
    const folders = this.controls.onDeviceFolders();
    if (!folders) {
      info.setText("Needs the vault on this computer's disk.");
      return;
    }
    const host = (url: string): string => new URL(url).host;
    download.addButton((button) => {
      button.setButtonText("Download").setDisabled(true);
      const describe = async (): Promise<void> => {
        const state = await onDeviceState(embeddings, folders);
        if (state.problem !== null) {
          info.setText(state.problem);
          return;
        }
        if (state.toFetch === 0) {
          info.setText(`${state.model.id} and its runtime are downloaded and verified in the plugin folder.`);
          button.setButtonText("Downloaded").setDisabled(true);
          return;
        }
        const parts = [
          ...(state.runtimeReady ? [] : [`the runtime (Transformers.js and ONNX Runtime) from ${host(embeddings.runtimeSource)}`]),
          ...(state.modelReady ? [] : [`${state.model.id}'s files (${formatBytes(downloadSize(state.model))}) from ${host(embeddings.modelSource)}`]),
        ];
        info.setText(`Fetches ${formatBytes(state.toFetch)} into the plugin folder: ${parts.join(", and ")}. Each file is checked against its pinned checksum and refused if it differs. Nothing is fetched before you press Download.`);
        button.setButtonText(`Download (${formatBytes(state.toFetch)})`).setDisabled(false);
      };
      void describe();
      button.onClick(async () => {
        button.setDisabled(true);
        status.removeClass("secondbrain-invalid");
        status.setText("Starting the download…");
        let shown = -1;
        try {
          const report = await downloadOnDevice(embeddings, folders, (progress) => {
            const percent = Math.floor((progress.received / Math.max(1, progress.total)) * 100);
            if (percent === shown) return;
            shown = percent;
            status.setText(`${formatBytes(progress.received)} of ${formatBytes(progress.total)} (${percent}%): ${progress.file}`);
          });
          status.setText(`Checksums verified: ${report.verified.join("; ")}.`);
          await describe();
          await apply();
        } catch (error) {
          status.addClass("secondbrain-invalid");
          status.setText(`Download refused: ${error instanceof Error ? error.message : String(error)}`);
          button.setDisabled(false);
        }
      });
    });
  }

  private renderAudit(containerEl: HTMLElement): void {
    new Setting(containerEl).setName("Audit log").setHeading();
    new Setting(containerEl)
      .setName("Record tool calls")
      .setDesc("One line per call: tool, user, vault, path, duration and size. Never note content.")
      .addToggle((toggle) =>
        toggle.setValue(this.settings.audit.enabled).onChange(async (enabled) => {
          this.settings.audit.enabled = enabled;
          await this.controls.saveSettings();
        }),
      );
    new Setting(containerEl)
      .setName("Audit file")
      .setDesc("In the plugin folder.")
      .addText((text) => {
        text.setValue(this.settings.audit.file);
        text.inputEl.addEventListener("change", () => {
          void (async () => {
            const file = text.getValue().trim();
            const valid = /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(file);
            text.inputEl.toggleClass("secondbrain-invalid", !valid);
            if (!valid) return;
            this.settings.audit.file = file;
            await this.controls.saveSettings();
          })();
        });
      });
  }

  private renderMetrics(containerEl: HTMLElement): void {
    new Setting(containerEl).setName("Metrics").setHeading();
    const metrics = this.settings.metrics;
    new Setting(containerEl)
      .setName("Prometheus endpoint")
      .setDesc(`Counts of tool calls, requests and each vault's notes, links and tasks at ${this.controls.endpoint().replace(/\/mcp$/, DEFAULT_METRICS_PATH)}. Vaults are labelled by position, never by name; no note, path or user appears.`)
      .addToggle((toggle) =>
        toggle.setValue(metrics.enabled).onChange(async (enabled) => {
          metrics.enabled = enabled;
          await this.controls.saveSettings();
        }),
      );
    new Setting(containerEl)
      .setName("Metrics key")
      .setDesc(metrics.keyHash === null ? "None: anyone who reaches the server's port can read the counts." : "Set: scrapers send it as Authorization: Bearer <key>. Only its hash is kept.")
      .addButton((button) =>
        button.setButtonText("Generate key").onClick(async () => {
          const key = generateToken();
          metrics.keyHash = hashToken(key);
          this.freshMetricsKey = key;
          await this.controls.saveSettings();
          this.render();
        }),
      )
      .addButton((button) =>
        button
          .setButtonText("Remove key")
          .setClass("mod-warning")
          .setDisabled(metrics.keyHash === null)
          .onClick(async () => {
            metrics.keyHash = null;
            this.freshMetricsKey = null;
            await this.controls.saveSettings();
            this.render();
          }),
      );
    const fresh = this.freshMetricsKey;
    if (fresh !== null) {
      const box = containerEl.createDiv({ cls: "secondbrain-token" });
      box.createDiv({ cls: "secondbrain-token-warning", text: "Metrics key. Copy it now: it is not shown again." });
      box.createEl("code", { cls: "secondbrain-token-value secondbrain-metrics-key", text: fresh });
      new Setting(box).addButton((button) =>
        button
          .setButtonText("Copy key")
          .setCta()
          .onClick(async () => {
            await copyToClipboard(fresh, "the metrics key");
          }),
      );
    }
  }
}
