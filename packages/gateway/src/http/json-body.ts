import type { IncomingMessage } from "node:http";
import {
  JsonShapeScanner,
  RawRequest,
  SHAPE_LIMITS,
  type ShapeLimits,
  type ShapeProblem,
  wholeBodyShapeProblem,
} from "@switchboard/common";
import type { JsonBody } from "../request/body.ts";
import { type ApiError, bodyTooLarge, invalidRequest } from "../request/errors.ts";
import { BodyBuffer } from "./body-buffer.ts";
import { putBackLongTexts } from "./long-texts.ts";
import type { JsonParseWorker } from "./parse-worker.ts";
import { nextScanTurn, scanBudgetLeft, spendScanBudget } from "./scan-budget.ts";

function shapeError(problem: ShapeProblem, limits: ShapeLimits): ApiError {
  switch (problem) {
    case "depth":
      return invalidRequest(
        `Request body nests arrays and objects more than ${limits.maxDepth} levels deep (the limit)`,
        null,
        "json_too_deep",
      );
    case "values":
      return invalidRequest(
        `Request body holds more than ${limits.maxValues} JSON values (the limit)`,
        null,
        "json_too_many_values",
      );
    case "keys":
      return invalidRequest(
        `An object in the request body has more than ${limits.maxKeys} keys (the limit)`,
        null,
        "json_too_many_keys",
      );
    case "unbalanced":
      return invalidRequest("Request body is not valid JSON: unbalanced brackets", null, "invalid_json");
  }
}

/** Bodies at least this large with at most OFFLOAD_MAX_VALUES values are parsed on the worker thread. */
const OFFLOAD_MIN_BYTES = 512 * 1024;
const OFFLOAD_MAX_VALUES = 10_000;

/** Bodies the raw ingress read whole, up to this size, are checked and parsed at once (takeWholeJsonBody). */
const WHOLE_BODY_MAX_BYTES = 64 * 1024;

/**
 * The JSON body of a request the raw ingress read whole, checked and parsed at once: the same limits, errors and
 * result as readJsonBody, without its stream listeners, the tick the body's "data" event waits for, and its promise
 * (the ordinary request of the model routes). Undefined when the body is to be read as a stream: another kind of
 * request, a body over WHOLE_BODY_MAX_BYTES, or this turn's scan budget spent (the stream then waits for the next).
 */
export function takeWholeJsonBody(
  request: IncomingMessage,
  limit: number,
  limits: ShapeLimits = SHAPE_LIMITS,
): JsonBody | ApiError | undefined {
  if (!((request as unknown) instanceof RawRequest)) return undefined;
  const raw = (request as unknown as RawRequest).body;
  const length = raw.length;
  if (length > WHOLE_BODY_MAX_BYTES || !scanBudgetLeft(length)) return undefined;
  if (length > limit) return bodyTooLarge(limit);
  const problem = wholeBodyShapeProblem(raw, limits);
  spendScanBudget(length);
  if (problem) return shapeError(problem, limits);
  if (length === 0) return emptyBody();
  try {
    return { raw, value: JSON.parse(raw.toString("utf8")) };
  } catch (error) {
    return invalidJson(error);
  }
}

const emptyBody = () => invalidRequest("Request body is empty; send a JSON object", null, "invalid_json");

function invalidJson(error: unknown): ApiError {
  const detail = error instanceof SyntaxError ? error.message : "unreadable JSON";
  return invalidRequest(`Request body is not valid JSON: ${detail}`, null, "invalid_json");
}

/**
 * Reads a JSON request body: at most `limit` bytes, its shape bounded while it arrives (see JsonShapeScanner), then
 * parsed once. A body refused early is not read further here; the error handler drains what is left (bounded), so
 * that a client still sending can read the answer.
 */
export function readJsonBody(
  request: IncomingMessage,
  limit: number,
  worker: JsonParseWorker,
  /** `slim`: long texts may stay in the worker (routes that only forward them). */
  { limits = SHAPE_LIMITS, slim = false }: { limits?: ShapeLimits; slim?: boolean } = {},
): Promise<JsonBody> {
  return new Promise((resolve, reject) => {
    const declared = Number(request.headers["content-length"]);
    if (declared > limit) {
      reject(bodyTooLarge(limit));
      return;
    }
    const scanner = new JsonShapeScanner(limits);
    const body = new BodyBuffer(Number.isSafeInteger(declared) && declared > 0 ? declared : undefined);
    let stopped = false;
    const stop = (error: ApiError | Error) => {
      stopped = true;
      request.off("data", onData);
      request.off("end", onEnd);
      request.off("error", stop);
      request.pause();
      reject(error);
    };
    const onData = (chunk: Buffer) => {
      if (body.length + chunk.length > limit) return stop(bodyTooLarge(limit));
      const problem = scanner.push(chunk);
      if (problem) return stop(shapeError(problem, limits));
      // Only bodies that may be parsed on the worker (few values) move to shared memory.
      const moved = body.push(chunk, scanner.values <= OFFLOAD_MAX_VALUES);
      if (!spendScanBudget(chunk.length + moved)) {
        request.pause();
        // A body refused meanwhile stays paused: the error handler drains it.
        nextScanTurn(() => {
          if (!stopped) request.resume();
        });
      }
    };
    const onEnd = () => {
      request.off("data", onData);
      request.off("error", stop);
      const length = body.length;
      if (length === 0) {
        reject(emptyBody());
        return;
      }
      const raw = body.bytes();
      const invalid = (error: unknown) => reject(invalidJson(error));
      // Large and made of few values (long texts): parsed off the event loop, where most of its time would go.
      if (length >= OFFLOAD_MIN_BYTES && scanner.values <= OFFLOAD_MAX_VALUES) {
        worker.parse(raw, slim).then(({ value, marks, modelRange, inputRange }) => {
          if (marks.length === 0) return resolve({ raw, value });
          putBackLongTexts(value, marks);
          resolve({ raw, value, slim: { modelRange, inputRange } });
        }, invalid);
        return;
      }
      try {
        resolve({ raw, value: JSON.parse(raw.toString("utf8")) });
      } catch (error) {
        invalid(error);
      }
    };
    request.on("data", onData);
    request.once("end", onEnd);
    request.once("error", stop);
  });
}
