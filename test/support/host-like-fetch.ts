// Browsers and workerd reject a native fetch called as a method of another object
// ("Illegal invocation"); this stand-in enforces the same rule in Node.
const nodeFetch = globalThis.fetch;

/** Node's fetch, refusing (as browsers and workerd do) to be called with a `this` of another object. */
export function hostLikeFetch(this: unknown, input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  if (this !== undefined && this !== globalThis) {
    return Promise.reject(new TypeError("Failed to execute 'fetch' on 'Window': Illegal invocation"));
  }
  return nodeFetch(input, init);
}
