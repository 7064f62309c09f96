// Globs over vault paths: `*` and `?` stay within a segment, `**` crosses folders, `{a,b}` picks one.
import { ToolError } from "../errors";

export function globToRegExp(glob: string): RegExp {
  let out = "^";
  let braceDepth = 0;
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i]!;
    if (char === "*") {
      if (glob[i + 1] === "*") {
        const slashAfter = glob[i + 2] === "/";
        out += slashAfter ? "(?:.*/)?" : ".*";
        i += slashAfter ? 2 : 1;
      } else {
        out += "[^/]*";
      }
    } else if (char === "?") {
      out += "[^/]";
    } else if (char === "{") {
      braceDepth += 1;
      out += "(?:";
    } else if (char === "}" && braceDepth > 0) {
      braceDepth -= 1;
      out += ")";
    } else if (char === "," && braceDepth > 0) {
      out += "|";
    } else {
      out += char.replace(/[.+^${}()|[\]\\]/g, "\\$&");
    }
  }
  if (braceDepth !== 0) {
    throw new ToolError("invalid_argument", `Glob "${glob}" has an unclosed "{". Write alternatives like "**/*.{md,canvas}".`);
  }
  return new RegExp(out + "$", "i");
}
