// A BatchReader over groups of batches. Async generators cost a promise chain per `yield` (and
// await every yielded value); when batches come in groups that are ready together (a memory
// tail's chunks, a decoded row group), yielding the group once and handing out its batches
// from a plain iterator keeps per-batch cost at one resolved promise.
import type * as arrow from "apache-arrow";

/** An async stream of record batches that must be closed (API.md `BatchReader`). */
export interface BatchReader extends AsyncIterable<arrow.RecordBatch> {
  close(): Promise<void>;
}

const DONE: IteratorReturnResult<undefined> = Object.freeze({ value: undefined, done: true });

class GroupedBatchReader implements BatchReader, AsyncIterator<arrow.RecordBatch, undefined> {
  private group: readonly arrow.RecordBatch[] = [];
  private at = 0;
  private finished = false;

  constructor(
    /** null: `group` is all there is. */
    private readonly groups: AsyncGenerator<readonly arrow.RecordBatch[], void, undefined> | null,
    private readonly onClose: () => Promise<void>,
    group: readonly arrow.RecordBatch[] = [],
  ) {
    this.group = group;
  }

  [Symbol.asyncIterator](): AsyncIterator<arrow.RecordBatch, undefined> {
    return this;
  }

  next(): Promise<IteratorResult<arrow.RecordBatch, undefined>> {
    // Not an async function: the common case allocates just the result and its promise.
    if (this.at < this.group.length) return Promise.resolve({ value: this.group[this.at++], done: false });
    return this.pull();
  }

  private async pull(): Promise<IteratorResult<arrow.RecordBatch, undefined>> {
    while (this.at >= this.group.length) {
      if (this.finished) return DONE;
      if (this.groups === null) {
        await this.finish();
        return DONE;
      }
      let r: IteratorResult<readonly arrow.RecordBatch[], void>;
      try {
        r = await this.groups.next();
      } catch (e) {
        await this.finish();
        throw e;
      }
      if (r.done) {
        await this.finish();
        return DONE;
      }
      this.group = r.value;
      this.at = 0;
    }
    return { value: this.group[this.at++], done: false };
  }

  async return(): Promise<IteratorResult<arrow.RecordBatch, undefined>> {
    await this.finish();
    return DONE;
  }

  async close(): Promise<void> {
    await this.finish();
  }

  private async finish(): Promise<void> {
    if (this.finished) return;
    this.finished = true;
    this.group = [];
    try {
      await this.groups?.return(undefined);
    } finally {
      await this.onClose();
    }
  }
}

/** A reader handing out the batches of `groups` one by one; `onClose` runs once at the end or on close. */
export function groupedBatchReader(
  groups: AsyncGenerator<readonly arrow.RecordBatch[], void, undefined>,
  onClose: () => Promise<void> = async () => undefined,
): BatchReader {
  return new GroupedBatchReader(groups, onClose);
}

/** A reader handing out `batches`, computed already (no generator to step); `onClose` as above. */
export function batchArrayReader(batches: readonly arrow.RecordBatch[], onClose: () => Promise<void> = async () => undefined): BatchReader {
  return new GroupedBatchReader(null, onClose, batches);
}
