// The module `obsidian` resolves to when the stand-in loads a plugin.
export { Events, type EventRef } from "./events";
export { Component, Plugin, type Command, type PluginManifest } from "./component";
export { TAbstractFile, TFile, TFolder, Vault, FileSystemAdapter, FileSystemAdapter as DataAdapter } from "./vault";
export { MetadataCache } from "./metadata-cache";
export { FileManager } from "./file-manager";
export { Workspace, WorkspaceLeaf, MarkdownView, View, Editor } from "./workspace";
export { App } from "./app";
export {
  normalizePath,
  parseLinktext,
  getLinkpath,
  stripHeading,
  stripHeadingForLink,
  getFrontMatterInfo,
  parseYaml,
  stringifyYaml,
  Platform,
  debounce,
} from "./utils";
export { getAllTags, parseFrontMatterTags, parseFrontMatterAliases } from "./metadata/tags";
export { Notice } from "./ui/notice";
export { Modal, SuggestModal, FuzzySuggestModal } from "./ui/modal";
export { Setting } from "./ui/setting";
export { SettingTab, PluginSettingTab } from "./ui/setting-tab";
export {
  ButtonComponent,
  TextComponent,
  ToggleComponent,
  DropdownComponent,
  TextAreaComponent,
  ExtraButtonComponent,
  setIcon,
} from "./ui/components";
export { default as moment } from "moment";
export { loadPdfJs } from "./pdf";
export { requestUrl, type RequestUrlParam, type RequestUrlResponse } from "./request-url";
