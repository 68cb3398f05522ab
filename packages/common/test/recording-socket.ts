import type { Socket } from "node:net";

/** A socket that records each write (as bytes, and as text) and calls back a tick later, as a socket does. */
export function recordingSocket(): { socket: Socket; writes: Buffer[]; written: () => string } {
  const writes: Buffer[] = [];
  const texts: string[] = [];
  const socket = {
    destroyed: false,
    writableEnded: false,
    write(data: string | Buffer, encoding?: unknown, done?: unknown) {
      const bytes =
        typeof data === "string"
          ? Buffer.from(data, typeof encoding === "string" ? (encoding as "latin1") : "utf8")
          : data;
      writes.push(Buffer.from(bytes));
      texts.push(typeof data === "string" ? data : data.toString("latin1"));
      const callback = typeof encoding === "function" ? encoding : done;
      if (typeof callback === "function") process.nextTick(callback as () => void);
      return true;
    },
    cork() {},
    uncork() {},
    destroy() {},
  };
  /** Everything written as text: strings as given, bytes as latin1 (heads are latin1). */
  const written = () => texts.join("");
  return { socket: socket as unknown as Socket, writes, written };
}
