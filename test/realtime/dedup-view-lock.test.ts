import { describe, expect, it } from "vitest";
import { DedupEntryState } from "../../src/realtime/dedup.js";
import type { RealtimeReadView, RealtimeStore } from "../../src/realtime/store.js";

const view = { offsetRange: null } as unknown as RealtimeReadView;
const storeOf = (acquireReadView: () => RealtimeReadView | Promise<RealtimeReadView>) => ({ acquireReadView }) as unknown as RealtimeStore;

describe("DedupEntryState.viewWithFrozenDeletions", () => {
  it("answers at once when its lock is idle and the store answers at once", () => {
    const state = new DedupEntryState();
    const r = state.viewWithFrozenDeletions(storeOf(() => view));
    expect(r).not.toBeInstanceOf(Promise);
    expect(r).toEqual({ value: view, deleted: null });
    expect(state.lock.idle).toBe(true);
  });

  it("takes the view after a locked section that runs (a write), and awaits a store that answers later, holding the lock", async () => {
    const state = new DedupEntryState();
    const order: string[] = [];
    let open!: () => void;
    const opened = new Promise<void>((r) => (open = r));
    const section = state.lock.run(async () => {
      await opened;
      order.push("section");
    });
    expect(state.lock.idle).toBe(false);
    const pending = state.viewWithFrozenDeletions(
      storeOf(() => {
        order.push("view");
        return view;
      }),
    );
    expect(pending).toBeInstanceOf(Promise);
    await new Promise((r) => setTimeout(r, 1));
    expect(order).toEqual([]);
    open();
    await section;
    expect(await pending).toEqual({ value: view, deleted: null });
    expect(order).toEqual(["section", "view"]);
    expect(state.lock.idle).toBe(true);

    let resolve!: (v: RealtimeReadView) => void;
    const later = state.viewWithFrozenDeletions(storeOf(() => new Promise<RealtimeReadView>((r) => (resolve = r))));
    expect(later).toBeInstanceOf(Promise);
    expect(state.lock.idle).toBe(false); // a write now waits for the view and its deletions
    resolve(view);
    expect(await later).toEqual({ value: view, deleted: null });
    expect(state.lock.idle).toBe(true);
  });
});
