// Spare page buffers, reused for later pages: copying a page into a kept buffer costs a memcpy,
// a fresh buffer also its allocation and first-touch page faults (several times the copy,
// measured on 1 M-row files). Used by the flat decoder (pages decompressed ahead of their turn)
// and by the page worker (buffers pages travel in to the worker and back). Runtime-neutral.

export class BufferPool {
  private readonly spare: ArrayBuffer[] = [];

  /**
   * Keeps at most `maxBuffers` buffers of at most `maxBytes` each; new buffers are at least
   * `minBytes`, rounded up to a multiple of `grain` (so a buffer fits later pages of about the
   * same size).
   */
  constructor(
    private readonly maxBuffers: number,
    private readonly maxBytes: number,
    private readonly minBytes: number,
    private readonly grain: number,
  ) {}

  /** Buffers kept. */
  get size(): number {
    return this.spare.length;
  }

  /** A kept buffer of at least `bytes` (the smallest that fits), or a new one. */
  take(bytes: number): ArrayBuffer {
    let best = -1;
    for (let i = 0; i < this.spare.length; i++) {
      const n = this.spare[i]!.byteLength;
      if (n >= bytes && (best < 0 || n < this.spare[best]!.byteLength)) best = i;
    }
    if (best < 0) return new ArrayBuffer(Math.ceil(Math.max(bytes, this.minBytes, 1) / this.grain) * this.grain);
    const buffer = this.spare[best]!;
    this.spare[best] = this.spare[this.spare.length - 1]!;
    this.spare.pop();
    return buffer;
  }

  /**
   * Keeps `b` for later, unless it is empty or larger than `maxBytes`. With `maxBuffers` kept
   * already, `b` takes the place of the smallest when it is larger (else it is dropped): the larger
   * buffers fit any page, and a pool full of small buffers would otherwise allocate afresh for
   * every larger page (the pages of a wider column after those of a narrower one).
   */
  give(b: ArrayBuffer): void {
    const n = b.byteLength;
    if (n === 0 || n > this.maxBytes) return;
    if (this.spare.length < this.maxBuffers) {
      this.spare.push(b);
      return;
    }
    let smallest = 0;
    for (let i = 1; i < this.spare.length; i++) if (this.spare[i]!.byteLength < this.spare[smallest]!.byteLength) smallest = i;
    if (this.spare[smallest]!.byteLength < n) this.spare[smallest] = b;
  }
}
