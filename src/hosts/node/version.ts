import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import packageJson from "../../../package.json";

export const VERSION: string = packageJson.version;
export const PROTOCOL_VERSION: string = LATEST_PROTOCOL_VERSION;
