// The IRC -> api path's sender: a raw IRC connection that registers, joins the bridges' channels and writes PRIVMSG
// lines, reading nothing but its registration and PINGs. An irc-framework client there parsed (and recorded) every
// line the bridges wrote during api -> IRC bursts: a second IRC parser per message charged to the load generator,
// which the floor does not have (a sender's own lines are not echoed to it).
import { connect, type Socket } from "node:net";

export class RawIrcSender {
  readonly #socket: Socket;

  private constructor(socket: Socket) {
    this.#socket = socket;
  }

  /** Connects as `nick` and joins `channels`; resolves once the server has sent the names of each (joined). */
  static open(host: string, port: number, nick: string, channels: string[], timeoutMs = 10_000): Promise<RawIrcSender> {
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
      let ready = false;
      socket.on("data", (chunk: string) => {
        pending += chunk;
        // Once joined, only a PING needs an answer: the bridges' lines are not split up and looked at.
        if (ready && !pending.includes("PING")) {
          pending = pending.slice(pending.lastIndexOf("\n") + 1);
          return;
        }
        const lines = pending.split("\r\n");
        pending = lines.pop() ?? "";
        for (const line of lines) {
          if (line.startsWith("PING ")) socket.write(`PONG ${line.slice(5)}\r\n`);
          else if (!ready && / 001 /.test(line)) socket.write(`JOIN ${channels.join(",")}\r\n`);
          // 366: end of a channel's names, sent once the join is done.
          else if (!ready && / 366 /.test(line) && ++joined === channels.length) {
            ready = true;
            pending = "";
            clearTimeout(timer);
            socket.off("error", fail);
            socket.on("error", () => {});
            resolve(new RawIrcSender(socket));
          } else if (!ready && /^:\S+ (432|433|471|473|474|475) /.test(line)) fail(new Error(`${nick}: ${line}`));
        }
      });
      socket.write(`NICK ${nick}\r\nUSER ${nick} 0 * :${nick}\r\n`);
    });
  }

  say(channel: string, text: string): void {
    this.#socket.write(`PRIVMSG ${channel} :${text}\r\n`, "latin1");
  }

  close(): void {
    this.#socket.end("QUIT\r\n");
    this.#socket.destroySoon();
  }
}
