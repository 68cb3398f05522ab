// POST /api/message straight from node:http, in front of fastify, for the ordinary request: a known content type, a
// Content-Length within BodyLimit, a Host, no upgrade, a valid token (when one is set), the account serving. Every
// other request (any doubt, any refusal decided from the headers) goes to fastify, which answers it as before. Once
// a request is taken here, its possible answers are the route's own (200; 400; 503 during a stop or when the state
// file cannot be written; 500) in fastify's format: the same status, headers in the same order, body and log line
// (test/api-fast-post.test.ts holds them equal).
//
// Why: fastify's request and reply objects, hooks, router and content-type parser sit on the hottest path of an
// api -> IRC burst (docs/benchmarks.md, Bridge over IRC). The posts waiting for one commit are answered from one
// reaction to it, and their answers leave each connection in one write (coalesced-writes.ts); the raw ones are also
// joined before that, into one stream write per connection (@switchboard/common, http1/joined-writes.ts).
//
// The same route serves the posts the raw ingress reads straight off the connection (raw-ingress.ts): their heads
// passed the shared grammar, so only the account's state and the token are checked here.
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import {
  beginJoinedWrite,
  endJoinedWrite,
  type FinishListener,
  type PreparedHeaders,
  RawRequest,
  RawResponse,
} from "@switchboard/common";
import type { Logger } from "pino";
import { errorBody } from "../../http/raw-answer.ts";
import type { AuthResult } from "./auth.ts";
import { type BodyFormat, discardRestOfBody, type PostedBody } from "./body-reader.ts";
import { coalesceWrites } from "./coalesced-writes.ts";
import { InboundError } from "./inbound-error.ts";
import { largeBodyTurn } from "./large-body-turns.ts";
import { deliveredLines } from "./post-answer-headers.ts";
import { isFirst, leave, type Place, type PostOrder, whenFirst } from "./post-order.ts";
import { type RouteLogger, routeLogger } from "./request-log.ts";

const JSON_TYPE = "application/json; charset=utf-8";
const PATH = "/api/message";

/** Content-Type headers taken here, as clients usually send them; fastify parses any other spelling. */
export const FORMATS: ReadonlyMap<string, BodyFormat> = new Map([
  ["application/json", "json"],
  ["application/json; charset=utf-8", "json"],
  ["application/json;charset=utf-8", "json"],
  ["application/x-www-form-urlencoded", "form"],
  ["application/x-www-form-urlencoded; charset=utf-8", "form"],
  ["application/x-www-form-urlencoded;charset=utf-8", "form"],
]);

const DIGITS = /^[0-9]{1,10}$/;

export interface FastPostDeps {
  bodyLimit: number;
  /** The token check, when the account has a token. */
  check: ((header: string | undefined) => AuthResult) | undefined;
  logger: Logger;
  isServing(): boolean;
  /** Retry-After of the 503 answered during a stop. */
  retryAfterSeconds(): number;
  shuttingDownMessage: string;
  /** `encoded` is read when the post is answered (posted-message.ts: the answer is encoded then). */
  post(body: PostedBody): { readonly encoded: string; readonly deliveries: number };
  written(): Promise<void>;
  /** The posts of a connection are routed in the order they were read, whichever path serves them. */
  order: PostOrder;
}

/** A request served here, from node:http or from the raw ingress. */
type PostRequest = IncomingMessage | RawRequest;
/** What an answer is written on: the members node:http's ServerResponse and the raw ingress's RawResponse share. */
interface PostResponse {
  on(event: "finish", listener: () => void): unknown;
  writeHead(status: number, headers: OutgoingHttpHeaders): unknown;
  end(body: string): unknown;
}

/** A post waiting for its turn's commit. */
interface Held {
  request: PostRequest;
  response: PostResponse;
  startedAt: number;
  posted: { readonly encoded: string; readonly deliveries: number };
}

/** A request taken here whose body the parser is reading. */
interface Arriving {
  request: IncomingMessage;
  response: ServerResponse;
  startedAt: number;
  format: BodyFormat;
  length: number;
  place: Place;
}

/** A post the raw ingress read in full, waiting for the end of the poll phase. */
interface RawArriving {
  request: RawRequest;
  response: RawResponse;
  startedAt: number;
  format: BodyFormat;
  place: Place;
}

/** Serves the requests it takes; each returns false for those fastify should handle. */
export interface FastPost {
  /** A request node:http read. */
  fromNode(request: IncomingMessage, response: ServerResponse): boolean;
  /** A request the raw ingress read in full (false: node:http reads it again, and fastify answers it). */
  fromRaw(request: RawRequest, response: RawResponse): boolean;
}

