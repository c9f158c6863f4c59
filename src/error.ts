/** Stable error codes (see the API contract). */
export type PaimonErrorCode =
  | "INVALID_ARGUMENT"
  | "NOT_FOUND"
  | "ALREADY_EXISTS"
  | "UNSUPPORTED"
  | "REALTIME_NOT_ENABLED"
  | "OFFSET_INVALID"
  | "PROGRESS_INVALID"
  | "TICKET_EXPIRED"
  | "CONTEXT_INVALIDATED"
  | "COMMIT_CONFLICT"
  | "CORRUPT_FILE"
  | "READ_ONLY"
  | "IO_ERROR";

/** Every failure paimon-rt detects: a stable `code` plus a message naming what was involved. */
export class PaimonError extends Error {
  readonly code: PaimonErrorCode;

  constructor(code: PaimonErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "PaimonError";
    this.code = code;
  }
}

/** Throws `INVALID_ARGUMENT` with `message` unless `condition` holds. */
export function requireArgument(condition: unknown, message: string): asserts condition {
  if (!condition) throw new PaimonError("INVALID_ARGUMENT", message);
}
