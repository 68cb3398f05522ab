// A Twitch chat (IRC) simulator, faithful to what Twitch's documentation and its servers show a chat bot: IRC over
// TCP (TLS optional), and the same lines over WebSocket (what tmi.js speaks); PASS oauth:<token>; CAP LS/REQ/ACK for
// twitch.tv/tags, twitch.tv/commands and twitch.tv/membership; PRIVMSG with tags (id, display-name, user-id,
// reply-parent-msg-id...) and never echoed to its sender; CLEARMSG and USERNOTICE from the test; and the rate
// limit: a user's messages in the last 30 s are bounded (20, 100 in a channel where it is a moderator), and an excess
// message is dropped with NOTICE msg_ratelimit, as Twitch does.
import { randomUUID } from "node:crypto";
import { createServer, type Server, type Socket } from "node:net";
import { createServer as createTlsServer } from "node:tls";
import { WebSocketServer } from "ws";
import type { Teardown } from "../process.ts";
import { Inbox } from "./inbox.ts";

const HOST = "tmi.twitch.tv";
const CAPS = ["twitch.tv/tags", "twitch.tv/commands", "twitch.tv/membership"];

export interface TwitchIrcOptions {
  /** Serve TCP with TLS (this certificate and key, PEM), as irc.chat.twitch.tv:6697 does; default plain TCP. */
  tls?: { cert: string; key: string };
  /** Tokens (after `oauth:`) the server refuses; any other is accepted. */
  refusedTokens?: string[];
  /** The rate-limit window and bounds; default Twitch's 30 s, 20 and 100 (moderators). */
  windowMs?: number;
  limit?: number;
  moderatorLimit?: number;
}

export interface TwitchChatter {
  login: string;
  displayName?: string;
  userId?: string;
}

/** A PRIVMSG a client sent and the server accepted. */
export interface TwitchSent {
  login: string;
  channel: string;
  text: string;
  tags: Record<string, string>;
}

export interface TwitchIrc {
  readonly host: string;
  /** The IRC (TCP) port. */
  readonly port: number;
  /** The WebSocket port (ws://host:wsPort, tmi.js's `connection.server`/`port`). */
  readonly wsPort: number;
  /** Messages clients sent that were accepted, in order. */
  readonly sent: Inbox<TwitchSent>;
  /** Messages dropped by the rate limit. */
  readonly dropped: TwitchSent[];
  /** A chatter says something in a channel (`#name`); resolves with the message's id. */
  say(channel: string, who: TwitchChatter, text: string, replyTo?: { id: string; login: string; text: string }): string;
  /** A moderator deletes one message (CLEARMSG with target-msg-id). */
  deleteMessage(channel: string, id: string, login: string): void;
  /** A USERNOTICE (a subscription, a raid...): bots have nothing to relay from it. */
  userNotice(channel: string, text: string): void;
  /** Makes `login` a moderator of `channel` (its USERSTATE says mod=1 on join, and its limit is the moderators'). */
  setModerator(channel: string, login: string): void;
  /** Logins of the clients in a channel now. */
  members(channel: string): string[];
  close(): Promise<void>;
}

interface Session {
  login: string;
  caps: Set<string>;
  channels: Set<string>;
  registered: boolean;
  token: string;
  write(line: string): void;
  end(): void;
}

const escapeTag = (value: string) =>
  value.replace(/\\/g, "\\\\").replace(/;/g, "\\:").replace(/ /g, "\\s").replace(/\r/g, "\\r").replace(/\n/g, "\\n");
const unescapeTag = (value: string) =>
  value.replace(/\\(.)/g, (_, c: string) => ({ ":": ";", s: " ", r: "\r", n: "\n", "\\": "\\" })[c] ?? c);

function tagString(tags: Record<string, string>): string {
  return Object.entries(tags)
    .map(([key, value]) => `${key}=${escapeTag(value)}`)
    .join(";");
}

/** An IRC line as parts: tags, command, params (the trailing one included). */
export function parseIrcLine(line: string): { tags: Record<string, string>; command: string; params: string[] } {
  let rest = line;
  const tags: Record<string, string> = {};
  if (rest.startsWith("@")) {
    const space = rest.indexOf(" ");
    for (const pair of rest.slice(1, space < 0 ? undefined : space).split(";")) {
      const eq = pair.indexOf("=");
      if (eq < 0) tags[pair] = "";
      else tags[pair.slice(0, eq)] = unescapeTag(pair.slice(eq + 1));
    }
    rest = space < 0 ? "" : rest.slice(space + 1).trimStart();
  }
  if (rest.startsWith(":")) rest = rest.slice(rest.indexOf(" ") + 1).trimStart();
  const trailing = rest.indexOf(" :");
  const head = trailing < 0 ? rest : rest.slice(0, trailing);
  const params = head.split(" ").filter(Boolean);
  const command = (params.shift() ?? "").toUpperCase();
  if (trailing >= 0) params.push(rest.slice(trailing + 2));
  return { tags, command, params };
}

