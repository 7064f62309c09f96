// What Obsidian loads: the plugin class as the module's default export.
export { SecondBrainPlugin as default } from "./hosts/obsidian/plugin";
