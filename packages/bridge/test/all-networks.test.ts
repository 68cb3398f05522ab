// One gateway joining every network the bridge speaks: IRC (real ngIRCd), XMPP (real Prosody), Telegram, Discord,
// Matrix, Slack and Mattermost (their simulators, driven by the real client libraries), Twitch chat (an irc account
// on the Twitch IRC simulator) and an api account. A human on
// each network says one line; every other network shows it exactly once, formatted by its RemoteNickFormat, and no
// network gets its own line back.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import {
  connectIrcUser,
  connectMumbleUser,
  startDiscordSimulator,
  startFakeMatrix,
  startMattermostSimulator,
  startMurmur,
  startNgircd,
  startProsody,
  startRocketChatSimulator,
  startSlackSimulator,
  startTalkSimulator,
  startTeamsSimulator,
  startTelegramSimulator,
  startTwitchIrc,
  startZulipSimulator,
  type Teardown,
  waitUntil,
} from "@switchboard/testkit";
import { htmlToText as teamsHtmlToText } from "../src/accounts/msteams/html.ts";
import { htmlToText } from "../src/accounts/mumble/html-text.ts";
import { openStream, post, startBridge, suiteTeardown } from "./helpers.ts";
import { human, USERS } from "./xmpp-fixtures.ts";

const WAIT_MS = 20_000;

/** One network of the gateway, seen by the one human on it. */
interface Network {
  /** The protocol's name, as {PROTOCOL} writes it. */
  protocol: string;
  /** The network's name in the lines it says, where another network has the same protocol (Twitch is irc). */
  label?: string;
  /** The human's name as the other networks show it. */
  nick: string;
  /** Its account section(s) in the bridge config. */
  toml: string;
  account: string;
  channel: string;
  /** The human says `text` there. */
  say(text: string): Promise<void> | void;
  /** Every text the bridge posted there so far (what the human sees from the bridge). */
  bridged(): string[];
}

const NICK_FORMAT = 'RemoteNickFormat = "[{PROTOCOL}] <{NICK}> "';

async function irc(teardown: Teardown): Promise<Network> {
  const server = await startNgircd(teardown);
  const ivan = await connectIrcUser(teardown, { ...server, nick: "ivan", channels: ["#all"] });
  return {
    protocol: "irc",
    nick: "ivan",
    toml: `[irc.net]\nServer = "127.0.0.1:${server.port}"\nNick = "bridgebot"\nMessageDelay = 0\n${NICK_FORMAT}\n`,
    account: "irc.net",
    channel: "#all",
    say: (text) => ivan.say("#all", text),
    bridged: () => ivan.events.items.flatMap((e) => (e.type === "privmsg" && e.nick === "bridgebot" ? [e.text] : [])),
  };
}

async function twitch(teardown: Teardown): Promise<Network> {
  const server = await startTwitchIrc(teardown);
  return {
    protocol: "irc",
    label: "twitch",
    nick: "Tia_T",
    toml: `[irc.twitch]\nServer = "127.0.0.1:${server.port}"\nTwitch = true\nNick = "bridgebot"\nPassword = "oauth:token"\nMessageDelay = 0\n${NICK_FORMAT}\n`,
    account: "irc.twitch",
    channel: "#all",
    say: (text) => void server.say("#all", { login: "tia", displayName: "Tia_T" }, text),
    bridged: () => server.sent.items.flatMap((m) => (m.login === "bridgebot" && m.channel === "#all" ? [m.text] : [])),
  };
}

async function xmpp(teardown: Teardown): Promise<Network> {
  const server = await startProsody(teardown, { users: USERS, mucHistory: 0 });
  const room = `all@${server.mucDomain}`;
  const alice = await human(teardown, server, "alice");
  await alice.joinRoom(room, "Alice");
  return {
    protocol: "xmpp",
    nick: "Alice",
    toml: `[xmpp.chat]\nServer = "127.0.0.1:${server.port}"\nJid = "bridge@${server.domain}"\nPassword = "bridgepw"\nMuc = "${server.mucDomain}"\nNick = "Bridge"\nNoTLS = true\n${NICK_FORMAT}\n`,
    account: "xmpp.chat",
    channel: "all",
    say: async (text) => void (await alice.say(room, text)),
    bridged: () => alice.messages.items.filter((m) => m.room === room && m.nick === "Bridge").map((m) => m.text),
  };
}

