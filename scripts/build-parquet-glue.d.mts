// Types of scripts/build-parquet-glue.mjs for the TypeScript tests that import it.
export const parquetGluePath: string;
export function parquetGlueSource(): { source: string; version: string; names: string[] };
