// The heads the gateway's raw ingress takes: the shared grammar (@switchboard/common, http1/request-head.ts) with the
// JSON content types its model routes take.
import { type HeadReading, readRequestHead as readHead } from "@switchboard/common";
import { JSON_TYPES } from "../fast-model-routes.ts";

export function readRequestHead(bytes: Buffer, paths: ReadonlySet<string>, maxBody: number): HeadReading {
  return readHead(bytes, paths, maxBody, JSON_TYPES);
}
