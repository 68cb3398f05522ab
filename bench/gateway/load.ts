// A closed-loop HTTP/1.1 load generator on node:net: each connection sends its next request as soon as the previous
// response is complete. Reports requests/s, latency percentiles and (for streams) time to the first body byte.
// As a process: `node --import tsx bench/gateway/load.ts '<LoadOptions as JSON>'` prints a LoadResult as JSON.
import { connect, type Socket } from "node:net";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { ResponseParser } from "./response-parser.ts";
import { type Percentiles, percentiles } from "./stats.ts";

export interface LoadOptions {
  /** http://127.0.0.1:PORT/path (loopback only). */
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  durationMs: number;
  warmupMs: number;
  /** A response counts as valid only if its body contains this text. */
  expect?: string;
  /** A request that takes longer than this is an error and its connection is replaced. */
  timeoutMs?: number;
}

export interface LoadResult {
  /** Responses completed in the measured window. */
  requests: number;
  requestsPerSecond: number;
  latencyMs: Percentiles;
  firstByteMs: Percentiles;
  /** Socket errors, timeouts and malformed responses. */
  errors: number;
  non2xx: number;
  /** 2xx responses whose body lacked `expect`. */
  invalid: number;
  /** The first problem seen, to explain errors. */
  firstProblem?: string;
  /** Responses completed in the whole run, warm-up included (to divide servers' CPU time by). */
  totalRequests: number;
  /** CPU time this load-generator process used, start-up included (to tell other processes' load apart). */
  cpuMs?: number;
}

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const target = new URL(options.url);
  if (target.hostname !== "127.0.0.1" && target.hostname !== "localhost") throw new Error("loopback targets only");
  const port = Number(target.port);
  const body = Buffer.from(options.body ?? "");
  const headers = {
    host: target.host,
    connection: "keep-alive",
    ...(options.body !== undefined
      ? { "content-type": "application/json", "content-length": String(body.length) }
      : {}),
    ...options.headers,
  };
  const head = `${options.method ?? "POST"} ${target.pathname}${target.search} HTTP/1.1\r\n${Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("")}\r\n`;
  const request = Buffer.concat([Buffer.from(head, "latin1"), body]);
  const expect = options.expect === undefined ? undefined : Buffer.from(options.expect);
  const timeoutMs = options.timeoutMs ?? 10_000;

  const latencies: number[] = [];
  const firstBytes: number[] = [];
  const result = {
    errors: 0,
    non2xx: 0,
    invalid: 0,
    requests: 0,
    totalRequests: 0,
    firstProblem: undefined as string | undefined,
  };
  const problem = (text: string) => {
    result.firstProblem ??= text;
  };
  const start = performance.now();
  const measureFrom = start + options.warmupMs;
  const measureUntil = measureFrom + options.durationMs;
  let stopping = false;
  const sockets = new Set<Socket>();

  const runConnection = (): Promise<void> =>
    new Promise((resolveConnection) => {
      const parser = new ResponseParser();
      let sentAt = 0;
      let firstByteAt = 0;
      let timer: NodeJS.Timeout | undefined;
      let finished = false;
      const socket = connect({ port, host: target.hostname, noDelay: true });
      sockets.add(socket);
      const finish = () => {
        if (finished) return;
        finished = true;
        clearTimeout(timer);
        sockets.delete(socket);
        socket.destroy();
        resolveConnection();
      };
      const fail = (why: string) => {
        if (performance.now() >= measureUntil) stopping = true;
        if (!stopping) {
          result.errors++;
          problem(why);
        }
        finish();
        // Replace a broken connection so the concurrency stays as asked.
        if (!stopping) void runConnection();
      };
      const send = () => {
        if (performance.now() >= measureUntil) {
          stopping = true;
          return finish();
        }
        parser.reset();
        firstByteAt = 0;
        sentAt = performance.now();
        timer = setTimeout(() => fail(`timeout after ${timeoutMs} ms`), timeoutMs);
        socket.write(request);
      };
      socket.on("connect", send);
      socket.on("error", (error) => fail(error.message));
      socket.on("close", () => {
        if (!finished) fail("connection closed by the server");
      });
      socket.on("data", (data: Buffer) => {
        let response: ReturnType<ResponseParser["push"]>;
        try {
          response = parser.push(data);
        } catch (error) {
          return fail(error instanceof Error ? error.message : String(error));
        }
        const now = performance.now();
        if (firstByteAt === 0 && parser.bodyStarted) firstByteAt = now;
        if (!response) return;
        clearTimeout(timer);
        result.totalRequests++;
        if (firstByteAt === 0) firstByteAt = now;
        if (sentAt >= measureFrom && now <= measureUntil) {
          result.requests++;
          latencies.push(now - sentAt);
          firstBytes.push(firstByteAt - sentAt);
          if (response.status < 200 || response.status > 299) {
            result.non2xx++;
            problem(`HTTP ${response.status}: ${response.body.toString("utf8", 0, 200)}`);
          } else if (expect && !response.body.includes(expect)) {
            result.invalid++;
            problem(`response without ${options.expect}: ${response.body.toString("utf8", 0, 200)}`);
          }
        }
        if (response.close) {
          finish();
          if (!stopping) void runConnection();
          return;
        }
        send();
      });
    });

  const connections = Array.from({ length: options.connections }, () => runConnection());
  // The run is bounded even if a server stops answering: stragglers are cut after the timeout.
  const hardStop = setTimeout(
    () => {
      stopping = true;
      for (const socket of sockets) socket.destroy();
    },
    options.warmupMs + options.durationMs + timeoutMs,
  );
  await Promise.all(connections);
  // Connections replaced after errors may still be winding down.
  while (sockets.size > 0) await new Promise((resolve) => setTimeout(resolve, 10));
  clearTimeout(hardStop);
  return {
    requests: result.requests,
    totalRequests: result.totalRequests,
    requestsPerSecond: result.requests / (options.durationMs / 1000),
    latencyMs: percentiles(latencies),
    firstByteMs: percentiles(firstBytes),
    errors: result.errors,
    non2xx: result.non2xx,
    invalid: result.invalid,
    firstProblem: result.firstProblem,
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const options = JSON.parse(process.argv[2] ?? "{}") as LoadOptions;
  const result = await runLoad(options);
  const cpu = process.cpuUsage();
  result.cpuMs = (cpu.user + cpu.system) / 1000;
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
