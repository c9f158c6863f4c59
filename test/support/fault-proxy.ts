/**
 * A loopback HTTP proxy in front of an S3 server that injects faults into a seeded fraction of the
 * requests: delays, connections dropped before the request reaches the server (nothing happened) or
 * after the server answered (the request took effect but its response is lost), and 500/503 answers
 * either instead of forwarding or after forwarding (again: took effect, client told it failed).
 * The Host header is passed through unchanged, so SigV4 signatures made for the proxy stay valid.
 */
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import { rng } from "../pk/helpers.js";

/** Fractions (0..1) of requests that get each fault; they are drawn one after another per request. */
export interface FaultRates {
  /** Requests delayed by up to {@link maxDelayMs} before being forwarded. */
  delay: number;
  maxDelayMs: number;
  /** Connection dropped before forwarding. */
  dropBefore: number;
  /** Forwarded; connection dropped instead of relaying the answer. */
  dropAfter: number;
  /** Answered 500 or 503 without forwarding. */
  errorBefore: number;
  /** Forwarded; answered 500 instead of relaying the server's answer. */
  errorAfter: number;
}

export interface FaultCounts {
  requests: number;
  delayed: number;
  droppedBefore: number;
  droppedAfter: number;
  erroredBefore: number;
  erroredAfter: number;
}

export interface FaultProxy {
  /** `http://127.0.0.1:<port>`: use as the S3 endpoint. */
  readonly endpoint: string;
  readonly counts: FaultCounts;
  /** Turns fault injection on or off (off: a plain pass-through proxy). */
  setFaulty(on: boolean): void;
  close(): Promise<void>;
}

const NO_FAULTS: FaultRates = { delay: 0, maxDelayMs: 0, dropBefore: 0, dropAfter: 0, errorBefore: 0, errorAfter: 0 };

function s3Error(res: http.ServerResponse, status: number): void {
  const code = status === 503 ? "SlowDown" : "InternalError";
  res.writeHead(status, { "content-type": "application/xml" });
  res.end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>injected fault</Message></Error>`);
}

/**
 * Starts a proxy to `upstream` (an `http://host:port` S3 endpoint) injecting `rates` with `seed`;
 * `onRequest` sees each request's method, path and headers as they arrive.
 */
export async function startFaultProxy(
  upstream: string,
  rates: Partial<FaultRates>,
  seed: number,
  onRequest?: (request: { method: string; path: string; headers: http.IncomingHttpHeaders }) => void,
): Promise<FaultProxy> {
  const target = new URL(upstream);
  const r = { ...NO_FAULTS, ...rates };
  const random = rng(seed);
  let faulty = true;
  const counts: FaultCounts = { requests: 0, delayed: 0, droppedBefore: 0, droppedAfter: 0, erroredBefore: 0, erroredAfter: 0 };
  const agent = new http.Agent({ keepAlive: true });

  const server = http.createServer((req, res) => {
    counts.requests++;
    onRequest?.({ method: req.method ?? "", path: req.url ?? "", headers: req.headers });
    // every draw happens up front, in arrival order, so a seed fixes the fault sequence
    const draw = () => (faulty ? random() : 1);
    const delayMs = draw() < r.delay ? Math.floor(random() * r.maxDelayMs) : 0;
    const dropBefore = draw() < r.dropBefore;
    const errorBefore = draw() < r.errorBefore;
    const dropAfter = draw() < r.dropAfter;
    const errorAfter = draw() < r.errorAfter;
    const errorStatus = random() < 0.5 ? 500 : 503;

    const forward = () => {
      if (dropBefore) {
        counts.droppedBefore++;
        req.socket.destroy();
        return;
      }
      if (errorBefore) {
        counts.erroredBefore++;
        req.resume();
        req.on("end", () => s3Error(res, errorStatus));
        return;
      }
      const upstreamReq = http.request(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers, agent },
        (upstreamRes) => {
          const chunks: Buffer[] = [];
          upstreamRes.on("data", (c: Buffer) => chunks.push(c));
          upstreamRes.on("end", () => {
            if (dropAfter) {
              counts.droppedAfter++;
              req.socket.destroy();
            } else if (errorAfter) {
              counts.erroredAfter++;
              s3Error(res, 500);
            } else {
              res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.headers);
              res.end(Buffer.concat(chunks));
            }
          });
        },
      );
      upstreamReq.on("error", () => req.socket.destroy());
      req.pipe(upstreamReq);
    };
    if (delayMs > 0) {
      counts.delayed++;
      setTimeout(forward, delayMs);
    } else {
      forward();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    counts,
    setFaulty: (on) => (faulty = on),
    close: () =>
      new Promise<void>((resolve) => {
        agent.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
