import type { Readable } from "node:stream";

/** Reads a whole upstream body; rejects if the upstream connection breaks first. */
export async function readAll(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of body) {
    chunks.push(chunk as Buffer);
    length += (chunk as Buffer).length;
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, length);
}

/** Reads a body we only need for an error message or relay; a broken body yields what arrived. */
export async function readQuietly(body: Readable): Promise<Buffer> {
  try {
    return await readAll(body);
  } catch {
    return Buffer.alloc(0);
  }
}
