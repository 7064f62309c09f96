// Runs every test/**/*.test.ts with Node's test runner (Node 20 does not expand globs itself).
import { spawnSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.dirname(fileURLToPath(import.meta.url));

function find(dir) {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return find(full);
    return name.endsWith(".test.ts") ? [full] : [];
  });
}

// --update-snapshots rewrites committed snapshots (test/tools/schemas.snapshot.json) instead of comparing.
const update = process.argv.includes("--update-snapshots");
const filters = process.argv.slice(2).filter((arg) => arg !== "--update-snapshots");
const files = find(root)
  .map((file) => path.relative(process.cwd(), file))
  .filter((file) => filters.length === 0 || filters.some((filter) => file.includes(filter)))
  .sort();
if (files.length === 0) {
  console.error(`no test file matches ${filters.join(" ")}`);
  process.exit(1);
}
const env = update ? { ...process.env, UPDATE_SNAPSHOTS: "1" } : process.env;
const result = spawnSync(process.execPath, ["--import", "tsx", "--test", "--test-concurrency=2", ...files], { stdio: "inherit", env });
process.exit(result.status ?? 1);
