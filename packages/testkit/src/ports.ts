import { readFileSync } from "node:fs";
import { createServer, Socket } from "node:net";

// Ports for servers a test starts, restarts on the same port, or names in a config before starting.
//
// The OS hands out ports from its ephemeral range for `listen(0)` and, more often, as the local port of every
// outgoing connection, where it lingers in TIME_WAIT for a minute after the connection closes. A server port taken
// from that range can therefore be held by some unrelated connection by the time the server binds it, or, after the
// server stopped for a restart, before it binds it again (a soak that restarts Prosody under load lost that race).
// So ports are taken from outside the ephemeral range, where nothing is assigned implicitly, and each process walks
// its own stretch of it (starting at an offset its PID decides) so that parallel test files rarely meet.

/** Linux's ephemeral range; the common default where it cannot be read. */
function ephemeralRange(): [number, number] {
  try {
    const [low = Number.NaN, high = Number.NaN] = readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8")
      .trim()
      .split(/\s+/)
      .map(Number);
    if (Number.isInteger(low) && Number.isInteger(high) && low <= high) return [low, high];
  } catch {
    // not Linux, or /proc is hidden: fall through
  }
  return [32768, 60999];
}

const LOWEST = 16384; // below this sit well-known and registered services

/** The ports outside the ephemeral range, as [first, last] stretches. */
function quietStretches(): Array<[number, number]> {
  const [low, high] = ephemeralRange();
  const stretches: Array<[number, number]> = [];
  if (low - 1 >= LOWEST) stretches.push([LOWEST, low - 1]);
  if (high + 1 <= 65535) stretches.push([Math.max(high + 1, LOWEST), 65535]);
  return stretches;
}

const stretches = quietStretches();
const quietCount = stretches.reduce((sum, [first, last]) => sum + last - first + 1, 0);
// Knuth's multiplicative hash spreads nearby PIDs (files started together) far apart.
let cursor = quietCount > 0 ? (Math.imul(process.pid, 2654435761) >>> 0) % quietCount : 0;

function nthQuietPort(index: number): number {
  let rest = index % quietCount;
  for (const [first, last] of stretches) {
    const size = last - first + 1;
    if (rest < size) return first + rest;
    rest -= size;
  }
  throw new Error("unreachable: index within quietCount");
}

function canListen(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once("error", () => resolve(false));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** A port the OS assigns (inside the ephemeral range): the fallback when no quiet port is free. */
function osAssignedPort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, host, () => {
      const address = server.address();
      server.close(() => {
        if (address && typeof address === "object") resolve(address.port);
        else reject(new Error("could not read the port the OS assigned"));
      });
    });
  });
}

/**
 * A TCP port on `host` that was free a moment ago and lies outside the OS's ephemeral range (see above); the caller
 * binds it next. Never the same port twice in one process until its stretch wraps around.
 */
export async function freePort(host = "127.0.0.1"): Promise<number> {
  for (let tries = 0; tries < 64 && quietCount > 0; tries++) {
    const port = nthQuietPort(cursor++);
    if (await canListen(port, host)) return port;
  }
  return osAssignedPort(host);
}

/** Whether something accepts TCP connections on host:port right now. */
export function isPortOpen(port: number, host = "127.0.0.1"): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (open: boolean) => {
      socket.destroy();
      resolve(open);
    };
    socket.setTimeout(500, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
    socket.connect(port, host);
  });
}

/** Resolves once host:port accepts connections; rejects after timeoutMs. */
export async function waitForPort(port: number, { host = "127.0.0.1", timeoutMs = 15_000 } = {}): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await isPortOpen(port, host)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`nothing listened on ${host}:${port} within ${timeoutMs} ms`);
}
