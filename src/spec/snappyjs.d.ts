declare module "snappyjs" {
  export function compress(input: Uint8Array): Uint8Array;
  export function uncompress(input: Uint8Array, maxLength?: number): Uint8Array;
  const snappy: { compress: typeof compress; uncompress: typeof uncompress };
  export default snappy;
}

// the decompressor alone (no compressor, no Buffer checks): what query bundles need for Avro blocks
declare module "snappyjs/snappy_decompressor.js" {
  export class SnappyDecompressor {
    constructor(compressed: Uint8Array);
    /** The block's declared content length, or -1 when its varint is malformed. */
    readUncompressedLength(): number;
    /** Decompresses into `out` (exactly the declared length); false when the block is malformed. */
    uncompressToBuffer(out: Uint8Array): boolean;
  }
}
