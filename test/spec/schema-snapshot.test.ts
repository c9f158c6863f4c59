import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { createTableSchema, parseSchemaJson, schemaToJson, trimmedPrimaryKeys, bucketKeys } from "../../src/spec/schema.js";
import { makeSnapshot, parseSnapshotJson, snapshotToJson } from "../../src/spec/snapshot.js";
import { parseJson, toJacksonJson } from "../../src/spec/json.js";
import { typeToString } from "../../src/spec/types.js";
import { PaimonError } from "../../src/error.js";

const FIX = new URL("./fixtures/pypaimon-2.1.0/", import.meta.url);

// The spec/schema.md example as Jackson's default pretty printer writes it.
const JAVA_SCHEMA = `{
  "version" : 3,
  "id" : 0,
  "fields" : [ {
    "id" : 0,
    "name" : "order_id",
    "type" : "BIGINT NOT NULL"
  }, {
    "id" : 1,
    "name" : "order_name",
    "type" : "STRING"
  } ],
  "highestFieldId" : 1,
  "partitionKeys" : [ ],
  "primaryKeys" : [ "order_id" ],
  "options" : {
    "bucket" : "5"
  },
  "comment" : "",
  "timeMillis" : 1720496663041
}`;

describe("schema files", () => {
  it("writes exactly Java's layout", () => {
    const s = createTableSchema(
      { fields: [{ name: "order_id", type: "BIGINT" }, { name: "order_name", type: "STRING" }], primaryKeys: ["order_id"], options: { bucket: 5 }, comment: "" },
      { timeMillis: 1720496663041 },
    );
    expect(schemaToJson(s)).toBe(JAVA_SCHEMA);
    expect(parseSchemaJson(JAVA_SCHEMA)).toEqual(s);
  });

  it("nested types: post-order field ids, complex types as objects, description, empty options", () => {
    const s = createTableSchema(
      { fields: [{ name: "a", type: "ROW<b ROW<c INT>, d INT>" }, { name: "m", type: "MAP<STRING, ARRAY<BIGINT NOT NULL>> NOT NULL", description: "a \"map\"" }] },
      { timeMillis: 1 },
    );
    expect(s.highestFieldId).toBe(4);
    const json = schemaToJson(s);
    expect(json).toBe(`{
  "version" : 3,
  "id" : 0,
  "fields" : [ {
    "id" : 0,
    "name" : "a",
    "type" : {
      "type" : "ROW",
      "fields" : [ {
        "id" : 2,
        "name" : "b",
        "type" : {
          "type" : "ROW",
          "fields" : [ {
            "id" : 1,
            "name" : "c",
            "type" : "INT"
          } ]
        }
      }, {
        "id" : 3,
        "name" : "d",
        "type" : "INT"
      } ]
    }
  }, {
    "id" : 4,
    "name" : "m",
    "type" : {
      "type" : "MAP NOT NULL",
      "key" : "STRING",
      "value" : {
        "type" : "ARRAY",
        "element" : "BIGINT NOT NULL"
      }
    },
    "description" : "a \\"map\\""
  } ],
  "highestFieldId" : 4,
  "partitionKeys" : [ ],
  "primaryKeys" : [ ],
  "options" : { },
  "timeMillis" : 1
}`);
    expect(parseSchemaJson(json)).toEqual(s);
  });

  it("applies Java's version compatibility rules", () => {
    const v1 = parseSchemaJson(`{"id":0,"fields":[{"id":0,"name":"a","type":"INT"}],"highestFieldId":0,"partitionKeys":[],"primaryKeys":[],"options":{}}`);
    expect(v1.version).toBe(1);
    expect(v1.options).toEqual({ bucket: "1", "file.format": "orc" });
    expect(v1.timeMillis).toBe(0);
    const v2 = parseSchemaJson(`{"version":2,"id":0,"fields":[],"highestFieldId":0,"partitionKeys":[],"primaryKeys":[],"options":{"bucket":"-1"}}`);
    expect(v2.options).toEqual({ bucket: "-1", "file.format": "orc" });
  });

  it("reads pypaimon 2.1.0's schema file (nullable key, explicit null comment)", () => {
    const s = parseSchemaJson(readFileSync(new URL("schema-0", FIX)), "schema-0");
    expect(s.fields.map((f) => `${f.id}:${f.name}:${typeToString(f.type)}`)).toEqual([
      "0:id:BIGINT NOT NULL",
      "1:dt:STRING NOT NULL",
      "2:name:STRING",
      "3:price:DECIMAL(10, 2)",
      "4:ts:TIMESTAMP(6)",
      "5:tags:ARRAY<STRING>",
    ]);
    expect(s.comment).toBeNull();
    expect(trimmedPrimaryKeys(s)).toEqual(["id"]);
    expect(bucketKeys(s)).toEqual(["id"]);
  });

  it("validates input", () => {
    expect(() => createTableSchema({ fields: [{ name: "a", type: "INT" }, { name: "a", type: "INT" }] })).toThrow(PaimonError);
    expect(() => createTableSchema({ fields: [{ name: "a", type: "INT" }], primaryKeys: ["b"] })).toThrow(/primary key/);
    expect(() => createTableSchema({ fields: [{ name: "a", type: "NOPE" }] })).toThrow(/'NOPE'/);
    const s = createTableSchema({ fields: [{ name: "a", type: "INT" }, { name: "p", type: "STRING" }], options: { "primary-key": "a, p", partition: "p" } });
    expect(s.primaryKeys).toEqual(["a", "p"]);
    expect(s.partitionKeys).toEqual(["p"]);
    expect(s.options).toEqual({});
    expect(typeToString(s.fields[0]!.type)).toBe("INT NOT NULL");
    expect(() => parseSchemaJson("{not json", "schema-9")).toThrow(/schema-9/);
  });
});

