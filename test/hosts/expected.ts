// What every runtime must read from the host fixture (test/hosts/fixture.ts) through queries.mjs.
export const EXPECTED = {
  databases: ["db"],
  tables: ["app", "evolved", "pk"],
  appSnapshots: [1, 2],
  appAll: [
    { id: "1", name: "a1", dt: "2024-01-01" },
    { id: "2", name: "a2", dt: "2024-01-01" },
    { id: "3", name: "a3", dt: "2024-01-02" },
    { id: "4", name: "a4", dt: "2024-01-02" },
    { id: "5", name: "b5", dt: "2024-01-01" },
    { id: "6", name: "b6", dt: "2024-01-02" },
    { id: "7", name: "b7", dt: "2024-01-03" },
  ],
  appFiltered: [
    { id: "4", name: "a4" },
    { id: "6", name: "b6" },
  ],
  appAtSnapshot1: [
    { id: "1", name: "a1", dt: "2024-01-01" },
    { id: "2", name: "a2", dt: "2024-01-01" },
    { id: "3", name: "a3", dt: "2024-01-02" },
    { id: "4", name: "a4", dt: "2024-01-02" },
  ],
  appBuckets: [0, 1],
  appStream: [
    { snapshotId: null, checkpoint: 1, rows: [] },
    { snapshotId: 1, checkpoint: 2, rows: ["1", "2", "3", "4"].map((id) => ({ _VALUE_KIND: 0, id })) },
    { snapshotId: 2, checkpoint: 3, rows: ["5", "6", "7"].map((id) => ({ _VALUE_KIND: 0, id })) },
    { snapshotId: null, checkpoint: 3, rows: [] },
  ],
  pkAll: [
    { id: "1", name: "p1", dt: "x" },
    { id: "2", name: "p2-updated", dt: "x" },
    { id: "3", name: "p3", dt: "y" },
    { id: "5", name: "p5", dt: "y" },
  ],
  pkDeletionFiles: true,
  pkFiltered: [
    { _VALUE_KIND: 0, id: "3", name: "p3", dt: "y" },
    { _VALUE_KIND: 0, id: "5", name: "p5", dt: "y" },
  ],
  // snapshot 1 holds only level-0 files, which a deletion-vector table does not read (Java Paimon
  // reads DV tables from compacted levels only); the second write compacted them
  pkAtSnapshot1: [],
  rowKindDelete: 3,
  evolvedAll: [
    { id: "1", label: "e1", dt: "x", score: null },
    { id: "2", label: "e2", dt: "x", score: null },
    { id: "3", label: "e3", dt: "y", score: 30 },
  ],
  evolvedAtSnapshot1: [
    { id: "1", name: "e1", dt: "x" },
    { id: "2", name: "e2", dt: "x" },
  ],
  refusals: ["READ_ONLY", "READ_ONLY", "READ_ONLY"],
};
