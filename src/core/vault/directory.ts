// The vaults a server serves, and the slice of them one user may see.
import { ToolError, type ErrorState } from "../errors";
import type { VaultEngine } from "./types";

export interface UserScope {
  /** Vault names this user may use; empty means all. */
  vaults: readonly string[];
}

export const VAULT_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** The vault's folder is gone (moved, deleted, unmounted); the message never names where it was. */
export function vaultFolderMissing(vault: string | undefined): ToolError {
  return new ToolError(
    "unavailable",
    `The folder of ${vault ? `vault "${vault}"` : "this vault"} is missing; it was moved or deleted. Restore it (the vault comes back by itself within seconds), or restart the server with --vault pointing to it. Call vault_list to see which vaults are available.`,
    { retry: "inspect_state" },
  );
}

/**
 * The path, with symbolic links followed, leads out of the vault's folder: refused, whether the
 * resolver saw it or the host found it when opening the file (a link swapped in meanwhile).
 */
export function leadsOutside(path: string, state: ErrorState = "not_applied"): ToolError {
  return new ToolError(
    "invalid_path",
    `Path "${path}" leads outside the vault (through a symbolic link). Use a path inside the vault; call note_list to see them.`,
    { state, details: { path } },
  );
}

export class VaultRegistry {
  private readonly engines = new Map<string, VaultEngine>();
  private readonly defaultVault: string;

  constructor(engines: readonly VaultEngine[], defaultName?: string) {
    for (const engine of engines) this.engines.set(engine.name, engine);
    const first = engines[0];
    if (!first) throw new Error("at least one vault is required");
    this.defaultVault = defaultName ?? first.name;
  }

  all(): VaultEngine[] {
    return [...this.engines.values()];
  }

  forUser(user: UserScope): ScopedVaults {
    return new ScopedVaults(this, user);
  }

  lookup(name: string): VaultEngine | undefined {
    return this.engines.get(name);
  }

  get defaultName(): string {
    return this.defaultVault;
  }
}

export class ScopedVaults {
  private readonly registry: VaultRegistry;
  private readonly user: UserScope;

  constructor(registry: VaultRegistry, user: UserScope) {
    this.registry = registry;
    this.user = user;
  }

  private allowed(name: string): boolean {
    return this.user.vaults.length === 0 || this.user.vaults.includes(name);
  }

  visible(): VaultEngine[] {
    return this.registry.all().filter((engine) => this.allowed(engine.name));
  }

  defaultName(): string {
    const preferred = this.registry.defaultName;
    if (this.allowed(preferred)) return preferred;
    return this.visible()[0]?.name ?? preferred;
  }

  get(name: string | undefined): VaultEngine {
    const wanted = name === undefined || name === "" ? this.defaultName() : name;
    const engine = this.registry.lookup(wanted);
    // One message for "no such vault" and "not yours", so names of other users' vaults do not leak.
    if (!engine || !this.allowed(wanted)) {
      const names = this.visible().map((visible) => visible.name);
      throw new ToolError(
        "unknown_vault",
        `Vault "${wanted}" is not available. Vaults you can use: ${names.join(", ") || "none"}. Call vault_list to see them.`,
      );
    }
    if (!engine.available()) throw vaultFolderMissing(wanted);
    return engine;
  }
}
