/**
 * The one UTF-8 decoder for values (strings of rows, keys, partitions, statistics, index
 * entries). A leading U+FEFF is part of a string — Java's `new String(bytes, UTF_8)` and
 * pyarrow keep it — so it must not be dropped as a byte-order mark, which `TextDecoder` does
 * by default: "\uFEFFa" would read back as "a" and merge with it.
 */
export const utf8Decoder = new TextDecoder("utf-8", { ignoreBOM: true });
