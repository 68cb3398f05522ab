// Several IRC lines in one socket write. irc-framework writes each line with its own socket.write: a syscall, a
// loopback or network send, and a read on the server's side, per line. Between cork() and uncork() Node gathers the
// writes into one writev: a burst's batch (writeCorked), and the single sends of one event-loop turn (TurnCork).
// Every line still passes through the connection's write one by one, so the line guard (line-guard.ts) still sees
// each line alone and refuses an unsafe one without holding up the others. A line counts as sent only once its
// write's callback ran (the kernel has it), so corking delays confirmations to the flush, never ahead of it.
import type { Socket } from "node:net";
import type { Client } from "irc-framework";

/** irc-framework's socket (its transports/net.js), absent from its typings; undefined while not connected. */
function socketOf(client: Client): Socket | undefined {
  const transport = (client.connection as { transport?: { socket?: Socket | null } }).transport;
  return transport?.socket ?? undefined;
}

/**
 * Holds the client's socket corked until the end of the current turn of the event loop (setImmediate), so that the
 * lines of the messages sent during one turn (a burst of posts read from one socket read) leave in one write. The
 * lines' write callbacks, and so their senders' confirmations, come once the turn's write is done.
 */
export class TurnCork {
  #corked: Socket | undefined;

  hold(client: Client): void {
    if (this.#corked !== undefined) return;
    const socket = socketOf(client);
    if (socket === undefined) return;
    socket.cork();
    this.#corked = socket;
    setImmediate(() => {
      this.#corked = undefined;
      socket.uncork();
    });
  }
}

/**
 * Writes `lines` (no CRLF) in order as one write; resolves once the socket took every one of them (each write's
 * callback: handed to the kernel), rejects on the first write error or when the client is not connected.
 */
export function writeCorked(client: Client, lines: readonly string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    let left = lines.length;
    if (left === 0) {
      resolve();
      return;
    }
    let settled = false;
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      reject(error);
    };
    const written = (error?: Error | null) => {
      if (error) fail(error);
      else if (--left === 0 && !settled) {
        settled = true;
        resolve();
      }
    };
    const socket = socketOf(client);
    socket?.cork();
    try {
      for (const line of lines) {
        // irc-framework's write answers false (and calls back later, without an error) when not connected.
        if (client.connection.write(line, written) === false) {
          fail(new Error("not connected"));
          break;
        }
      }
    } finally {
      socket?.uncork();
    }
  });
}
