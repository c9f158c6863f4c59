// An LRU of loads of immutable files (manifests, Parquet footers, decoded file indexes): each key
// is loaded once and shared while it stays among the most recently used; a failed load is
// forgotten so the next request retries.

export class LoadCache<V> {
  private readonly entries = new Map<string, Promise<V>>();
  /** The values of the kept entries that finished loading (what `loaded` answers without a promise). */
  private readonly values = new Map<string, V>();
  /** With `weigh`: the weight of each loaded entry, and their sum. */
  private readonly weights = new Map<string, number>();
  private total = 0;
  /** The key last inserted (the most recently used while it is kept), or null. */
  private newest: string | null = null;

  /**
   * Keeps the `capacity` most recently used entries; with `weigh`, the most recently used loaded
   * values whose weights (e.g. bytes) sum to at most `capacity` (a value heavier than that alone
   * is returned but not kept).
   */
  constructor(
    private readonly capacity: number,
    private readonly weigh?: (value: V) => number,
  ) {}

  /** Number of entries kept (loaded or loading). */
  get size(): number {
    return this.entries.size;
  }

  /** Summed weight of the loaded entries (with `weigh`). */
  get weight(): number {
    return this.total;
  }

  /** The value for `key`, loading it with `load` on first use (or after eviction / failure). */
  get(key: string, load: () => Promise<V>): Promise<V> {
    let hit = this.entries.get(key);
    if (hit) {
      if (key === this.newest) return hit; // already the most recently used: no re-insert (a plan asks for the same file again and again)
      this.entries.delete(key); // re-insert: most recently used last
    } else {
      const loading = load();
      hit = loading;
      loading.then(
        (value) => {
          if (this.entries.get(key) !== loading) return;
          this.values.set(key, value);
          this.weighed(key, value);
        },
        () => {
          if (this.entries.get(key) === loading) this.entries.delete(key);
        },
      );
      if (!this.weigh && this.entries.size >= this.capacity) this.evict(this.entries.keys().next().value!);
    }
    this.entries.set(key, hit);
    this.newest = key;
    return hit;
  }

  /** The value for `key` when kept (loaded or loading), then as most recently used; else undefined. */
  peek(key: string): Promise<V> | undefined {
    const hit = this.entries.get(key);
    if (hit && key !== this.newest) {
      this.entries.delete(key);
      this.entries.set(key, hit);
      this.newest = key;
    }
    return hit;
  }

  /**
   * The value for `key` when kept and loaded (then as most recently used, like `get`), else
   * undefined: callers with a synchronous fast path take it without awaiting a promise.
   */
  loaded(key: string): V | undefined {
    const value = this.values.get(key);
    if (value !== undefined) this.peek(key);
    return value;
  }

  /** Drops every entry. */
  clear(): void {
    this.entries.clear();
    this.values.clear();
    this.newest = null;
    this.weights.clear();
    this.total = 0;
  }

  /** A weighted load finished: account for it, then evict least recently used entries over capacity. */
  private weighed(key: string, value: V): void {
    if (!this.weigh) return;
    const w = this.weigh(value);
    this.weights.set(key, w);
    this.total += w;
    for (const oldest of this.entries.keys()) {
      if (this.total <= this.capacity) break;
      if (this.weights.has(oldest)) this.evict(oldest); // entries still loading weigh nothing yet
    }
  }

  private evict(key: string): void {
    this.entries.delete(key);
    this.values.delete(key);
    const w = this.weights.get(key);
    if (w === undefined) return;
    this.weights.delete(key);
    this.total -= w;
  }
}
