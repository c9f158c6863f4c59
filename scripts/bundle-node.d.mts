// Types of scripts/bundle-node.mjs for the TypeScript tests that import it.
/** The entries of dist/node: output name → module of dist/. */
export const NODE_ENTRIES: Record<string, string>;
/** Bundles `distDir`'s entries into `distDir`/node; returns the bytes written. */
export function bundleNode(distDir: string): number;