async function telegram(teardown: Teardown): Promise<Network> {
  const tg = await startTelegramSimulator(teardown, { log: () => {} });
  const bot = tg.createBot({ username: "relay_bot", firstName: "Relay" });
  const tina = tg.createUser({ first_name: "Tina", username: "tina" });
  const chat = tg.createChat({ title: "All", members: [bot, tina] });
  return {
    protocol: "telegram",
    nick: "tina",
    toml: `[telegram.tg]\nToken = "${bot.token}"\nApiURL = "${tg.apiRoot}"\n${NICK_FORMAT}\n`,
    account: "telegram.tg",
    channel: String(chat),
    say: (text) => void tina.say(chat, text),
    bridged: () =>
      tg
        .history(chat)
        .filter((m) => m.from === "relay_bot")
        .map((m) => m.text),
  };
}

async function discord(teardown: Teardown): Promise<Network> {
  const simulator = await startDiscordSimulator(teardown, { channels: ["all"] });
  const dana = simulator.addUser("dana");
  return {
    protocol: "discord",
    nick: "dana",
    toml: `[discord.dc]\nToken = "${simulator.token}"\nServer = "${simulator.guild.name}"\nApiURL = "${simulator.apiUrl}"\n${NICK_FORMAT}\n`,
    account: "discord.dc",
    channel: "all",
    say: (text) => void dana.say("all", text),
    bridged: () => simulator.sent.items.filter((a) => a.kind === "create").map((a) => a.message.content),
  };
}

async function matrix(teardown: Teardown): Promise<Network> {
  const fake = await startFakeMatrix(teardown, { log: () => {} });
  const mia = fake.registerUser("mia", { displayName: "Mia" });
  fake.registerUser("bridgebot", { password: "botpw" });
  const room = fake.createRoom(mia, { alias: "all" });
  return {
    protocol: "matrix",
    nick: "Mia",
    toml: `[matrix.hs]\nServer = "${fake.url}"\nLogin = "bridgebot"\nPassword = "botpw"\n${NICK_FORMAT}\n`,
    account: "matrix.hs",
    channel: "#all:localhost",
    say: (text) => void mia.say(room, text),
    bridged: () =>
      fake.events.items
        .filter((e) => e.room_id === room && e.sender === "@bridgebot:localhost" && e.type === "m.room.message")
        .map((e) => String(e.content.body ?? "")),
  };
}

