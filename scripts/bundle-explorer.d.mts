// Types of scripts/bundle-explorer.mjs for the TypeScript tests that import it.
import type { Plugin } from "vite";

export const keepWasmExternal: Plugin;
export function bundleExplorer(outDir: string): Promise<number>;
