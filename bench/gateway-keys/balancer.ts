// A small round-robin TCP balancer, as a load balancer in front of replicas is: each new connection goes to the next
// replica, bytes are piped both ways untouched.
import { connect, createServer, type Server } from "node:net";

export function startBalancer(targets: readonly number[]): Promise<{ port: number; server: Server }> {
  let next = 0;
  const server = createServer((client) => {
    const port = targets[next++ % targets.length]!;
    const upstream = connect(port, "127.0.0.1");
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    client.pipe(upstream).pipe(client);
    const close = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("error", close).on("close", close);
    upstream.on("error", close).on("close", close);
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      resolve({ port: typeof address === "object" && address ? address.port : 0, server });
    });
  });
}
