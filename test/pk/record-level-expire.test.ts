// Record-level expiry (src/write/record-level-expire.ts, Java's RecordLevelExpire): the compaction
// reader's filter against a model, merge-on-read untouched, real-time writers refuse it. Java
// agreement: test/interop/record-level-expire-interop.test.ts.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Catalog } from "../../src/catalog/catalog.js";
import { RealtimeContext } from "../../src/index.js";
import { parseDataType } from "../../src/spec/types.js";
import { TableOptions } from "../../src/table/options.js";
import { recordLevelExpireOf } from "../../src/write/record-level-expire.js";
import { rowsToBatch } from "../interop/convert.js";
import { failure } from "../table/helpers.js";

const schemaOf = (type: string, options: Record<string, string>) => ({
  id: 0,
  fields: [{ id: 0, name: "id", type: parseDataType("INT NOT NULL") }, { id: 1, name: "t", type: parseDataType(type) }],
  partitionKeys: [],
  primaryKeys: ["id"],
  options,
  highestFieldId: 1,
  comment: null,
  timeMillis: 0,
});

describe("record-level expiry", () => {
  it("drops exactly the records whose time is older than the expire time (INT seconds, BIGINT seconds or millis; nulls kept)", () => {
    fc.assert(
      fc.property(fc.array(fc.option(fc.integer({ min: -2_000_000_000, max: 2_000_000_000 }), { nil: null })), fc.integer({ min: 0, max: 100_000 }), fc.boolean(), (times, expire, millis) => {
        const options = { "record-level.expire-time": `${expire} s`, "record-level.time-field": "t" };
        const type = millis ? "BIGINT" : "INT";
        const schema = schemaOf(type, options);
        const e = recordLevelExpireOf(schema as never, new TableOptions(options))!;
        // BIGINT: the value in milliseconds (a value below 10^12 is read as seconds, as Java)
        const stored = times.map((t) => (t === null ? null : millis ? t * 1000 + (t % 7 === 0 ? 999 : 0) : t));
        const batch = rowsToBatch([{ name: "id", type: "INT NOT NULL" }, { name: "t", type }], stored.map((t, i) => ({ id: i, t: t === null ? null : millis ? String(t) : t })));
        const now = 1_500_000_000;
        const kept = e.filter({ batch, sequence: BigInt64Array.from(times, (_, i) => BigInt(i)), kinds: new Int8Array(times.length) }, now);
        const seconds = (v: number) => (millis && v >= 1e12 ? Math.trunc(v / 1000) : v);
        const model = stored.flatMap((v, i) => (v === null || now <= seconds(v) + expire ? [i] : []));
        expect(Array.from(kept.sequence, Number)).toEqual(model);
        expect(Array.from(kept.batch.getChild("id")!.toArray() as Int32Array)).toEqual(model);
      }),
    );
  });

  it("real-time writers refuse it", async () => {
    const catalog = await Catalog.open("memory://record-level-expire-rt");
    await catalog.createDatabase("db");
    const t = await catalog.createTable("db.t", { fields: [{ name: "id", type: "INT NOT NULL" }, { name: "t", type: "INT" }], primaryKeys: ["id"], options: { bucket: "1", "realtime.enabled": "true", "record-level.expire-time": "1 h", "record-level.time-field": "t" } });
    const e = await failure(async () => t.newWrite({ commitUser: "u", realtime: await RealtimeContext.create() }));
    expect([e.code, e.message]).toEqual(["UNSUPPORTED", "real-time writes to db.t with record-level.expire-time=1 h are not supported (write through an ordinary writer)"]);
  });

  it("merge-on-read keeps expired rows; a full compaction drops them", async () => {
    const catalog = await Catalog.open("memory://record-level-expire-mor");
    await catalog.createDatabase("db");
    const fields = [{ name: "id", type: "INT NOT NULL" }, { name: "t", type: "INT" }];
    const t = await catalog.createTable("db.t", { fields, primaryKeys: ["id"], options: { bucket: "1", "record-level.expire-time": "1 h", "record-level.time-field": "t" } });
    const now = Math.floor(Date.now() / 1000);
    const commit = async (rows: Array<{ id: number; t: number }>, compact = false) => {
      const w = await t.newWrite({ commitUser: "u" });
      if (rows.length > 0) await w.write(rowsToBatch(fields, rows));
      if (compact) await w.compact({ full: true });
      await t.newCommit({ commitUser: "u" }).commit(await w.prepareCommit());
      await w.close();
    };
    const ids = async () => (await t.newRead().toArrow((await t.newScan().plan()).splits)).getChild("id")!.toArray();
    await commit([{ id: 1, t: now - 7200 }, { id: 2, t: now }]);
    expect(Array.from(await ids())).toEqual([1, 2]);
    await commit([], true);
    expect(Array.from(await ids())).toEqual([2]);
  });
});
