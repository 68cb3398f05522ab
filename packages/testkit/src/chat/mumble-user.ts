// A human on Mumble for tests: @tf2pickup-org/mumble-client (a Mumble client independent of the bridge's) that
// moves into a channel, says things (HTML, as Mumble's own client sends them) and records the text messages and
// channel joins/leaves it sees. Logged in as SuperUser it can also create channels.
import { Client, type PacketType } from "@tf2pickup-org/mumble-client";
import { TextMessage } from "@tf2pickup-org/mumble-protocol";
import type { Teardown } from "../process.ts";
import { withTimeout } from "../wait.ts";
import { Inbox } from "./inbox.ts";

export interface MumbleText {
  /** The sender's name ("" when the server did not tell who). */
  from: string;
  channelIds: number[];
  /** The message as sent: HTML. */
  html: string;
}

export interface MumbleUserOptions {
  host: string;
  port: number;
  username: string;
  password?: string;
  /** Bound on connecting and on each command; default 10 s. */
  timeoutMs?: number;
}

export interface MumbleUser {
  readonly client: Client;
  readonly texts: Inbox<MumbleText>;
  /** Names of the users in channel `channelId` now. */
  usersIn(channelId: number): string[];
  /** The id of a channel under the root, created when missing (needs SuperUser). */
  ensureChannel(name: string): Promise<number>;
  moveTo(channelId: number): Promise<void>;
  /** Sends HTML to a channel as Mumble's client does. */
  say(channelId: number, html: string): Promise<void>;
  /** Resolves once a user named `name` is in channel `channelId`. */
  waitForUser(channelId: number, name: string, timeoutMs?: number): Promise<void>;
  /** Disconnects; safe to call twice. */
  stop(): void;
}

const isTextMessage = (packet: PacketType): packet is PacketType & { payload: TextMessage } =>
  packet.typeName === TextMessage.typeName;

export async function connectMumbleUser(teardown: Teardown, options: MumbleUserOptions): Promise<MumbleUser> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const client = new Client({
    host: options.host,
    port: options.port,
    username: options.username,
    password: options.password,
    rejectUnauthorized: false,
    clientName: "switchboard testkit",
  });
  // The library reports ping failures after a disconnect as "error" events; an unhandled one would throw.
  client.on("error", () => {});
  await withTimeout(client.connect(), timeoutMs, `Mumble user ${options.username} connecting`);
  const texts = new Inbox<MumbleText>();
  client.socket?.packet.subscribe((packet) => {
    if (!isTextMessage(packet)) return;
    const message = packet.payload;
    const from = message.actor === undefined ? "" : (client.users.bySession(message.actor)?.name ?? "");
    texts.push({ from, channelIds: [...message.channelId], html: message.message });
  });
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    client.disconnect();
  };
  teardown.after(stop);

  const usersIn = (channelId: number) =>
    client.users.findAll((user) => user.channelId === channelId).map((user) => user.name ?? "");

  return {
    client,
    texts,
    usersIn,
    async ensureChannel(name) {
      const existing = client.channels.find((channel) => channel.name === name && channel.parent === 0);
      if (existing !== undefined) return existing.id;
      const root = client.channels.root;
      if (root === undefined) throw new Error("the server sent no root channel");
      const created = await withTimeout(root.createSubChannel(name), timeoutMs, `creating channel ${name}`);
      return created.id;
    },
    async moveTo(channelId) {
      await withTimeout(client.self?.moveToChannel(channelId) ?? Promise.reject(new Error("not connected")), timeoutMs);
    },
    async say(channelId, html) {
      const socket = client.socket;
      if (socket === undefined) throw new Error(`Mumble user ${options.username} is not connected`);
      await socket.send(TextMessage, TextMessage.create({ channelId: [channelId], message: html }));
    },
    waitForUser(channelId, name, wait = timeoutMs) {
      if (usersIn(channelId).includes(name)) return Promise.resolve();
      let check = () => {};
      const arrived = new Promise<void>((resolve) => {
        check = () => {
          if (usersIn(channelId).includes(name)) resolve();
        };
        client.on("userCreate", check);
        client.on("userUpdate", check);
      });
      return withTimeout(arrived, wait, `${name} in channel ${channelId}`).finally(() => {
        client.off("userCreate", check);
        client.off("userUpdate", check);
      });
    },
    stop,
  };
}