export function fastPost(deps: FastPostDeps): FastPost {
  const { bodyLimit, check } = deps;
  const logPost: RouteLogger = routeLogger(deps.logger, "POST", PATH);
  /** A raw answer's log line, once it is written (RawResponse.onFinished: no listener or closure per answer). */
  const logRawPost: FinishListener = (response, startedAt) =>
    logPost(response.statusCode, performance.now() - startedAt);
  /** The commit the posts of the current turn wait for, and those posts. */
  let turn: Promise<void> | undefined;
  let held: Held[] = [];

  const answer = (
    response: PostResponse,
    startedAt: number,
    status: number,
    headers: Record<string, string>,
    body: string,
    prepared?: PreparedHeaders,
  ) => {
    // fastify's onSend hook: answers given while the account stops close their connection.
    if (!deps.isServing()) headers["connection"] = "close";
    headers["content-length"] = String(Buffer.byteLength(body));
    if (response instanceof RawResponse) response.onFinished(logRawPost, startedAt);
    // The response is dropped once finished: no need to take the listener off (once() would wrap it).
    else response.on("finish", () => logPost(status, performance.now() - startedAt));
    // Prepared lines come first: written as they are on a raw response, merged into the headers on node's.
    if (prepared === undefined) response.writeHead(status, headers);
    else if (response instanceof RawResponse) response.writeHead(status, headers, prepared);
    else response.writeHead(status, prepared.withHeaders(headers));
    response.end(body);
  };

  const answerError = (
    request: PostRequest,
    response: PostResponse,
    startedAt: number,
    status: number,
    message: string,
    headers: Record<string, string> = {},
  ) => {
    // A body the route did not read is discarded (bounded), so the client can read this answer; a raw one is read.
    if (!(request instanceof RawRequest)) discardRestOfBody(request);
    headers["content-type"] = JSON_TYPE;
    answer(response, startedAt, status, headers, errorBody(message));
  };

  const refuseWhileStopping = (request: PostRequest, response: PostResponse, startedAt: number) =>
    answerError(request, response, startedAt, 503, deps.shuttingDownMessage, {
      "retry-after": String(deps.retryAfterSeconds()),
    });

  /** A designed refusal (InboundError) is answered as such; anything else is a 500 without details, logged. */
  const fail = (request: PostRequest, response: PostResponse, startedAt: number, error: unknown) => {
    if (error instanceof InboundError) return answerError(request, response, startedAt, error.status, error.message);
    deps.logger.error({ err: error, url: request.url }, "request failed");
    answerError(request, response, startedAt, 500, "internal error");
  };

  /** The posts of a turn, answered together: the raw answers of each connection leave in one socket write. */
  const answerHeld = (list: Held[]) => {
    let joined: Set<Socket> | undefined;
    try {
      for (const post of list) {
        const response = post.response;
        if (response instanceof RawResponse && !joined?.has(response.socket)) {
          joined ??= new Set();
          joined.add(response.socket);
          beginJoinedWrite(response.socket);
        }
        const { encoded, deliveries } = post.posted;
        answer(response, post.startedAt, 200, {}, encoded, deliveredLines(deliveries));
      }
    } finally {
      // Whatever happened, nothing kept stays behind.
      if (joined !== undefined) for (const socket of joined) endJoinedWrite(socket);
    }
  };

  const failHeld = (list: Held[], error: unknown) => {
    for (const post of list) fail(post.request, post.response, post.startedAt, error);
  };

  /** Never answered before the message is in the state file (the durability rule); a failed commit is an error. */
  const hold = (post: Held) => {
    const written = deps.written();
    if (written !== turn) {
      turn = written;
      const list: Held[] = [];
      held = list;
      // The same promise may come again once settled (nothing was written, or no state file): a new list then.
      const settled = () => {
        if (turn === written) turn = undefined;
      };
      written.then(
        () => {
          settled();
          answerHeld(list);
        },
        (error: unknown) => {
          settled();
          failHeld(list, error);
        },
      );
    }
    held.push(post);
  };

  const handle = (request: PostRequest, response: PostResponse, startedAt: number, body: PostedBody) => {
    // A post whose body was still arriving when the stop began is refused too: nothing is routed after the signal.
    if (!deps.isServing()) return refuseWhileStopping(request, response, startedAt);
    try {
      hold({ request, response, startedAt, posted: deps.post(body) });
    } catch (error) {
      fail(request, response, startedAt, error);
    }
  };

  /** Handled once the posts read before it on its connection are (post-order.ts). */
  const handleInTurn = (
    request: PostRequest,
    response: PostResponse,
    startedAt: number,
    body: PostedBody,
    place: Place,
  ) =>
    whenFirst(place, () => {
      try {
        handle(request, response, startedAt, body);
      } finally {
        leave(place);
      }
    });

  /** A body is there: handled now when small, after a turn of its own when large (large-body-turns.ts). */
  const received = (
    request: PostRequest,
    response: PostResponse,
    startedAt: number,
    format: BodyFormat,
    bytes: Buffer,
    place: Place,
  ) => {
    const ownTurn = largeBodyTurn(bytes.length);
    const waits = ownTurn !== undefined || !isFirst(place);
    // A body handled at once is kept nowhere, so it may be a view of the socket's read; one that waits (for its own
    // turn, or behind an earlier post of its connection) is a copy of its own.
    const body: PostedBody = { format, bytes: waits ? Buffer.from(bytes) : bytes };
    if (ownTurn === undefined) return handleInTurn(request, response, startedAt, body, place);
    ownTurn.then(() => handleInTurn(request, response, startedAt, body, place));
  };

  /** A body that was not all there in the first read: taken chunk by chunk. */
  const listen = (
    request: IncomingMessage,
    response: ServerResponse,
    startedAt: number,
    format: BodyFormat,
    length: number,
    place: Place,
  ) => {
    const chunks: Buffer[] = [];
    let settled = false;
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.once("end", () => {
      if (settled) return;
      settled = true;
      received(
        request,
        response,
        startedAt,
        format,
        chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, length),
        place,
      );
    });
    // A client that goes away mid-body is a client error, not a failure of the bridge; as fastify does after a body
    // error, the connection is closed (the client may still be sending).
    request.once("error", () => {
      if (settled) return;
      settled = true;
      leave(place);
      answerError(request, response, startedAt, 400, "the request body was cut off", { connection: "close" });
    });
  };

  /**
   * The requests whose headers the parser just read. Their bodies usually came in the same read, which the parser
   * goes on with once the request event returns: at the end of the loop's poll phase (setImmediate) they are
   * complete, and each is taken in one read() rather than through data and end events (one callback for all of them,
   * instead of three events and ticks each). Not a tick later: the parser reads the socket natively and calls the
   * request event through MakeCallback, which runs the tick queue as it returns, before the body is parsed.
   */
  let arriving: Arriving[] = [];
  /**
   * The posts the raw ingress read in this poll phase, complete: handled together with the others at its end too, so
   * that the posts of every connection are routed in one go and their lines leave for the other side together.
   */
  let rawArriving: RawArriving[] = [];
  const takeArrived = () => {
    const list = arriving;
    arriving = [];
    for (const { request, response, startedAt, format, length, place } of list) {
      // Complete: every byte of the body is buffered (the parser holds the client to its Content-Length).
      if (request.complete) received(request, response, startedAt, format, request.read() ?? Buffer.alloc(0), place);
      else listen(request, response, startedAt, format, length, place);
    }
    const rawList = rawArriving;
    rawArriving = [];
    for (const { request, response, startedAt, format, place } of rawList) {
      received(request, response, startedAt, format, request.body, place);
    }
  };
  const arrive = () => {
    if (arriving.length === 0 && rawArriving.length === 0) setImmediate(takeArrived);
  };

  const fromNode = (request: IncomingMessage, response: ServerResponse): boolean => {
    if (request.method !== "POST" || request.url !== PATH || !deps.isServing()) return false;
    const headers = request.headers;
    if (headers.host === undefined || headers.upgrade !== undefined || headers["transfer-encoding"] !== undefined) {
      return false;
    }
    const format = FORMATS.get(headers["content-type"] ?? "");
    const lengthHeader = headers["content-length"];
    if (format === undefined || lengthHeader === undefined || !DIGITS.test(lengthHeader)) return false;
    const length = Number(lengthHeader);
    if (length === 0 || length > bodyLimit) return false;
    if (check !== undefined && !check(headers.authorization).ok) return false;
    coalesceWrites(request.socket as Socket);
    arrive();
    const place = deps.order.join(request.socket);
    arriving.push({ request, response, startedAt: performance.now(), format, length, place });
    return true;
  };

  const fromRaw = (request: RawRequest, response: RawResponse): boolean => {
    if (!deps.isServing()) return false;
    const headers = request.headers;
    const format = FORMATS.get(headers["content-type"] ?? "");
    if (format === undefined) return false;
    if (check !== undefined && !check(headers.authorization).ok) return false;
    coalesceWrites(request.socket);
    arrive();
    const place = deps.order.join(request.socket);
    rawArriving.push({ request, response, startedAt: performance.now(), format, place });
    return true;
  };

  return { fromNode, fromRaw };
}
