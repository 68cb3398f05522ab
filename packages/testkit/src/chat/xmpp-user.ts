// A human on XMPP for tests: an @xmpp/client user that joins MUC rooms, talks, corrects (XEP-0308) and records the
// groupchat messages it receives.
import { randomUUID } from "node:crypto";
import { type Client, client, xml } from "@xmpp/client";
import type { Element } from "@xmpp/xml";
import type { Teardown } from "../process.ts";
import { withTimeout } from "../wait.ts";
import { Inbox } from "./inbox.ts";

const NS_MUC = "http://jabber.org/protocol/muc";
const NS_MUC_USER = "http://jabber.org/protocol/muc#user";
const NS_DELAY = "urn:xmpp:delay";
const NS_CORRECT = "urn:xmpp:message-correct:0";

export interface RoomMessage {
  /** The room's bare JID. */
  room: string;
  /** The sender's occupant nick (empty for messages from the room itself). */
  nick: string;
  text: string;
  id?: string;
  /** The id this message corrects (XEP-0308). */
  replaceId?: string;
  /** Set for the room's subject message, which ends the history replay. */
  subject?: string;
  /** History replayed on join carries a delay stamp (XEP-0203). */
  delayed: boolean;
}

export interface XmppUserOptions {
  host: string;
  port: number;
  domain: string;
  username: string;
  password: string;
  resource?: string;
  /** Bound on connecting, joining and stopping; default 10 s. */
  timeoutMs?: number;
}

export interface JoinRoomOptions {
  password?: string;
  /** How many history messages to ask for (omit for the room's default). */
  maxStanzas?: number;
}

export interface XmppUser {
  readonly xmpp: Client;
  /** Full JID after binding. */
  readonly jid: string;
  /** Groupchat messages received, our own reflections included (the room echoes them). */
  readonly messages: Inbox<RoomMessage>;
  waitFor(matches: (message: RoomMessage) => boolean, timeoutMs?: number): Promise<RoomMessage>;
  /** The first live (not history) message in `room` from someone other than `exceptNick` whose text matches. */
  waitForMessage(room: string, text: string | RegExp, timeoutMs?: number): Promise<RoomMessage>;
  /** Joins `room` as `nick`; resolves once the room sent its subject, i.e. after any history replay. */
  joinRoom(room: string, nick: string, options?: JoinRoomOptions): Promise<void>;
  leaveRoom(room: string): Promise<void>;
  /** Sends a groupchat message; resolves with its id (for a later correction). */
  say(room: string, text: string): Promise<string>;
  /** Sends a XEP-0308 correction of the message with id `replaceId`; resolves with the correction's own id. */
  correct(room: string, replaceId: string, text: string): Promise<string>;
  /** Connects again after a server restart and rejoins its rooms. */
  reconnect(): Promise<void>;
  /** Leaves the rooms and closes the stream; safe to call twice. */
  stop(): Promise<void>;
}

let nextId = 0;
const newId = () => `test-${process.pid}-${++nextId}`;
const bare = (jid: string) => jid.split("/")[0] ?? jid;
const resourceOf = (jid: string) => {
  const slash = jid.indexOf("/");
  return slash < 0 ? "" : jid.slice(slash + 1);
};
const textMatches = (text: string, expected: string | RegExp) =>
  typeof expected === "string" ? text.includes(expected) : expected.test(text);

function toRoomMessage(stanza: Element): RoomMessage | undefined {
  if (!stanza.is("message") || stanza.attrs.type !== "groupchat") return undefined;
  const from = String(stanza.attrs.from ?? "");
  const subject = stanza.getChild("subject")?.text();
  const body = stanza.getChild("body")?.text();
  if (body === undefined && subject === undefined) return undefined;
  const replace = stanza.getChild("replace", NS_CORRECT);
  return {
    room: bare(from),
    nick: resourceOf(from),
    text: body ?? "",
    id: stanza.attrs.id ? String(stanza.attrs.id) : undefined,
    replaceId: replace?.attrs.id ? String(replace.attrs.id) : undefined,
    subject,
    delayed: stanza.getChild("delay", NS_DELAY) !== undefined,
  };
}

