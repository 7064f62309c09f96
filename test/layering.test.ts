// SPEC §2: src/core and src/tools import neither `obsidian` nor Node built-ins at runtime.
import { test } from "node:test";
import assert from "node:assert/strict";
import { builtinModules } from "node:module";
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

const root = path.resolve(__dirname, "..");
const forbidden = new Set(["obsidian", "electron", ...builtinModules]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? sourceFiles(full) : full.endsWith(".ts") ? [full] : [];
  });
}

/** Runtime imports only: `import type` and `import { type X }`-only clauses are erased. */
export function runtimeImports(source: string): string[] {
  const found: string[] = [];
  const statement = /(?:^|\n)\s*(import|export)\s+([^;'"]*?)\s*from\s*["']([^"']+)["']|(?:^|\n)\s*import\s*["']([^"']+)["']|\b(?:require|import)\(\s*["']([^"']+)["']\s*\)/g;
  for (const match of source.matchAll(statement)) {
    const bare = match[4] ?? match[5];
    if (bare) {
      found.push(bare);
      continue;
    }
    const clause = (match[2] ?? "").trim();
    if (clause.startsWith("type ")) continue;
    const named = /^\{([^}]*)\}$/.exec(clause);
    if (named && named[1]!.split(",").every((part) => part.trim() === "" || part.trim().startsWith("type "))) continue;
    found.push(match[3]!);
  }
  return found;
}

function moduleName(specifier: string): string {
  return specifier.startsWith("node:") ? specifier.slice(5).split("/")[0]! : specifier.split("/")[0]!;
}

test("the import scanner tells runtime imports from erased type imports", () => {
  const sample = [
    'import type { Stats } from "node:fs";',
    'import { type Server } from "node:http";',
    'import { readFile } from "node:fs/promises";',
    'import path from "path";',
    'export { x } from "obsidian";',
    'const os = require("os");',
    'import "node:crypto";',
  ].join("\n");
  assert.deepEqual(runtimeImports(sample).map(moduleName), ["fs", "path", "obsidian", "os", "crypto"]);
});

for (const layer of ["src/core", "src/tools"]) {
  test(`${layer} has no runtime import of obsidian or a Node built-in`, () => {
    const files = sourceFiles(path.join(root, layer));
    assert.ok(files.length > 0, `${layer} has source files`);
    const offending: string[] = [];
    for (const file of files) {
      for (const specifier of runtimeImports(readFileSync(file, "utf8"))) {
        if (forbidden.has(moduleName(specifier)) || specifier.startsWith("node:")) {
          offending.push(`${path.relative(root, file)} imports ${specifier}`);
        }
      }
      // Relative imports must stay inside the pure layers.
      for (const specifier of runtimeImports(readFileSync(file, "utf8"))) {
        if (!specifier.startsWith(".")) continue;
        const target = path.relative(root, path.resolve(path.dirname(file), specifier));
        if (!target.startsWith("src/core") && !target.startsWith("src/tools")) {
          offending.push(`${path.relative(root, file)} imports ${target} outside the pure layers`);
        }
      }
    }
    assert.deepEqual(offending, []);
  });
}

test("only src/hosts/obsidian imports obsidian at run time", () => {
  const offending: string[] = [];
  for (const file of sourceFiles(path.join(root, "src"))) {
    const relative = path.relative(root, file);
    if (relative.startsWith(path.join("src", "hosts", "obsidian") + path.sep)) continue;
    for (const specifier of runtimeImports(readFileSync(file, "utf8"))) {
      if (moduleName(specifier) === "obsidian" || moduleName(specifier) === "electron") offending.push(`${relative} imports ${specifier}`);
    }
  }
  assert.deepEqual(offending, []);
  assert.ok(
    sourceFiles(path.join(root, "src", "hosts", "obsidian")).some((file) => runtimeImports(readFileSync(file, "utf8")).includes("obsidian")),
    "the Obsidian host imports obsidian",
  );
});
