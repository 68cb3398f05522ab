// Shared by the xmpp account's tests: a bridge config with an xmpp account on a test Prosody, XMPP humans, and a
// bounded wait on what an api stream client received.
import { connectXmppUser, type ProsodyServer, type Teardown, waitUntil, type XmppUser } from "@switchboard/testkit";
import type { Message } from "../src/message.ts";
import type { StreamClient } from "./helpers.ts";

export const USERS = [
  { username: "bridge", password: "bridgepw" },
  { username: "alice", password: "alicepw" },
  { username: "bob", password: "bobpw" },
];

/** The [xmpp.chat] section for the test server; `extra` lines are appended (core keys...). */
export function xmppAccount(server: ProsodyServer, extra = ""): string {
  return `
[xmpp.chat]
Server = "${server.host}:${server.port}"
Jid = "bridge@${server.domain}"
Password = "bridgepw"
Muc = "${server.mucDomain}"
Nick = "Bridge"
NoTLS = true
RemoteNickFormat = "[{PROTOCOL}] <{NICK}> "
${extra}
`;
}

export const API_ACCOUNT = `
[api.local]
BindAddress = "127.0.0.1:0"
RemoteNickFormat = "[{PROTOCOL}] {NICK}"
`;

/** A gateway of the xmpp rooms given and the api account. */
export function gateway(name: string, rooms: string[]): string {
  const entries = rooms.map((room) => `[[gateway.inout]]\naccount = "xmpp.chat"\nchannel = "${room}"\n`).join("");
  return `
[[gateway]]
name = "${name}"
enable = true
${entries}
[[gateway.inout]]
account = "api.local"
channel = "api"
`;
}

export function human(teardown: Teardown, server: ProsodyServer, username: "alice" | "bob"): Promise<XmppUser> {
  return connectXmppUser(teardown, {
    host: server.host,
    port: server.port,
    domain: server.domain,
    username,
    password: `${username}pw`,
  });
}

/** The first message the stream client received (or receives within the bound) that matches. */
export async function streamed(
  stream: StreamClient,
  matches: (message: Message) => boolean,
  what: string,
  timeoutMs = 10_000,
): Promise<Message> {
  return waitUntil(() => stream.items.find(matches), { timeoutMs, intervalMs: 5, what });
}
