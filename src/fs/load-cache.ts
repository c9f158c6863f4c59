// An LRU of loads of immutable files (manifests, Parquet footers): each key is loaded once and
// shared while it stays among the `capacity` most recently used; a failed load is forgotten so
// the next request retries.

export class LoadCache<V> {
  private readonly entries = new Map<string, Promise<V>>();

  constructor(private readonly capacity: number) {}

  /** The value for `key`, loading it with `load` on first use (or after eviction / failure). */
  get(key: string, load: () => Promise<V>): Promise<V> {
    let hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key); // re-insert: most recently used last
    } else {
      hit = load();
      hit.catch(() => this.entries.delete(key));
      if (this.entries.size >= this.capacity) this.entries.delete(this.entries.keys().next().value!);
    }
    this.entries.set(key, hit);
    return hit;
  }
}
