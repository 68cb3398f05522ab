// A human on IRC for tests: an irc-framework client that joins channels and records what it sees.
import IRC, { type Client } from "irc-framework";
import type { Teardown } from "../process.ts";
import { withTimeout } from "../wait.ts";
import { Inbox } from "./inbox.ts";

export type IrcEvent =
  | { type: "privmsg" | "action" | "notice"; nick: string; target: string; text: string }
  | { type: "join"; nick: string; channel: string }
  | { type: "part"; nick: string; channel: string; message: string }
  | { type: "kick"; nick: string; channel: string; kicked: string; message: string }
  | { type: "quit"; nick: string; message: string }
  | { type: "nick"; nick: string; newNick: string }
  | { type: "topic"; nick?: string; channel: string; topic: string };

export interface IrcUserOptions {
  host: string;
  port: number;
  nick: string;
  /** Joined before connectIrcUser resolves. */
  channels?: string[];
  password?: string;
  /**
   * irc-framework splits say()/notice() text longer than this many bytes into several lines itself (its default is
   * 350, below Matterbridge's MessageLength of 400); raise it to send lines that were already split.
   */
  messageMaxLength?: number;
  /** Bound on connecting, joining and quitting; default 10 s. */
  timeoutMs?: number;
}

export interface IrcUser {
  readonly client: Client;
  /** The nick the server knows us by now. */
  readonly nick: string;
  readonly connected: boolean;
  /** Everything seen, in order (our own joins too; our own messages are not echoed by IRC). */
  readonly events: Inbox<IrcEvent>;
  waitFor(matches: (event: IrcEvent) => boolean, timeoutMs?: number): Promise<IrcEvent>;
  /** The first privmsg to `channel` whose text matches (a substring or a pattern). */
  waitForMessage(channel: string, text: string | RegExp, timeoutMs?: number): Promise<IrcEvent & { type: "privmsg" }>;
  join(channel: string, key?: string): Promise<void>;
  part(channel: string, message?: string): Promise<void>;
  say(target: string, text: string): void;
  action(target: string, text: string): void;
  notice(target: string, text: string): void;
  setTopic(channel: string, topic: string): void;
  changeNick(nick: string): Promise<void>;
  /** Connects again after a server restart and rejoins the channels it was in. */
  reconnect(): Promise<void>;
  /** Sends QUIT and waits for the socket to close; safe to call twice. */
  quit(message?: string): Promise<void>;
}

const textMatches = (text: string, expected: string | RegExp) =>
  typeof expected === "string" ? text.includes(expected) : expected.test(text);

/** Connects, registers and joins `channels`; teardown quits even if the test fails. */
export async function connectIrcUser(teardown: Teardown, options: IrcUserOptions): Promise<IrcUser> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  // No auto reconnect: tests decide when a user comes back (reconnect()).
  const client = new IRC.Client({ auto_reconnect: false, ping_interval: 0, version: null });
  const events = new Inbox<IrcEvent>();
  const channels = new Set<string>();
  let closed = true;

  client.on("privmsg", (e) => events.push({ type: "privmsg", nick: e.nick, target: e.target, text: e.message }));
  client.on("action", (e) => events.push({ type: "action", nick: e.nick, target: e.target, text: e.message }));
  client.on("notice", (e) => {
    if (!e.from_server) events.push({ type: "notice", nick: e.nick, target: e.target, text: e.message });
  });
  client.on("join", (e) => events.push({ type: "join", nick: e.nick, channel: e.channel }));
  client.on("part", (e) => events.push({ type: "part", nick: e.nick, channel: e.channel, message: e.message }));
  client.on("kick", (e) =>
    events.push({ type: "kick", nick: e.nick, channel: e.channel, kicked: e.kicked, message: e.message }),
  );
  client.on("quit", (e) => events.push({ type: "quit", nick: e.nick, message: e.message }));
  client.on("nick", (e) => events.push({ type: "nick", nick: e.nick, newNick: e.new_nick }));
  client.on("topic", (e) => events.push({ type: "topic", nick: e.nick, channel: e.channel, topic: e.topic }));
  client.on("close", () => {
    closed = true;
  });

  const connect = async () => {
    const registered = new Promise<void>((resolve, reject) => {
      const onClose = () => reject(new Error(`IRC user ${options.nick}: connection closed before registration`));
      client.once("close", onClose);
      client.once("registered", () => {
        client.off("close", onClose);
        resolve();
      });
    });
    closed = false;
    client.connect({
      host: options.host,
      port: options.port,
      nick: options.nick,
      username: options.nick.slice(0, 9).replace(/[^A-Za-z0-9]/g, "x") || "user",
      gecos: `test user ${options.nick}`,
      password: options.password,
      message_max_length: options.messageMaxLength ?? 350,
      auto_reconnect: false,
      ping_interval: 0,
      version: null,
    });
    await withTimeout(registered, timeoutMs, `IRC user ${options.nick} registering on ${options.port}`);
  };

  const join = async (channel: string, key?: string) => {
    const joined = events.waitFor(
      (e) =>
        e.type === "join" && client.caseCompare(e.nick, client.user.nick) && client.caseCompare(e.channel, channel),
      { timeoutMs, what: `${client.user.nick} joining ${channel}`, from: events.items.length },
    );
    client.join(channel, key);
    await joined;
    channels.add(channel);
  };

  const user: IrcUser = {
    client,
    get nick() {
      return client.user.nick;
    },
    get connected() {
      return client.connected;
    },
    events,
    waitFor: (matches, ms = timeoutMs) => events.waitFor(matches, { timeoutMs: ms, what: "an IRC event" }),
    waitForMessage: (channel, text, ms = timeoutMs) =>
      events.waitFor(
        (e) => e.type === "privmsg" && client.caseCompare(e.target, channel) && textMatches(e.text, text),
        { timeoutMs: ms, what: `a message ${text} in ${channel}` },
      ) as Promise<IrcEvent & { type: "privmsg" }>,
    join,
    async part(channel, message) {
      const parted = events.waitFor(
        (e) =>
          e.type === "part" && client.caseCompare(e.nick, client.user.nick) && client.caseCompare(e.channel, channel),
        { timeoutMs, what: `${client.user.nick} leaving ${channel}`, from: events.items.length },
      );
      client.part(channel, message);
      await parted;
      channels.delete(channel);
    },
    say: (target, text) => client.say(target, text),
    action: (target, text) => client.action(target, text),
    notice: (target, text) => client.notice(target, text),
    setTopic: (channel, topic) => client.setTopic(channel, topic),
    async changeNick(nick) {
      const old = client.user.nick;
      const changed = events.waitFor((e) => e.type === "nick" && client.caseCompare(e.nick, old), {
        timeoutMs,
        what: `${old} becoming ${nick}`,
        from: events.items.length,
      });
      client.changeNick(nick);
      await changed;
    },
    async reconnect() {
      if (client.connected) await user.quit("reconnecting");
      await connect();
      for (const channel of [...channels]) await join(channel);
    },
    async quit(message) {
      if (closed) return;
      const gone = new Promise<void>((resolve) => client.once("close", () => resolve()));
      if (client.connected) client.quit(message ?? "bye");
      else client.connection.end();
      await withTimeout(gone, timeoutMs, `IRC user ${client.user.nick} quitting`);
    },
  };

  teardown.after(() => user.quit());
  await connect();
  for (const channel of options.channels ?? []) await join(channel);
  return user;
}
