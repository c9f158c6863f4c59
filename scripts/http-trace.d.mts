// Types of scripts/http-trace.mjs for the TypeScript tests that import it.
export interface TracedRequest {
  method: string;
  path: string;
  range: string | null;
  round: number;
  sent: number;
  done: number;
}
export function tracingFetch(latencyMs?: number, inner?: typeof fetch): { fetch: typeof fetch; requests: TracedRequest[]; rounds(): number };
