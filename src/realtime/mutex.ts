// An async mutex: serialises critical sections that await (seal / prepare / refresh; deduplicate
// key-index changes with the store writes and views they belong to).
/** Serialises async critical sections. */
export class Mutex {
  private tail: Promise<void> = Promise.resolve();

  async run<T>(fn: () => Promise<T>): Promise<T> {
    const prev = this.tail;
    let done!: () => void;
    this.tail = new Promise<void>((r) => (done = r));
    await prev;
    try {
      return await fn();
    } finally {
      done();
    }
  }
}
