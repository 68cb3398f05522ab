import type { OutgoingHttpHeaders } from "node:http";

/**
 * Where an attempt writes its answer, in OpenAI's format (a JSON body, or a stream of `data:` chunk events). For the
 * OpenAI APIs it is the client's ServerResponse itself: the identity, at no cost. An inbound adapter (inbound/<api>/)
 * gives one that turns what is written into its own API's format as it arrives.
 */
export interface AnswerWriter {
  /** Whether the answer has begun (the attempt can no longer fail over). */
  readonly headersSent: boolean;
  /** The client is gone. */
  readonly destroyed: boolean;
  readonly writableEnded: boolean;
  writeHead(statusCode: number, headers: OutgoingHttpHeaders): unknown;
  /** False when the client's buffer is full: wait for "drain". */
  write(chunk: string | Buffer): boolean;
  end(chunk?: string | Buffer): unknown;
  once(event: "drain", listener: () => void): unknown;
}
