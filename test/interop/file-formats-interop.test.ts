/**
 * Tables Java Paimon 1.4.2 wrote with file.format=orc (issue 9 item 11): paimon-rt plans them
 * (metadata is format-independent) but refuses to read their data files or to write into them
 * with UNSUPPORTED naming the format. Before, reads failed with CORRUPT_FILE. (Avro data files
 * are read: avro-data-interop.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as fsp from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { Catalog } from "../../src/catalog/catalog.js";
import { PaimonError } from "../../src/error.js";
import { javaOracleUnavailable, writeTables } from "./oracle/harness.js";

const noJava = javaOracleUnavailable();
if (noJava) console.warn(`[file-formats-interop] skipping: ${noJava}`);

const FIELDS = [
  { name: "id", type: "INT" },
  { name: "s", type: "STRING" },
];

describe.skipIf(!!noJava)("Java tables with ORC data files", () => {
  let warehouse = "";
  let catalog: Catalog;

  beforeAll(async () => {
    warehouse = await fsp.mkdtemp(path.join(os.tmpdir(), "paimon-rt-formats-java-"));
    await writeTables(
      "java",
      warehouse,
      ["orc"].map((format) => ({
        identifier: `db.${format}`,
        spec: { fields: FIELDS, options: { bucket: "-1", "file.format": format }, commits: [[{ id: 1, s: "a" }, { id: 2, s: "b" }]] },
      })),
    );
    catalog = await Catalog.open(warehouse);
  }, 120_000);

  afterAll(async () => {
    if (warehouse) await fsp.rm(warehouse, { recursive: true, force: true });
  });

  for (const format of ["orc"]) {
    it(`file.format=${format}: read and write are UNSUPPORTED naming ${format}`, async () => {
      const table = await catalog.getTable(`db.${format}`);
      const plan = await table.newScan().plan();
      const files = plan.splits.flatMap((s) => s.files.map((f) => f.fileName));
      expect(files.length).toBe(1);
      expect(files[0]!.endsWith(`.${format}`)).toBe(true);
      let readError: unknown;
      try {
        await table.newRead().toArrow(plan.splits);
      } catch (e) {
        readError = e;
      }
      expect(readError).toBeInstanceOf(PaimonError);
      expect((readError as PaimonError).code).toBe("UNSUPPORTED");
      expect((readError as PaimonError).message).toContain(`${files[0]} is in ${format} format; paimon-rt reads parquet and avro data files only`);
      await expect(table.newWrite({ commitUser: "rt" })).rejects.toMatchObject({ code: "UNSUPPORTED", message: `table db.${format}: file.format '${format}' is not supported (paimon-rt reads and writes parquet and avro data files only)` });
    });
  }
});
