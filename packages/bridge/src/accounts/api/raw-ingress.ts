// The api account's raw ingress: the ordinary POST /api/message (the shared grammar of @switchboard/common's
// http1/request-head.ts, with the content types fast-post.ts takes) is read and answered straight on the connection,
// without node:http's IncomingMessage and ServerResponse, whose parsing, objects and answers were most of what a post
// cost the bridge in an api -> IRC burst (docs/benchmarks.md, Bridge over IRC). Anything else, and a post the route
// does not take (a wrong token, the account stopping), is handed with the connection to node:http and fastify, which
// answer it as they always did: test/api-raw-ingress.test.ts holds the answers equal with RawIngress on and off.
import type { Server } from "node:http";
import { RawIngress } from "@switchboard/common";
import type { Logger } from "pino";
import { type FastPost, FORMATS } from "./fast-post.ts";
import type { ServerLimits } from "./server-limits.ts";

/** Larger bodies go to node:http, which streams them in (one of 128 KiB or more waits for a turn of its own anyway). */
const RAW_MAX_BODY_BYTES = 64 * 1024;
/**
 * Posts of one connection served at once. A post is answered once its turn is committed: served one at a time, a
 * client pipelining its posts would get one commit per post; node:http reads all of them at once too.
 */
const MAX_PIPELINED = 256;

interface RawIngressDeps {
  bodyLimit: number;
  limits: ServerLimits;
  logger: Logger;
}

export function installRawIngress(server: Server, fast: FastPost, deps: RawIngressDeps): void {
  const { limits } = deps;
  const ingress = new RawIngress({
    paths: new Set(["/api/message"]),
    contentTypes: new Set(FORMATS.keys()),
    maxBodyBytes: Math.min(deps.bodyLimit, RAW_MAX_BODY_BYTES),
    maxPipelined: MAX_PIPELINED,
    headersTimeoutMs: limits.readHeaderTimeoutMs,
    requestTimeoutMs: limits.readTimeoutMs,
    keepAliveTimeoutMs: limits.idleTimeoutMs,
    serve: fast.fromRaw,
    failed: (error) => deps.logger.error({ err: error }, "request failed"),
  });
  ingress.install(server);
}
