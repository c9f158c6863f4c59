// File names that come from outside the library (commit messages, manifests, snapshots,
// options) become path segments. A name that is not one plain segment could point anywhere
// (`../../victim.parquet`), so every such name is checked before it is joined to a directory.

/** Longest file or directory name common file systems accept (ext4, XFS, APFS, NTFS: 255 bytes). */
export const MAX_FILE_NAME_BYTES = 255;

const utf8 = new TextEncoder();

/** UTF-8 length of `text` in bytes (what file-system name limits count). */
export function utf8Length(text: string): number {
  return utf8.encode(text).length;
}

/**
 * Why `name` is not a plain file name (one path segment), or null when it is one: non-empty,
 * no `/` or `\`, not `.` or `..`, no NUL character, at most {@link MAX_FILE_NAME_BYTES} bytes of UTF-8.
 */
export function fileNameProblem(name: unknown): string | null {
  if (typeof name !== "string") return "is not a string";
  if (name.length === 0) return "is empty";
  if (name === "." || name === "..") return "is a relative directory reference";
  if (name.includes("/") || name.includes("\\")) return "contains a path separator";
  if (name.includes("\u0000")) return "contains a NUL character";
  const bytes = utf8Length(name);
  if (bytes > MAX_FILE_NAME_BYTES) return `is ${bytes} bytes long (at most ${MAX_FILE_NAME_BYTES})`;
  return null;
}

/** Whether `name` is a plain file name (see {@link fileNameProblem}). */
export function isPlainFileName(name: unknown): name is string {
  return fileNameProblem(name) === null;
}

/**
 * Why `prefix` cannot start a file name (`data-file.prefix`, `changelog-file.prefix`), or null:
 * it may be empty, but must not contain `/`, `\` or NUL, and leaves room for the generated rest.
 */
export function fileNamePrefixProblem(prefix: string, generatedSuffixBytes: number): string | null {
  if (prefix.includes("/") || prefix.includes("\\")) return "contains a path separator";
  if (prefix.includes("\u0000")) return "contains a NUL character";
  const bytes = utf8Length(prefix);
  if (bytes + generatedSuffixBytes > MAX_FILE_NAME_BYTES) {
    return `is ${bytes} bytes long (at most ${MAX_FILE_NAME_BYTES - generatedSuffixBytes}, file names are limited to ${MAX_FILE_NAME_BYTES} bytes)`;
  }
  return null;
}

/** Temporary files of atomic writes (`.<name>.<uuid>.tmp` locally; `_tmp` / `.tmp` suffixes elsewhere). */
export const TEMP_FILE_NAME = /(^\..*\.tmp$)|(\.tmp$)|(_tmp$)|(^_tmp)/;