async function slack(teardown: Teardown): Promise<Network> {
  const simulator = await startSlackSimulator(teardown);
  const app = simulator.createApp("relay");
  const sam = simulator.createUser("sam");
  const channel = simulator.createChannel("all", [sam, app]);
  return {
    protocol: "slack",
    nick: "sam",
    toml: `[slack.ws]\nToken = "${app.botToken}"\nAppToken = "${app.appToken}"\nApiURL = "${simulator.apiUrl}"\n${NICK_FORMAT}\nPrefixMessagesWithNick = true\n`,
    account: "slack.ws",
    channel: "all",
    say: (text) => void sam.say(channel, text),
    // What Slack shows of the bridge's posts (it escapes <, > and & in text).
    bridged: () =>
      simulator.sent.items
        .filter((a) => a.kind === "post")
        .map((a) => a.message.text.replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&amp;", "&")),
  };
}

async function mattermost(teardown: Teardown): Promise<Network> {
  const simulator = await startMattermostSimulator(teardown);
  simulator.createBot("bridgebot", "botpw");
  const max = simulator.createUser("max");
  simulator.createChannel("all", [max]);
  return {
    protocol: "mattermost",
    nick: "max",
    toml: `[mattermost.mm]\nServer = "${simulator.hostPort}"\nNoTLS = true\nTeam = "${simulator.teamName}"\nLogin = "bridgebot"\nPassword = "botpw"\n${NICK_FORMAT}\nPrefixMessagesWithNick = true\n`,
    account: "mattermost.mm",
    channel: "all",
    say: (text) => void max.say("all", text),
    bridged: () => simulator.sent.items.filter((a) => a.kind === "post").map((a) => a.post.message),
  };
}

async function mumble(teardown: Teardown): Promise<Network> {
  const server = await startMurmur(teardown);
  const at = { host: server.host, port: server.port };
  const admin = await connectMumbleUser(teardown, { ...at, username: "SuperUser", password: server.superUserPassword });
  const channel = await admin.ensureChannel("all");
  admin.stop();
  const mia = await connectMumbleUser(teardown, { ...at, username: "mia" });
  await mia.moveTo(channel);
  return {
    protocol: "mumble",
    nick: "mia",
    toml: `[mumble.net]\nServer = "127.0.0.1:${server.port}"\nNick = "bridgebot"\nSkipTLSVerify = true\nMessageDelay = 0\n${NICK_FORMAT}\n`,
    account: "mumble.net",
    channel: String(channel),
    say: (text) => mia.say(channel, text),
    bridged: () => mia.texts.items.flatMap((t) => (t.from === "bridgebot" ? [htmlToText(t.html)] : [])),
  };
}

async function zulip(teardown: Teardown): Promise<Network> {
  const simulator = await startZulipSimulator(teardown);
  const bot = simulator.createBot("bridge-bot@example.com", "Bridge");
  const zoe = simulator.createUser("zoe@example.com", "zoe");
  simulator.createStream("all", [zoe.user]);
  return {
    protocol: "zulip",
    nick: "zoe",
    toml: `[zulip.zu]\nServer = "${simulator.url}"\nLogin = "${bot.email}"\nToken = "${bot.api_key}"\n${NICK_FORMAT}\n`,
    account: "zulip.zu",
    channel: "all/topic:chat",
    say: (text) => void zoe.say("all", "chat", text),
    bridged: () => simulator.sent.items.filter((a) => a.kind === "post").map((a) => a.message.content),
  };
}

async function rocketchat(teardown: Teardown): Promise<Network> {
  const simulator = await startRocketChatSimulator(teardown);
  simulator.createBot("bridgebot", "botpw");
  const rita = simulator.createUser("rita");
  simulator.createRoom("all", [rita.user]);
  return {
    protocol: "rocketchat",
    nick: "rita",
    toml: `[rocketchat.rc]\nServer = "${simulator.url}"\nLogin = "bridgebot"\nPassword = "botpw"\n${NICK_FORMAT}\nPrefixMessagesWithNick = true\n`,
    account: "rocketchat.rc",
    channel: "#all",
    say: (text) => void rita.say("all", text),
    bridged: () => simulator.sent.items.filter((a) => a.kind === "post").map((a) => a.message.msg),
  };
}

async function nctalk(teardown: Teardown): Promise<Network> {
  const simulator = await startTalkSimulator(teardown);
  const bot = simulator.createBot("bridgebot", "bot-app-password");
  const nina = simulator.createUser("nina");
  const room = simulator.createRoom("All", [nina, bot]);
  return {
    protocol: "nctalk",
    nick: "nina",
    toml: `[nctalk.cloud]\nServer = "${simulator.url}"\nLogin = "bridgebot"\nPassword = "bot-app-password"\n${NICK_FORMAT}\n`,
    account: "nctalk.cloud",
    channel: room,
    say: (text) => void nina.say(room, text),
    bridged: () => simulator.sent.items.filter((a) => a.kind === "post").map((a) => a.message.message),
  };
}

async function msteams(teardown: Teardown): Promise<Network> {
  const simulator = await startTeamsSimulator(teardown);
  const bridgeUser = simulator.createBridgeUser("Bridge");
  // The person who reads the sign-in line and enters the code.
  simulator.identity.onDeviceCode = (code) => simulator.identity.approve(code, bridgeUser.id);
  const tom = simulator.createUser("tom");
  const channel = simulator.createChannel("All");
  const dir = mkdtempSync(join(tmpdir(), "all-networks-teams-"));
  teardown.after(() => rmSync(dir, { recursive: true, force: true }));
  return {
    protocol: "msteams",
    nick: "tom",
    toml: `[msteams.work]\nTenantID = "${simulator.tenantId}"\nClientID = "${simulator.clientId}"\nTeamID = "${simulator.teamId}"\nLoginURL = "${simulator.url}"\nGraphURL = "${simulator.url}"\nPollInterval = 200\nSessionFile = "${join(dir, "session.json")}"\n${NICK_FORMAT}\n`,
    account: "msteams.work",
    channel,
    say: (text) => void tom.say(channel, `<p>${text}</p>`),
    bridged: () =>
      simulator.sent.items.filter((a) => a.kind === "post").map((a) => teamsHtmlToText(a.message.body.content)),
  };
}

function config(networks: Network[]): string {
  const entries = networks.map((n) => `  [[gateway.inout]]\n  account = "${n.account}"\n  channel = "${n.channel}"\n`);
  return `${networks.map((n) => n.toml).join("\n")}
[api.local]
BindAddress = "127.0.0.1:0"
${NICK_FORMAT}

[[gateway]]
name = "all"
enable = true
${entries.join("")}  [[gateway.inout]]
  account = "api.local"
  channel = "api"
`;
}

describe("one gateway across every network", () => {
  const teardown = suiteTeardown();

  it("relays a line from each network to every other exactly once", async () => {
    // Every start settles before a failure is thrown, so none is still starting when the suite's teardown runs.
    const starts = await Promise.allSettled(
      [irc, twitch, xmpp, telegram, discord, matrix, slack, mattermost, mumble, zulip, rocketchat, nctalk, msteams].map(
        (start) => start(teardown),
      ),
    );
    const networks = starts.map((start) => {
      if (start.status === "rejected") throw start.reason;
      return start.value;
    });
    const bridge = await startBridge(config(networks), teardown);
    const apiUrl = bridge.url("api.local");
    const stream = await openStream(apiUrl);
    teardown.after(() => stream.close());
    const apiNetwork: Network = {
      protocol: "api",
      nick: "carol",
      toml: "",
      account: "api.local",
      channel: "api",
      say: async (text) => {
        assert.equal((await post(apiUrl, { text, username: "carol", gateway: "all" })).status, 200);
      },
      // The stream opens with a greeting (an empty message).
      bridged: () => stream.items.slice(1).map((m) => `${m.username}${m.text}`),
    };
    const everyone = [...networks, apiNetwork];

    const said = (from: Network) => `hello from ${from.label ?? from.protocol}`;
    for (const from of everyone) await from.say(said(from));
    for (const to of everyone) {
      const expected = everyone.filter((from) => from !== to).map(said);
      await waitUntil(() => expected.every((text) => to.bridged().some((line) => line.endsWith(text))), {
        timeoutMs: WAIT_MS,
        what: `${to.label ?? to.protocol} to show every other network's line (has: ${JSON.stringify(to.bridged())})`,
      });
    }
    // A last line through every network's queue: anything duplicated would have arrived before it.
    await apiNetwork.say("sentinel");
    for (const to of networks) {
      await waitUntil(() => to.bridged().some((line) => line.endsWith("sentinel")), {
        timeoutMs: WAIT_MS,
        what: `the sentinel on ${to.protocol}`,
      });
    }

    for (const to of everyone) {
      const lines = to.bridged();
      for (const from of everyone) {
        const text = said(from);
        const count = lines.filter((line) => line.endsWith(text)).length;
        assert.equal(count, from === to ? 0 : 1, `${to.protocol} shows "${text}" ${from === to ? "never" : "once"}`);
        if (from !== to) {
          const formatted = `[${from.protocol}] <${from.nick}> ${text}`;
          assert.ok(lines.includes(formatted), `${to.protocol} shows ${formatted}: ${JSON.stringify(lines)}`);
        }
      }
    }
  });
});
