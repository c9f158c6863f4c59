/** This library's version, package.json's (test/spec/version.test.ts checks they agree): written
 * into snapshots (`writerVersion`) and Parquet footers (`created_by`), printed by `paimon-rt version`. */
export const PAIMON_RT_VERSION = "0.1.0";
