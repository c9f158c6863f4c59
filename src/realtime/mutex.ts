// An async mutex: serialises critical sections that await (seal / prepare / refresh; deduplicate
// key-index changes with the store writes and views they belong to).
/** Serialises async critical sections. */
export class Mutex {
  private tail: Promise<void> = Promise.resolve();
  /** Sections running or waiting. */
  private entered = 0;

  /** No section runs or waits: synchronous work done now cannot interleave with one. */
  get idle(): boolean {
    return this.entered === 0;
  }

  async run<T>(fn: () => Promise<T>): Promise<T> {
    const prev = this.tail;
    let done!: () => void;
    this.tail = new Promise<void>((r) => (done = r));
    this.entered++;
    try {
      await prev;
      return await fn();
    } finally {
      this.entered--;
      done();
    }
  }
}