export async function startTwitchIrc(teardown: Teardown, options: TwitchIrcOptions = {}): Promise<TwitchIrc> {
  const windowMs = options.windowMs ?? 30_000;
  const sessions = new Set<Session>();
  const moderators = new Set<string>();
  const recent = new Map<string, number[]>();
  const sent = new Inbox<TwitchSent>();
  const dropped: TwitchSent[] = [];
  const refused = new Set(options.refusedTokens ?? []);

  const inChannel = (channel: string) => [...sessions].filter((s) => s.registered && s.channels.has(channel));
  const broadcast = (channel: string, tags: Record<string, string>, rest: string, except?: Session) => {
    for (const session of inChannel(channel)) {
      if (session === except) continue;
      session.write(
        session.caps.has("twitch.tv/tags") && Object.keys(tags).length > 0 ? `@${tagString(tags)} ${rest}` : rest,
      );
    }
  };
  const notice = (session: Session, channel: string, msgId: string, text: string) =>
    session.write(`@msg-id=${msgId} :${HOST} NOTICE ${channel} :${text}`);

  /** Whether `login` may send one more message in `channel` now (and counts it when so). */
  const allow = (login: string, channel: string): boolean => {
    const now = Date.now();
    const times = (recent.get(login) ?? []).filter((at) => now - at < windowMs);
    const bound = moderators.has(`${channel} ${login}`) ? (options.moderatorLimit ?? 100) : (options.limit ?? 20);
    if (times.length >= bound) {
      recent.set(login, times);
      return false;
    }
    times.push(now);
    recent.set(login, times);
    return true;
  };

  const userState = (session: Session, channel: string) => {
    const mod = moderators.has(`${channel} ${session.login}`) ? "1" : "0";
    const badges = mod === "1" ? "moderator/1" : "";
    session.write(`@badges=${badges};display-name=${session.login};mod=${mod} :${HOST} USERSTATE ${channel}`);
  };

  const handle = (session: Session, line: string) => {
    const { tags, command, params } = parseIrcLine(line);
    switch (command) {
      case "CAP":
        if (params[0] === "LS") session.write(`:${HOST} CAP * LS :${CAPS.join(" ")}`);
        else if (params[0] === "REQ") {
          const wanted = (params[1] ?? "").split(" ").filter(Boolean);
          const known = wanted.every((cap) => CAPS.includes(cap));
          if (known) for (const cap of wanted) session.caps.add(cap);
          session.write(`:${HOST} CAP * ${known ? "ACK" : "NAK"} :${wanted.join(" ")}`);
        }
        return;
      case "PASS":
        session.token = (params[0] ?? "").replace(/^oauth:/, "");
        return;
      case "NICK": {
        session.login = (params[0] ?? "").toLowerCase();
        if (session.registered) return;
        if (session.token === "" || refused.has(session.token)) {
          session.write(
            `:${HOST} NOTICE * :${session.token === "" ? "Improperly formatted auth" : "Login authentication failed"}`,
          );
          session.end();
          return;
        }
        session.registered = true;
        const nick = session.login;
        session.write(`:${HOST} 001 ${nick} :Welcome, GLHF!`);
        session.write(`:${HOST} 002 ${nick} :Your host is ${HOST}`);
        session.write(`:${HOST} 003 ${nick} :This server is rather new`);
        session.write(`:${HOST} 004 ${nick} :-`);
        session.write(`:${HOST} 375 ${nick} :-`);
        session.write(`:${HOST} 372 ${nick} :You are in a maze of twisty passages, all alike.`);
        session.write(`:${HOST} 376 ${nick} :>`);
        return;
      }
      case "USER":
        return;
      case "PING":
        session.write(`:${HOST} PONG ${HOST} :${params[0] ?? ""}`);
        return;
      case "JOIN":
        for (const channel of (params[0] ?? "").toLowerCase().split(",").filter(Boolean)) {
          session.channels.add(channel);
          const who = session.login;
          session.write(`:${who}!${who}@${who}.${HOST} JOIN ${channel}`);
          // Twitch lists only the joining bot itself in NAMES: nobody can rely on it.
          session.write(`:${who}.${HOST} 353 ${who} = ${channel} :${who}`);
          session.write(`:${who}.${HOST} 366 ${who} ${channel} :End of /NAMES list`);
          if (session.caps.has("twitch.tv/commands")) {
            userState(session, channel);
            session.write(`@emote-only=0;room-id=1;slow=0 :${HOST} ROOMSTATE ${channel}`);
          }
        }
        return;
      case "PART":
        for (const channel of (params[0] ?? "").toLowerCase().split(",")) {
          session.channels.delete(channel);
          session.write(`:${session.login}!${session.login}@${session.login}.${HOST} PART ${channel}`);
        }
        return;
      case "PRIVMSG": {
        const channel = (params[0] ?? "").toLowerCase();
        const text = params[1] ?? "";
        const message: TwitchSent = { login: session.login, channel, text, tags };
        if (!allow(session.login, channel)) {
          dropped.push(message);
          notice(
            session,
            channel,
            "msg_ratelimit",
            "Your message was not sent because you are sending messages too quickly.",
          );
          return;
        }
        sent.push(message);
        const outTags: Record<string, string> = {
          "display-name": session.login,
          id: randomUUID(),
          "user-id": `u-${session.login}`,
          "tmi-sent-ts": String(Date.now()),
        };
        const parent = tags["reply-parent-msg-id"];
        if (parent !== undefined) outTags["reply-parent-msg-id"] = parent;
        broadcast(
          channel,
          outTags,
          `:${session.login}!${session.login}@${session.login}.${HOST} PRIVMSG ${channel} :${text}`,
          session,
        );
        if (session.caps.has("twitch.tv/commands")) userState(session, channel);
        return;
      }
      case "QUIT":
        session.end();
        return;
      default:
        session.write(`:${HOST} 421 ${session.login || "*"} ${command} :Unknown command`);
    }
  };

  const newSession = (write: (line: string) => void, end: () => void): Session => {
    const session: Session = {
      login: "",
      caps: new Set(),
      channels: new Set(),
      registered: false,
      token: "",
      write,
      end,
    };
    sessions.add(session);
    return session;
  };

  const sockets = new Set<Socket>();
  const onSocket = (socket: Socket) => {
    sockets.add(socket);
    socket.setEncoding("utf8");
    const session = newSession(
      (line) => {
        if (!socket.destroyed) socket.write(`${line}\r\n`);
      },
      () => socket.end(),
    );
    let pending = "";
    socket.on("data", (chunk: string) => {
      pending += chunk;
      let newline = pending.indexOf("\n");
      while (newline >= 0) {
        const line = pending.slice(0, newline).replace(/\r$/, "");
        pending = pending.slice(newline + 1);
        if (line !== "") handle(session, line);
        newline = pending.indexOf("\n");
      }
    });
    socket.on("error", () => {});
    socket.on("close", () => {
      sessions.delete(session);
      sockets.delete(socket);
    });
  };

  const tcp: Server = options.tls ? createTlsServer(options.tls, onSocket) : createServer(onSocket);
  await new Promise<void>((resolve) => tcp.listen(0, "127.0.0.1", resolve));
  const ws = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  await new Promise<void>((resolve) => ws.once("listening", resolve));
  ws.on("connection", (socket) => {
    const session = newSession(
      (line) => socket.send(`${line}\r\n`),
      () => socket.close(),
    );
    socket.on("message", (data) => {
      for (const line of String(data).split(/\r?\n/)) if (line !== "") handle(session, line);
    });
    socket.on("close", () => sessions.delete(session));
  });

  const portOf = (address: ReturnType<Server["address"]>) =>
    typeof address === "object" && address ? address.port : 0;
  let closed = false;
  const simulator: TwitchIrc = {
    host: "127.0.0.1",
    port: portOf(tcp.address()),
    wsPort: portOf(ws.address() as ReturnType<Server["address"]>),
    sent,
    dropped,
    say(channel, who, text, replyTo) {
      const id = randomUUID();
      const tags: Record<string, string> = {
        "display-name": who.displayName ?? who.login,
        id,
        "user-id": who.userId ?? `u-${who.login}`,
        "tmi-sent-ts": String(Date.now()),
      };
      if (replyTo !== undefined) {
        tags["reply-parent-msg-id"] = replyTo.id;
        tags["reply-parent-user-login"] = replyTo.login;
        tags["reply-parent-msg-body"] = replyTo.text;
      }
      broadcast(channel, tags, `:${who.login}!${who.login}@${who.login}.${HOST} PRIVMSG ${channel} :${text}`);
      return id;
    },
    deleteMessage(channel, id, login) {
      broadcast(
        channel,
        { login, "target-msg-id": id, "tmi-sent-ts": String(Date.now()) },
        `:${HOST} CLEARMSG ${channel} :deleted`,
      );
    },
    userNotice(channel, text) {
      broadcast(
        channel,
        { "msg-id": "sub", login: "someone", "display-name": "Someone", id: randomUUID() },
        `:${HOST} USERNOTICE ${channel} :${text}`,
      );
    },
    setModerator(channel, login) {
      moderators.add(`${channel} ${login}`);
    },
    members: (channel) => inChannel(channel).map((s) => s.login),
    async close() {
      if (closed) return;
      closed = true;
      for (const session of sessions) session.end();
      for (const client of ws.clients) client.terminate();
      await new Promise<void>((resolve) => ws.close(() => resolve()));
      await new Promise<void>((resolve) => {
        tcp.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
    },
  };
  teardown.after(() => simulator.close());
  return simulator;
}
