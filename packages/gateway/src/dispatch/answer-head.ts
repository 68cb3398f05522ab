import type { OutgoingHttpHeaders } from "node:http";
import { type PreparedHeaders, RawResponse } from "@switchboard/common";
import type { AnswerWriter } from "./answer-writer.ts";

/**
 * Writes an answer's head: `prepared` (lines checked and rendered once) before `headers`. A raw response writes the
 * prepared bytes as they are; any other writer (node's ServerResponse, an inbound adapter) gets them merged into the
 * headers, in the same order, so the head is the same either way.
 */
export function writeAnswerHead(
  res: AnswerWriter,
  status: number,
  headers: OutgoingHttpHeaders,
  prepared: PreparedHeaders | undefined,
): void {
  if (prepared === undefined) res.writeHead(status, headers);
  else if (res instanceof RawResponse) res.writeHead(status, headers, prepared);
  else res.writeHead(status, prepared.withHeaders(headers));
}
