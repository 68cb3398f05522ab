// A kept-alive connection is closed once it has been idle for the keep-alive timeout. When the event loop stalls for
// longer than that (a long garbage collection, a heap snapshot, a starved core), the expired timer and a request the
// client sent during the stall are both ready when the loop resumes, and the loop runs timers before it reads
// sockets: closing at once resets a connection that carries an unanswered request, which the client sees as a failed
// request it cannot tell from a lost one. Deciding one turn later, once the loop has read what was waiting, closes only
// the connections that are really idle (nginx does the same by handling ready events before expired timers).
import type { Server } from "node:http";
import type { Socket } from "node:net";

/** Calls `close` on the next turn unless `socket` has read anything by then. */
export function closeIfStillIdle(socket: Socket, close: () => void): void {
  const readBefore = socket.bytesRead;
  setImmediate(() => {
    if (!socket.destroyed && socket.bytesRead === readBefore) close();
  });
}

/**
 * node:http destroys a socket whose timeout fires unless someone listens to the server's "timeout": this listener
 * destroys it one turn later, and only if no request began to arrive. For servers whose only socket timeout is
 * keepAliveTimeout (headersTimeout and requestTimeout are checked apart, and still answer a slow request with 408).
 */
export function closeIdleConnectionsAfterReading(server: Server): void {
  server.on("timeout", (socket: Socket) => closeIfStillIdle(socket, () => socket.destroy()));
}
