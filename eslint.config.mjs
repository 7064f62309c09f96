import { defineConfig, globalIgnores } from "eslint/config";
import obsidianmd from "eslint-plugin-obsidianmd";

const hostModules = ["obsidian", "electron", "node:*", "fs", "path", "http", "https", "crypto", "os", "child_process", "net", "url", "stream", "events", "util", "worker_threads"];

export default defineConfig([
  globalIgnores(["node_modules/", "dist/", "main.js", "bench/out/", "examples/", "docs/", "coverage/"]),
  ...obsidianmd.configs.recommended,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ["eslint.config.mjs", "esbuild.config.mjs", "test/run.mjs", "bench/build.mjs"] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
  },
  {
    files: ["**/*.ts"],
    rules: {
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
    },
  },
  {
    // SPEC §2: the pure layers reach the world only through ports.
    files: ["src/core/**/*.ts", "src/tools/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            { group: hostModules, message: "src/core and src/tools are host-free: put this behind a port (src/core/ports.ts).", allowTypeImports: true },
          ],
        },
      ],
    },
  },
  {
    // The CLI, tests and benches are Node programs, not plugin code.
    files: ["src/cli.ts", "src/hosts/node/**/*.ts", "test/**/*.ts", "bench/**/*.ts", "mcpb/**/*.ts", "*.mjs"],
    rules: {
      "no-console": "off",
      "obsidianmd/prefer-window-timers": "off",
      "obsidianmd/no-restricted-globals": "off",
      // Headless there is no app whose configDir could be asked.
      "obsidianmd/hardcoded-config-path": "off",
      "no-restricted-globals": "off",
    },
  },
  {
    // Server code runs in Node and in Obsidian's main window alike; popout windows do not apply.
    files: ["src/http/**/*.ts", "src/mcp/**/*.ts", "src/auth/**/*.ts", "src/history/**/*.ts"],
    rules: { "obsidianmd/prefer-window-timers": "off" },
  },
  {
    files: ["src/**/*.ts"],
    rules: {
      "obsidianmd/ui/sentence-case": [
        "warn",
        {
          brands: ["Second Brain MCP", "Claude Code", "Claude Desktop", "Cursor", "Codex", "Obsidian"],
          acronyms: ["MCP", "URL", "HTTP"],
        },
      ],
    },
  },
  {
    // The declarative settings API starts at Obsidian 1.13; minAppVersion is 1.8.7, and Obsidian 1.13
    // still calls display() on a tab without getSettingDefinitions().
    files: ["src/hosts/obsidian/settings-tab.ts"],
    rules: { "obsidianmd/settings-tab/prefer-setting-definitions": "off" },
  },
  {
    // moment is a devDependency only: the oracle of the date-format tests, since Obsidian's daily notes
    // are named by Moment formats. The plugin takes moment from the app at run time.
    files: ["package.json"],
    rules: { "depend/ban-dependencies": ["error", { allowed: ["moment"] }] },
  },
  {
    // The SDK marks its low-level Server deprecated in favour of McpServer, which wants zod schemas;
    // our tools carry JSON Schema, which only the low-level class takes as it is.
    files: ["src/mcp/server.ts", "src/mcp/transport.ts"],
    rules: { "@typescript-eslint/no-deprecated": "off" },
  },
  {
    // The stand-in is Obsidian's side of the API (it implements createEl, trash, settings tabs): the
    // rules for plugin authors do not apply to it, nor to the test plugins and pages built on it.
    files: ["test/obsidian-stand-in/**/*.ts", "test/screenshot/**/*.ts", "test/e2e/plugin*.test.ts", "test/hosts/obsidian/**/*.ts"],
    rules: {
      "obsidianmd/prefer-create-el": "off",
      "obsidianmd/ui/sentence-case": "off",
      "obsidianmd/prefer-file-manager-trash-file": "off",
      "obsidianmd/settings-tab/prefer-setting-definitions": "off",
      "obsidianmd/no-static-styles-assignment": "off",
      "obsidianmd/no-global-this": "off",
    },
  },
  {
    files: ["test/**/*.ts", "bench/**/*.ts"],
    rules: {
      "obsidianmd/hardcoded-config-path": "off",
      "obsidianmd/rule-custom-message": "off",
      // Tests use moment itself as the oracle for our Moment-style date formats.
      "@typescript-eslint/no-restricted-imports": "off",
      "@typescript-eslint/no-floating-promises": "off",
      "@typescript-eslint/no-non-null-assertion": "off",
    },
  },
]);
