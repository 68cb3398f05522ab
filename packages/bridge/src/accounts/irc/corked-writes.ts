// Several IRC lines in one socket write. irc-framework writes each line with its own socket.write: a syscall, a
// loopback or network send, and a read on the server's side, per line. A burst's batch (writeCorked) is joined into
// one write, and the single sends of one event-loop turn are corked (TurnCork) so that Node gathers them into one
// writev. Every line still passes the line guard (line-guard.ts) alone, which refuses an unsafe one without holding
// up the others. A line counts as sent only once its write's callback ran (the kernel has it), so batching delays
// confirmations to the write, never ahead of it.
import type { Socket } from "node:net";
import type { Client } from "irc-framework";
import { commandOf, isSafeIrcLine, type RefusedLine } from "./line-guard.ts";

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

/** irc-framework's net transport as far as a batch needs it (its transports/net.js). */
interface NetTransport {
  socket?: Socket | null;
  encoding?: string;
  isConnected?(): boolean;
}

/** What the batch checks of irc-framework's connection before writing past it. */
interface ConnectionState {
  connected?: boolean;
  requested_disconnect?: boolean;
  transport?: NetTransport;
}

/** Encodings whose bytes for a whole batch are those of its lines one by one, written by Node itself. */
const DIRECT_ENCODINGS: ReadonlySet<string> = new Set(["utf8", "latin1"]);
/** A character latin1 cannot hold: irc-framework's encoder (iconv-lite) writes "?", Node's its low byte. */
const BEYOND_LATIN1 = /[\u0100-\uffff]/;

/**
 * Writes `lines` (no CRLF) in order as one write; resolves once the socket took every one of them (the write's
 * callback: handed to the kernel), rejects on a write error or when the client is not connected. A line holding CR,
 * LF or NUL is left out and reported to `onRefused` (line-guard.ts), the others still go.
 *
 * On irc-framework's net transport in utf8 or latin1 (the bridge's default: the wire is latin1, see wire.ts), the
 * lines are joined and written with one socket.write, as that transport would write each (line + CRLF, same
 * encoding), without its per-line work (a Buffer per line from iconv-lite, a write and a callback per line, two
 * "raw" events per line, emitted here only when someone listens). Any other transport or encoding writes each line
 * through the connection between cork() and uncork().
 */
export function writeCorked(client: Client, lines: readonly string[], onRefused: RefusedLine): Promise<void> {
  const connection = client.connection as unknown as ConnectionState;
  const transport = connection.transport;
  const socket = transport?.socket ?? undefined;
  const encoding = transport?.encoding ?? "";
  if (socket === undefined || !DIRECT_ENCODINGS.has(encoding) || typeof transport?.isConnected !== "function") {
    return writeLineByLine(client, lines);
  }
  let text = "";
  for (const line of lines) {
    if (isSafeIrcLine(line)) text += `${line}\r\n`;
    else onRefused(commandOf(line));
  }
  if (encoding === "latin1" && BEYOND_LATIN1.test(text)) return writeLineByLine(client, lines);
  return new Promise((resolve, reject) => {
    if (!connection.connected || connection.requested_disconnect || !transport.isConnected?.()) {
      reject(new Error("not connected"));
      return;
    }
    if (client.listenerCount("raw") > 0) {
      for (const line of lines) if (isSafeIrcLine(line)) client.emit("raw", { line, from_server: false });
    }
    if (text === "") {
      resolve();
      return;
    }
    socket.write(text, encoding as BufferEncoding, (error?: Error | null) => {
      if (error) reject(error);
      else resolve();
    });
  });
}

/** Each line through the connection's write (and its line guard), corked into one writev. */
function writeLineByLine(client: Client, lines: readonly string[]): Promise<void> {
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
