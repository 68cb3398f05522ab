import type { Readable } from "node:stream";
import { AnswerTooLarge } from "./network-errors.ts";

/**
 * Reads a response body whole, up to `limitBytes`: past it the body is destroyed (its connection closes) and the read
 * rejects with AnswerTooLarge, so that an endless or enormous answer costs at most the limit.
 */
export async function readCapped(body: Readable, limitBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    length += chunk.length;
    if (length > limitBytes) {
      body.destroy();
      throw new AnswerTooLarge(limitBytes);
    }
    chunks.push(chunk);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, length);
}
