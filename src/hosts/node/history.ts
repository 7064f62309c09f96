// Opens a vault's private history for a Node host: an isomorphic-git repository in the host's own
// folder (never the vault's `.git`), over node:fs. A vault whose history cannot be opened keeps working
// without one, and says why (vault_list: `versioned: false`).
import { describeFailure } from "../../core/errors";
import http from "isomorphic-git/http/node";
import type { Clock, HistoryPort, Logger } from "../../core/ports";
import { nativeSha1 } from "./git-codecs";
import { nodeHistoryFs } from "./history-fs";
import { GitHistory, UnavailableHistory, type VaultFiles } from "../../history/git-history";

export interface OpenHistoryOptions {
  vault: string;
  root: string;
  gitdir: string;
  logger: Logger;
  clock: Clock;
  author?: { name: string; email: string };
  /** The vault's visible files, recorded as the first commit of a new repository. */
  baseline?: () => Promise<string[]>;
  /** This process alone commits to the history: it holds the data folder's lock (GitHistoryOptions.exclusive). */
  exclusive?: boolean;
  /** Whose crash records are whose (GitHistoryOptions.intentOwners). */
  intentOwners?: { self?: string; running(owner: string): boolean };
  /** Pushed to after commits, in the background; failures are logged, never raised. */
  push?: RemotePush;
  /** The host's reads of the vault's files (see GitHistoryOptions.vaultFiles). */
  vaultFiles?: VaultFiles;
}

export interface RemotePush {
  url: string;
  token?: string;
  username?: string;
}

export async function openHistory(options: OpenHistoryOptions): Promise<HistoryPort & { close?(): Promise<void>; idle?(): Promise<void> }> {
  try {
    return await GitHistory.open({
      vault: options.vault,
      dir: options.root,
      gitdir: options.gitdir,
      fs: nodeHistoryFs,
      sha1: nativeSha1,
      logger: options.logger,
      clock: options.clock,
      ...(options.author ? { author: options.author } : {}),
      ...(options.baseline ? { baseline: options.baseline } : {}),
      ...(options.exclusive === true ? { exclusive: true } : {}),
      ...(options.intentOwners ? { intentOwners: options.intentOwners } : {}),
      ...(options.vaultFiles ? { vaultFiles: options.vaultFiles } : {}),
      ...(options.push
        ? {
            push: {
              url: options.push.url,
              http,
              ...(options.push.token !== undefined ? { token: options.push.token } : {}),
              ...(options.push.username !== undefined ? { username: options.push.username } : {}),
            },
          }
        : {}),
    });
  } catch (error) {
    const reason = describeFailure(error);
    options.logger.log({ level: "warn", event: "history_unavailable", vault: options.vault, reason });
    return new UnavailableHistory(reason);
  }
}
