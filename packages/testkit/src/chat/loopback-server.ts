// What every simulator does with its HTTP server: listen on a free 127.0.0.1 port, and close for good (open
// keep-alive connections and WebSockets included) exactly once.
import type { Server } from "node:http";

/** Listens on 127.0.0.1, port 0; resolves with the port the system chose. */
export async function listenOnLoopback(server: Server): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("the simulator has no TCP address");
  return address.port;
}

/** A close that runs `first` (the simulator's own sockets), then cuts every connection; later calls do nothing. */
export function closeOnce(server: Server, first: () => void = () => {}): () => Promise<void> {
  let closed = false;
  return async () => {
    if (closed) return;
    closed = true;
    first();
    const done = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await done;
  };
}
