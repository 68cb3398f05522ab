// The bench's IRC clients: raw connections that register, join channels and write PRIVMSG lines, and (a reader)
// count the "m<seq>" texts that arrive in a channel from a nick. An irc-framework client parsed every line into an
// event through its middleware, 10-20 µs of the load generator's CPU per message, as much as a path's other work;
// these scan each line for its nick, channel and sequence number and nothing else.
import { connect, type Socket } from "node:net";

/** Called with the sequence number of each "...m<seq>" text a watched nick says in a watched channel. */
export type ArrivalHandler = (seq: number) => void;

/** The number after the last "m" ending `text` ("<bench> m42" -> 42), or -1. */
export function sequenceAtEnd(text: string): number {
  let at = text.length;
  while (at > 0 && text.charCodeAt(at - 1) >= 0x30 && text.charCodeAt(at - 1) <= 0x39) at--;
  if (at === text.length || at === 0 || text.charCodeAt(at - 1) !== 0x6d) return -1;
  return Number(text.slice(at));
}

export class RawIrcClient {
  readonly #socket: Socket;
  /** "<channel> <nick>" -> handler. */
  readonly #watched = new Map<string, ArrivalHandler>();
  #pending = "";

  private constructor(socket: Socket) {
    this.#socket = socket;
    socket.on("data", (chunk: string) => this.#read(chunk));
  }

  /** Connects as `nick` and joins `channels`; resolves once the server has sent the names of each (joined). */
  static open(host: string, port: number, nick: string, channels: string[], timeoutMs = 10_000): Promise<RawIrcClient> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host, port });
      const timer = setTimeout(() => fail(new Error(`${nick}: not joined within ${timeoutMs} ms`)), timeoutMs);
      const fail = (error: Error) => {
        clearTimeout(timer);
        socket.destroy();
        reject(error);
      };
      socket.setNoDelay(true);
      socket.setEncoding("latin1");
      socket.once("error", fail);
      let pending = "";
      let joined = 0;
      const registering = (chunk: string) => {
        pending += chunk;
        const lines = pending.split("\r\n");
        pending = lines.pop() ?? "";
        for (const line of lines) {
          if (line.startsWith("PING ")) socket.write(`PONG ${line.slice(5)}\r\n`);
          else if (/ 001 /.test(line)) socket.write(`JOIN ${channels.join(",")}\r\n`);
          // 366: end of a channel's names, sent once the join is done.
          else if (/ 366 /.test(line) && ++joined === channels.length) {
            clearTimeout(timer);
            socket.off("data", registering);
            socket.off("error", fail);
            socket.on("error", () => {});
            resolve(new RawIrcClient(socket));
            return;
          } else if (/^:\S+ (432|433|471|473|474|475) /.test(line)) fail(new Error(`${nick}: ${line}`));
        }
      };
      socket.on("data", registering);
      socket.write(`NICK ${nick}\r\nUSER ${nick} 0 * :${nick}\r\n`);
    });
  }

  /** Calls `handler` with the sequence number of each "...m<seq>" that `nick` says in `channel` from now on. */
  watch(channel: string, nick: string, handler: ArrivalHandler): void {
    this.#watched.set(`${channel} ${nick}`, handler);
  }

  say(channel: string, text: string): void {
    this.#socket.write(`PRIVMSG ${channel} :${text}\r\n`, "latin1");
  }

  close(): void {
    this.#socket.end("QUIT\r\n");
    this.#socket.destroySoon();
  }

  #read(chunk: string): void {
    // A sender only answers PINGs: the lines of the channels it sits in are not split up and looked at.
    if (this.#watched.size === 0 && !chunk.includes("PING") && !this.#pending.endsWith("PIN")) {
      this.#pending = chunk.slice(chunk.lastIndexOf("\n") + 1);
      return;
    }
    const data = this.#pending + chunk;
    let start = 0;
    for (let end = data.indexOf("\r\n"); end >= 0; start = end + 2, end = data.indexOf("\r\n", start)) {
      if (data.charCodeAt(start) === 0x3a) this.#message(data, start, end);
      else if (data.startsWith("PING ", start)) this.#socket.write(`PONG ${data.slice(start + 5, end)}\r\n`);
    }
    this.#pending = data.slice(start);
  }

  /** ":nick!user@host PRIVMSG #channel :text" between `start` and `end`. */
  #message(data: string, start: number, end: number): void {
    const command = data.indexOf(" PRIVMSG ", start);
    if (command < 0 || command > end) return;
    const bang = data.indexOf("!", start);
    const nickEnd = bang >= 0 && bang < command ? bang : command;
    const channelEnd = data.indexOf(" :", command + 9);
    if (channelEnd < 0 || channelEnd > end) return;
    const handler = this.#watched.get(`${data.slice(command + 9, channelEnd)} ${data.slice(start + 1, nickEnd)}`);
    if (handler === undefined) return;
    const seq = sequenceAtEnd(data.slice(channelEnd + 2, end));
    if (seq >= 0) handler(seq);
  }
}
