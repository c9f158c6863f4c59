// A fetch for HttpFileIO that records every request and can inject a fixed latency, to count how
// many requests a query makes and how many of them are sequential (bench/http.mjs and
// test/fs/http-round-trips.test.ts).
//
// A request's round is 1 + the highest round among the requests that had completed when it was
// sent: requests sent together (in parallel) share a round, a request that waited for another
// gets the next one. With an injected latency, parallel requests are sent long before any
// completes, so the rounds are the query's sequential depth, independent of machine speed.

/**
 * @param {number} latencyMs delay before each request is sent
 * @param {typeof fetch} [inner] the fetch that sends it (default globalThis.fetch)
 */
export function tracingFetch(latencyMs = 0, inner = globalThis.fetch) {
  /** @type {Array<{ method: string, path: string, range: string | null, round: number, sent: number, done: number }>} */
  const requests = [];
  const fetchFn = async (input, init) => {
    const sent = performance.now();
    const finished = requests.filter((r) => r.done <= sent);
    const round = 1 + finished.reduce((max, r) => Math.max(max, r.round), 0);
    const headers = new Headers(init?.headers);
    const entry = { method: init?.method ?? "GET", path: new URL(String(input)).pathname, range: headers.get("range"), round, sent, done: Infinity };
    requests.push(entry);
    try {
      if (latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, latencyMs));
      const response = await inner(input, init);
      // the body is part of the round trip: wait for it before marking the request done
      const body = await response.arrayBuffer();
      return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
    } finally {
      entry.done = performance.now();
    }
  };
  return {
    fetch: fetchFn,
    requests,
    /** The number of sequential rounds so far. */
    rounds: () => requests.reduce((max, r) => Math.max(max, r.round), 0),
  };
}
