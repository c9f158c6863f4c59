/**
 * Data-file formats other than Parquet / Avro / ORC and manifest formats other than Avro are refused with UNSUPPORTED naming
 * the format (issue 9 item 11): at create and alter (file.format, file.format.per.level,
 * manifest.format), at write into a table whose options name another format, and at read of a
 * data file in a format other than Parquet, Avro and ORC. Before, file.format=orc silently wrote
 * Parquet files (now it writes ORC files).
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import * as fsp from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { Catalog } from "../../src/catalog/catalog.js";
import { PaimonError } from "../../src/error.js";
import { checkDataFileFormat, dataFileFormatOf } from "../../src/format/file-formats.js";

const FIELDS = [
  { name: "id", type: "INT" },
  { name: "s", type: "STRING" },
];

async function rejection(p: Promise<unknown>): Promise<PaimonError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(PaimonError);
    return e as PaimonError;
  }
  throw new Error("expected a PaimonError");
}

describe("file formats other than Parquet data files / Avro manifests", () => {
  let warehouse = "";
  let catalog: Catalog;

  beforeEach(async () => {
    warehouse = await fsp.mkdtemp(path.join(os.tmpdir(), "paimon-rt-formats-"));
    catalog = await Catalog.open(warehouse);
    await catalog.createDatabase("db");
  });
  afterEach(async () => {
    await fsp.rm(warehouse, { recursive: true, force: true });
  });

  it("createTable refuses file.format lance / LANCE / csv and writes nothing (avro and orc are written)", async () => {
    for (const [format, named] of [["lance", "lance"], ["LANCE", "lance"], ["csv", "csv"]]) {
      const e = await rejection(catalog.createTable(`db.t_${format}`, { fields: FIELDS, options: { "file.format": format } }));
      expect(e.code, format).toBe("UNSUPPORTED");
      expect(e.message).toContain(`file.format '${named}' is not supported`);
      await expect(fsp.stat(path.join(warehouse, "db.db", `t_${format}`))).rejects.toMatchObject({ code: "ENOENT" });
    }
    // parquet and avro in any case are fine
    const t = await catalog.createTable("db.upper", { fields: FIELDS, options: { "file.format": "Parquet" } });
    expect(t.options["file.format"]).toBe("Parquet");
    await catalog.createTable("db.avro", { fields: FIELDS, options: { "file.format": "AVRO" } });
    await catalog.createTable("db.orc", { fields: FIELDS, options: { "file.format": "ORC" } });
  });

  it("createTable refuses file.format.per.level naming another format, and manifest.format other than avro", async () => {
    const perLevel = await rejection(catalog.createTable("db.pl", { fields: FIELDS, options: { "file.format.per.level": "0:parquet, 3:csv" } }));
    expect(perLevel.code).toBe("UNSUPPORTED");
    expect(perLevel.message).toContain("file.format.per.level names 'csv' for level 3");
    const bad = await rejection(catalog.createTable("db.pl2", { fields: FIELDS, options: { "file.format.per.level": "avro" } }));
    expect(bad.code).toBe("INVALID_ARGUMENT");
    const manifest = await rejection(catalog.createTable("db.mf", { fields: FIELDS, options: { "manifest.format": "parquet" } }));
    expect(manifest.code).toBe("UNSUPPORTED");
    expect(manifest.message).toContain("manifest.format 'parquet' is not supported");
    await catalog.createTable("db.ok", { fields: FIELDS, options: { "file.format.per.level": "0:avro,3:orc,5:PARQUET", "manifest.format": "Avro" } });
  });

  it("alterTable refuses to switch the format and leaves the schema unchanged", async () => {
    await catalog.createTable("db.t", { fields: FIELDS });
    for (const [key, value] of [["file.format", "csv"], ["file.format.per.level", "0:csv"], ["manifest.format", "orc"]]) {
      const e = await rejection(catalog.alterTable("db.t", [{ kind: "setOption", key, value }]));
      expect(e.code, key).toBe("UNSUPPORTED");
      expect(e.message).toContain(value.replace("0:", ""));
    }
    expect(await fsp.readdir(path.join(warehouse, "db.db", "t", "schema"))).toEqual(["schema-0"]);
    const t = await catalog.getTable("db.t");
    expect(t.options["file.format"]).toBeUndefined();
  });

  it("a table whose schema says file.format=csv (another engine's) cannot be written; reading a .csv data file is UNSUPPORTED (.avro and .orc are read)", async () => {
    // Schema files of other engines are taken as they are: rewrite schema-0 like Java would.
    await catalog.createTable("db.j", { fields: FIELDS });
    const schemaFile = path.join(warehouse, "db.db", "j", "schema", "schema-0");
    const json = JSON.parse(await fsp.readFile(schemaFile, "utf8"));
    json.options = { ...json.options, "file.format": "csv" };
    await fsp.writeFile(schemaFile, JSON.stringify(json));
    const table = await catalog.getTable("db.j");
    const e = await rejection(table.newWrite({ commitUser: "u" }));
    expect(e.code).toBe("UNSUPPORTED");
    expect(e.message).toBe("table db.j: file.format 'csv' is not supported (paimon-rt reads and writes parquet, avro and orc data files only)");

    expect(dataFileFormatOf("bucket-0/data-1-0.orc")).toBe("orc");
    expect(dataFileFormatOf("data-1-0.AVRO")).toBe("avro");
    expect(dataFileFormatOf("dir.x/data")).toBe("");
    expect(() => checkDataFileFormat("/wh/db.db/t/bucket-0/data-1-0.csv")).toThrow(
      new PaimonError("UNSUPPORTED", "data file /wh/db.db/t/bucket-0/data-1-0.csv is in csv format; paimon-rt reads and writes parquet, avro and orc data files only"),
    );
    expect(() => checkDataFileFormat("/wh/db.db/t/bucket-0/data-1-0.orc")).not.toThrow();
    expect(() => checkDataFileFormat("/wh/db.db/t/bucket-0/data-1-0.avro")).not.toThrow();
    expect(() => checkDataFileFormat("/wh/db.db/t/bucket-0/data-1-0.parquet")).not.toThrow();
  });
});