/** Connects (PLAIN over loopback: SCRAM's JS PBKDF2 is slow), sends initial presence; teardown stops the user. */
export async function connectXmppUser(teardown: Teardown, options: XmppUserOptions): Promise<XmppUser> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const xmpp = client({
    service: `xmpp://${options.host}:${options.port}`,
    domain: options.domain,
    resource: options.resource ?? newId(),
    credentials: (authenticate, mechanisms) =>
      authenticate(
        { username: options.username, password: options.password },
        mechanisms.includes("PLAIN") ? "PLAIN" : (mechanisms[0] ?? "PLAIN"),
        xml("user-agent", { id: randomUUID() }),
      ),
  });
  // Tests decide when a user comes back (reconnect()).
  xmpp.reconnect.stop();
  const messages = new Inbox<RoomMessage>();
  const presences = new Inbox<{ from: string; type: string; self: boolean; error?: string }>();
  const rooms = new Map<string, { nick: string; options: JoinRoomOptions }>();

  xmpp.on("error", () => {}); // connection errors surface through start(); a restart of the server is expected
  xmpp.on("stanza", (stanza: Element) => {
    const message = toRoomMessage(stanza);
    if (message) messages.push(message);
    if (stanza.is("presence")) {
      const statuses = stanza.getChild("x", NS_MUC_USER)?.getChildren("status") ?? [];
      presences.push({
        from: String(stanza.attrs.from ?? ""),
        type: String(stanza.attrs.type ?? "available"),
        self: statuses.some((status) => status.attrs.code === "110"),
        error: stanza
          .getChild("error")
          ?.children.map((child) => (typeof child === "string" ? "" : child.name))
          .join(","),
      });
    }
  });

  const start = async () => {
    await withTimeout(xmpp.start(), timeoutMs, `XMPP user ${options.username} logging in on ${options.port}`);
    await xmpp.send(xml("presence"));
  };

  const joinRoom = async (room: string, nick: string, joinOptions: JoinRoomOptions = {}) => {
    const occupant = `${room}/${nick}`;
    const subject = messages.waitFor((m) => m.room === room && m.subject !== undefined && !m.delayed, {
      timeoutMs,
      what: `the subject of ${room} after joining`,
      from: messages.items.length,
    });
    const presence = presences.waitFor((p) => p.from === occupant && (p.self || p.type === "error"), {
      timeoutMs,
      what: `our presence in ${room}`,
      from: presences.items.length,
    });
    const history =
      joinOptions.maxStanzas === undefined ? [] : [xml("history", { maxstanzas: String(joinOptions.maxStanzas) })];
    const password = joinOptions.password === undefined ? [] : [xml("password", {}, joinOptions.password)];
    await xmpp.send(xml("presence", { to: occupant }, xml("x", { xmlns: NS_MUC }, ...history, ...password)));
    const joined = await presence;
    if (joined.type === "error") throw new Error(`could not join ${occupant}: ${joined.error}`);
    await subject;
    rooms.set(room, { nick, options: joinOptions });
  };

  const send = async (room: string, text: string, replaceId?: string) => {
    const id = newId();
    const correction = replaceId === undefined ? [] : [xml("replace", { xmlns: NS_CORRECT, id: replaceId })];
    await xmpp.send(xml("message", { to: room, type: "groupchat", id }, xml("body", {}, text), ...correction));
    return id;
  };

  const user: XmppUser = {
    xmpp,
    get jid() {
      return xmpp.jid?.toString() ?? "";
    },
    messages,
    waitFor: (matches, ms = timeoutMs) => messages.waitFor(matches, { timeoutMs: ms, what: "a groupchat message" }),
    waitForMessage: (room, text, ms = timeoutMs) =>
      messages.waitFor(
        (m) => m.room === room && !m.delayed && m.nick !== rooms.get(room)?.nick && textMatches(m.text, text),
        { timeoutMs: ms, what: `a message ${text} in ${room}` },
      ),
    joinRoom,
    async leaveRoom(room) {
      const joined = rooms.get(room);
      if (!joined) return;
      rooms.delete(room);
      await xmpp.send(xml("presence", { to: `${room}/${joined.nick}`, type: "unavailable" }));
    },
    say: (room, text) => send(room, text),
    correct: (room, replaceId, text) => send(room, text, replaceId),
    async reconnect() {
      // After the server went away the client is "disconnect"ed, not offline: stop() brings it to "offline".
      if (xmpp.status !== "offline") await withTimeout(xmpp.stop(), timeoutMs, "XMPP stop before reconnect");
      await start();
      for (const [room, joined] of rooms) await joinRoom(room, joined.nick, joined.options);
    },
    async stop() {
      if (xmpp.status === "offline") return;
      await withTimeout(xmpp.stop(), timeoutMs, `XMPP user ${options.username} stopping`);
    },
  };

  teardown.after(() => user.stop());
  await start();
  return user;
}
