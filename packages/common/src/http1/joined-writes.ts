import type { Socket } from "node:net";

/**
 * An answer whose last write was kept: told once the joined write is done. An object rather than a callback, so that
 * an answer written joined needs no closure of its own.
 */
export interface JoinedWriteDone {
  writeDone(error?: Error | null): void;
}

/** What the raw answers of one socket wrote while joined: their text in order, and the answers it ends. */
class JoinedWrite {
  text = "";
  ended: JoinedWriteDone[] = [];

  /** Writes what is kept, in one socket write; its callback tells each answer it ends, in order. */
  flush(socket: Socket): void {
    const { text, ended } = this;
    if (text.length === 0) return;
    this.text = "";
    this.ended = [];
    socket.write(text, (error) => {
      for (const answer of ended) answer.writeDone(error);
    });
  }
}

const joined = new WeakMap<Socket, JoinedWrite>();

/**
 * From now until endJoinedWrite, the raw answers written on `socket` (RawResponse) are kept and leave in one socket
 * write: for a caller that answers many pipelined requests of a connection at once, one stream write instead of one
 * per answer. Order is kept: an answer that cannot be joined (a Buffer body) first sends what is kept.
 */
export function beginJoinedWrite(socket: Socket): void {
  if (!joined.has(socket)) joined.set(socket, new JoinedWrite());
}

/** Sends what was kept on `socket` since beginJoinedWrite, and writes straight again. */
export function endJoinedWrite(socket: Socket): void {
  const write = joined.get(socket);
  if (write === undefined) return;
  joined.delete(socket);
  write.flush(socket);
}

/**
 * Keeps `text` for the joined write of `socket`, if one is open: true when it was kept. `ends`, when the text is the
 * end of an answer, is told once the joined write is done.
 */
export function keepForJoinedWrite(socket: Socket, text: string, ends: JoinedWriteDone | undefined): boolean {
  const write = joined.get(socket);
  if (write === undefined) return false;
  write.text += text;
  if (ends !== undefined) write.ended.push(ends);
  return true;
}

/** Sends what is kept on `socket` now (before a write that cannot join it), keeping the joined write open. */
export function flushJoinedWrite(socket: Socket): void {
  joined.get(socket)?.flush(socket);
}
