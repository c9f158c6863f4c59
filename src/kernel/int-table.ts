// An int32-keyed hash table over typed arrays, for sets and maps of millions of 32-bit hashes.

/**
 * An int32 → int32 open-addressing table over typed arrays (Java's `Int2ShortHashMap` /
 * `IntHashSet`): millions of key hashes without a heap number per entry.
 */
export class IntTable {
  private keys: Int32Array;
  private values: Int32Array;
  private used: Uint8Array;
  private mask: number;
  size = 0;

  constructor(capacity = 16) {
    let n = 16;
    while (n < capacity * 2) n *= 2;
    this.keys = new Int32Array(n);
    this.values = new Int32Array(n);
    this.used = new Uint8Array(n);
    this.mask = n - 1;
  }

  private slot(key: number): number {
    let i = Math.imul(key, 0x9e3779b9) >>> 0;
    i = (i ^ (i >>> 16)) & this.mask;
    while (this.used[i] === 1 && this.keys[i] !== key) i = (i + 1) & this.mask;
    return i;
  }

  /** The value of `key`, or -1 when absent. */
  get(key: number): number {
    const i = this.slot(key);
    return this.used[i] === 1 ? this.values[i]! : -1;
  }

  has(key: number): boolean {
    return this.used[this.slot(key)] === 1;
  }

  /** Sets `key` to `value`; whether the key was new. */
  set(key: number, value = 0): boolean {
    let i = this.slot(key);
    if (this.used[i] === 1) {
      this.values[i] = value;
      return false;
    }
    if ((this.size + 1) * 2 > this.keys.length) {
      this.grow();
      i = this.slot(key);
    }
    this.used[i] = 1;
    this.keys[i] = key;
    this.values[i] = value;
    this.size++;
    return true;
  }

  /** Every key, in slot order. */
  keyArray(): Int32Array {
    const out = new Int32Array(this.size);
    for (let i = 0, j = 0; i < this.used.length; i++) if (this.used[i] === 1) out[j++] = this.keys[i]!;
    return out;
  }

  private grow(): void {
    const { keys, values, used } = this;
    const n = keys.length * 2;
    this.keys = new Int32Array(n);
    this.values = new Int32Array(n);
    this.used = new Uint8Array(n);
    this.mask = n - 1;
    for (let i = 0; i < used.length; i++) {
      if (used[i] !== 1) continue;
      const at = this.slot(keys[i]!);
      this.used[at] = 1;
      this.keys[at] = keys[i]!;
      this.values[at] = values[i]!;
    }
  }
}
