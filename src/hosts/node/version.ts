import packageJson from "../../../package.json";

export { PROTOCOL_VERSION } from "../../mcp/server";
export const VERSION: string = packageJson.version;