describe("snapshot files", () => {
  const base = {
    id: 2,
    schemaId: 0,
    baseManifestList: "manifest-list-a-2",
    baseManifestListSize: 1046,
    deltaManifestList: "manifest-list-a-3",
    deltaManifestListSize: 1043,
    commitUser: "u",
    commitIdentifier: 9223372036854775807n,
    commitKind: "APPEND" as const,
    timeMillis: 1755850000000,
    totalRecordCount: 6,
    deltaRecordCount: 3,
    nextRowId: 0,
  };

  it("writes Java's field order, omits nulls and empty properties, keeps int64 exact", () => {
    const json = snapshotToJson({ ...base, uuid: "3d9c", writerVersion: "2.1", properties: {} });
    expect(json).toBe(`{
  "version" : 3,
  "uuid" : "3d9c",
  "id" : 2,
  "schemaId" : 0,
  "baseManifestList" : "manifest-list-a-2",
  "baseManifestListSize" : 1046,
  "deltaManifestList" : "manifest-list-a-3",
  "deltaManifestListSize" : 1043,
  "commitUser" : "u",
  "writerVersion" : "2.1",
  "commitIdentifier" : 9223372036854775807,
  "commitKind" : "APPEND",
  "timeMillis" : 1755850000000,
  "totalRecordCount" : 6,
  "deltaRecordCount" : 3,
  "nextRowId" : 0
}`);
    const back = parseSnapshotJson(json);
    expect(back.commitIdentifier).toBe(9223372036854775807n);
    expect(back.totalRecordCount).toBe(6n);
    expect(back.properties).toBeNull();
    expect(snapshotToJson(back)).toBe(json);
  });

  it("round-trips every optional field", () => {
    const s = makeSnapshot({
      ...base,
      commitKind: "COMPACT",
      changelogManifestList: "cl",
      changelogManifestListSize: 5,
      indexManifest: "index-manifest-x-0",
      changelogRecordCount: 2,
      watermark: -9223372036854775808n,
      statistics: "stat-1",
      properties: { a: "b" },
      operation: "WRITE",
      totalFileSize: 2n ** 60n,
      totalDataFiles: 3,
    });
    const json = snapshotToJson(s);
    expect(parseSnapshotJson(json)).toEqual(s);
    expect(json).toContain(`"watermark" : -9223372036854775808`);
    expect(json.indexOf('"indexManifest"')).toBeLessThan(json.indexOf('"commitUser"'));
    expect(json.indexOf('"properties"')).toBeLessThan(json.indexOf('"nextRowId"'));
  });

  it("reads pypaimon 2.1.0 snapshots and legacy forms (explicit nulls, logOffsets, no totalRecordCount)", () => {
    const s = parseSnapshotJson(readFileSync(new URL("snapshot-2", FIX)), "snapshot-2");
    expect(s.id).toBe(2);
    expect(s.commitIdentifier).toBe(9223372036854775807n);
    expect(s.totalRecordCount).toBe(6n);
    expect(s.writerVersion).toMatch(/^python-2.1.0/);
    const legacy = parseSnapshotJson(
      `{"version":3,"id":1,"schemaId":0,"baseManifestList":"b","deltaManifestList":"d","changelogManifestList":null,"indexManifest":null,"commitUser":"u","commitIdentifier":1,"commitKind":"OVERWRITE","timeMillis":5,"logOffsets":{"0":7},"totalRecordCount":null,"deltaRecordCount":0,"watermark":null,"unknownKey":[1]}`,
    );
    expect(legacy.changelogManifestList).toBeNull();
    expect(legacy.logOffsets).toEqual({ "0": 7n });
    expect(legacy.totalRecordCount).toBe(0n);
    expect(() => parseSnapshotJson(`{"id":1}`, "snapshot-1")).toThrow(/snapshot-1/);
    expect(() => parseSnapshotJson(`{"version":3,"id":1,"schemaId":0,"baseManifestList":"b","deltaManifestList":"d","commitUser":"u","commitIdentifier":1,"commitKind":"NOPE","timeMillis":5,"totalRecordCount":0,"deltaRecordCount":0}`)).toThrow(
      expect.objectContaining({ code: "CORRUPT_FILE" }),
    );
  });
});

describe("json helpers", () => {
  it("escapes like Jackson and parses big integers exactly", () => {
    expect(toJacksonJson({ s: 'a"\\\n\u0001é/' })).toBe('{\n  "s" : "a\\"\\\\\\n\\u0001é/"\n}');
    expect(parseJson('{"a":[1,-9223372036854775808,1.5e3,"\\u00e9"]}')).toEqual({ a: [1, -9223372036854775808n, 1500, "é"] });
  });
});
