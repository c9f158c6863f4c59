/**
 * The kind of change a row stands for (Java Paimon's `RowKind`, its byte value as stored in
 * `_VALUE_KIND`). Its own module so that a query-only bundle (`paimon-rt/edge`) gets it without
 * the write path.
 */
export enum RowKind {
  INSERT = 0,
  UPDATE_BEFORE = 1,
  UPDATE_AFTER = 2,
  DELETE = 3,
}
