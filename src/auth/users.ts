// Who may call the server. Tokens are checked against every stored hash without an early exit, so
// the time taken says nothing about which user (if any) a token belongs to.
import type { ToolGroup, UserInfo } from "../tools/types";
import { constantTimeEqual, hashToken } from "./tokens";

export interface UserRecord {
  name: string;
  /** Lowercase hex SHA-256 of each accepted token. */
  token_hashes: string[];
  /** Vault names this user may use; empty means all. */
  vaults: string[];
  read_only: boolean;
  /** The tool groups this user is offered; absent means every group. */
  toolsets?: ToolGroup[];
  /** Where the OAuth sign-in password is (env:NAME or file:/path); never the password. */
  password?: string;
}

export const DEFAULT_USER_NAME = "default";

interface StoredHash {
  digest: Buffer;
  user: UserInfo;
}

function toUserInfo(record: UserRecord): UserInfo {
  const info: UserInfo = { name: record.name, readOnly: record.read_only, vaults: [...record.vaults] };
  if (record.toolsets !== undefined) info.toolsets = [...record.toolsets];
  return info;
}

export class UserStore {
  private readonly hashes: StoredHash[];
  private readonly infos: UserInfo[];

  constructor(records: readonly UserRecord[]) {
    this.infos = records.map(toUserInfo);
    this.hashes = records.flatMap((record, index) =>
      record.token_hashes.map((hash) => ({ digest: Buffer.from(hash, "hex"), user: this.infos[index] as UserInfo })),
    );
  }

  authenticate(token: string): UserInfo | null {
    const digest = Buffer.from(hashToken(token), "hex");
    let match: UserInfo | null = null;
    for (const stored of this.hashes) {
      if (constantTimeEqual(digest, stored.digest) && match === null) match = stored.user;
    }
    return match;
  }

  users(): readonly UserInfo[] {
    return this.infos;
  }
}

/** The single user of a server started without a config file: every vault, read-write; every toolset unless `toolsets` names some. */
export function defaultUser(token: string, toolsets?: readonly ToolGroup[]): UserRecord {
  const record: UserRecord = { name: DEFAULT_USER_NAME, token_hashes: [hashToken(token)], vaults: [], read_only: false };
  if (toolsets !== undefined) record.toolsets = [...toolsets];
  return record;
}
