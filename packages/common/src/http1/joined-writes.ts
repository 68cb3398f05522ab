import type { Socket } from "node:net";

type Done = (error?: Error | null) => void;

/** What the raw answers of one socket wrote while joined: their text in order, and their callbacks. */
class JoinedWrite {
  text = "";
  dones: Done[] = [];

  /** Writes what is kept, in one socket write; its callback calls each answer's in order. */
  flush(socket: Socket): void {
    const { text, dones } = this;
    if (text.length === 0) return;
    this.text = "";
    this.dones = [];
    socket.write(text, (error) => {
      for (const done of dones) done(error);
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

/** Keeps `text` for the joined write of `socket`, if one is open: true when it was kept. */
export function keepForJoinedWrite(socket: Socket, text: string, done: Done | undefined): boolean {
  const write = joined.get(socket);
  if (write === undefined) return false;
  write.text += text;
  if (done !== undefined) write.dones.push(done);
  return true;
}

/** Sends what is kept on `socket` now (before a write that cannot join it), keeping the joined write open. */
export function flushJoinedWrite(socket: Socket): void {
  joined.get(socket)?.flush(socket);
}
