// The on-device runtime: the npm packages that run a model (transformers.js and ONNX Runtime's Node
// engine), fetched only when the user asks, from the npm registry or a mirror, each tarball checked
// against the sha512 integrity of this repository's package-lock.json (a test keeps the two equal).
// The plugin loads them from its data folder by absolute path; they are never bundled into main.js.

export interface RuntimePackage {
  readonly name: string;
  readonly version: string;
  /** Subresource integrity as npm writes it: "sha512-" and the base64 digest of the tarball. */
  readonly integrity: string;
  /** Bytes of the tarball. */
  readonly size: number;
}

export const DEFAULT_RUNTIME_SOURCE = "https://registry.npmjs.org";

export const RUNTIME_PACKAGES: readonly RuntimePackage[] = [
  { name: "@huggingface/transformers", version: "4.3.2", integrity: "sha512-V3+dqf3iWlRYJ9I9GreM3zGQd0lAXnnoPeddmkOQYWAEE4l/+Fi6p7tx/qVUJlKQgLXGim2W76rTOzz+eC0i7g==", size: 2_273_070 },
  { name: "onnxruntime-common", version: "1.30.0", integrity: "sha512-7fdVWjAID1dVhH/G8qK3APARunV4VkBFoCQAP7qp4Wkab0mrorvmc+sqiT+mKXOzDqdjN5j+/Z9nb4gzNPWcyA==", size: 66_795 },
  // Every platform's engine is in the one tarball; only this machine's is kept on disk.
  { name: "onnxruntime-node", version: "1.30.0", integrity: "sha512-twhs1C2C/BFkz1yc5OY0KIU2GUq6DURO7hD4bx5Q2Qy3nAMJwRXW8xU3NVczE29VA9lolLOYepoD8fjTGOfIqw==", size: 113_507_888 },
];

/** The registry's tarball URL: `<source>/<name>/-/<name without scope>-<version>.tgz`. */
export function tarballUrl(source: string, pkg: RuntimePackage): string {
  const base = source.trim().replace(/\/+$/, "");
  const bare = pkg.name.includes("/") ? pkg.name.slice(pkg.name.indexOf("/") + 1) : pkg.name;
  return `${base}/${pkg.name}/-/${bare}-${pkg.version}.tgz`;
}

export function runtimeSize(packages: readonly RuntimePackage[] = RUNTIME_PACKAGES): number {
  return packages.reduce((sum, pkg) => sum + pkg.size, 0);
}
