// The slow-stream client: opens `streams` HTTP/1.1 connections on raw node:net (spread over `rampMs`), sends one
// streaming chat request on each, reads the whole chunked answer and checks it (20 chunks in order, then [DONE]).
// Cheap per socket: no HTTP client library, one parser each, nothing kept once a stream is checked.
// As a process: `node --import tsx bench/gateway-streams/stream-client.ts '<StreamLoad as JSON>'` prints a
// StreamResult as JSON on its last line.
import { connect } from "node:net";
import { pathToFileURL } from "node:url";
import { ResponseParser } from "../gateway/response-parser.ts";
import { streamProblem } from "./sse-check.ts";

export interface StreamLoad {
  /** http://127.0.0.1:PORT/path (loopback only). */
  url: string;
  body: string;
  headers?: Record<string, string>;
  streams: number;
  /** The connections are opened evenly over this time. */
  rampMs: number;
  /** A stream not complete after this long counts as failed. */
  timeoutMs: number;
}

export interface StreamResult {
  ok: number;
  failed: number;
  /** The first few problems seen. */
  problems: string[];
  /** Most streams open at once (connected, answer not complete). */
  peakOpen: number;
  /** From the first connection to the last stream's end. */
  elapsedMs: number;
}

export async function runStreams(load: StreamLoad): Promise<StreamResult> {
  const target = new URL(load.url);
  if (target.hostname !== "127.0.0.1") throw new Error("loopback targets only");
  const body = Buffer.from(load.body);
  const head = [
    `POST ${target.pathname} HTTP/1.1`,
    `host: ${target.host}`,
    "content-type: application/json",
    `content-length: ${body.length}`,
    ...Object.entries(load.headers ?? {}).map(([name, value]) => `${name}: ${value}`),
    "",
    "",
  ].join("\r\n");
  const request = Buffer.concat([Buffer.from(head, "latin1"), body]);
  const result: StreamResult = { ok: 0, failed: 0, problems: [], peakOpen: 0, elapsedMs: 0 };
  let open = 0;
  const started = performance.now();

  const one = () =>
    new Promise<void>((resolve) => {
      const parser = new ResponseParser();
      const socket = connect({ port: Number(target.port), host: target.hostname, noDelay: true });
      let settled = false;
      const settle = (problem: string | undefined) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        open--;
        if (problem === undefined) result.ok++;
        else {
          result.failed++;
          if (result.problems.length < 5) result.problems.push(problem);
        }
        socket.destroy();
        resolve();
      };
      const timer = setTimeout(() => settle(`no complete answer within ${load.timeoutMs} ms`), load.timeoutMs);
      result.peakOpen = Math.max(result.peakOpen, ++open);
      socket.on("connect", () => socket.write(request));
      socket.on("error", (error) => settle(error.message));
      socket.on("close", () => settle("connection closed before the answer was complete"));
      socket.on("data", (data: Buffer) => {
        let response: ReturnType<ResponseParser["push"]>;
        try {
          response = parser.push(data);
        } catch (error) {
          return settle(error instanceof Error ? error.message : String(error));
        }
        if (!response) return;
        if (response.status !== 200)
          return settle(`HTTP ${response.status}: ${response.body.toString().slice(0, 200)}`);
        settle(streamProblem(response.body.toString("utf8")));
      });
    });

  const all: Promise<void>[] = [];
  const gap = load.streams > 1 ? load.rampMs / (load.streams - 1) : 0;
  for (let i = 0; i < load.streams; i++) {
    const due = started + i * gap;
    const wait = due - performance.now();
    // Batches of connections per timer turn: a timer per connection would cost more than the sockets.
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    all.push(one());
  }
  await Promise.all(all);
  result.elapsedMs = performance.now() - started;
  return result;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await runStreams(JSON.parse(process.argv[2] ?? "{}") as StreamLoad);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
