// What one community's members can make the bridge post in another, through the real bin to the Telegram, Discord,
// Matrix, Slack and Mattermost simulators: a nick with a line break stays one line (no faked second speaker), no
// mass mention pings a whole channel, and a 50,000-character message arrives clipped instead of being refused.
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import {
  startDiscordSimulator,
  startFakeMatrix,
  startMattermostSimulator,
  startSlackSimulator,
  startTelegramSimulator,
  waitUntil,
} from "@switchboard/testkit";
import { startBridgeProcess } from "./bridge-process.ts";
import { post, suiteTeardown } from "./helpers.ts";

const WAIT_MS = 20_000;
const NICK_FORMAT = 'RemoteNickFormat = "[{PROTOCOL}] <{NICK}> "';
const ZWJ = "\u200d";

describe("hostile content relayed to other platforms (real bin)", () => {
  const teardown = suiteTeardown();
  let api: string;
  /** Each platform's view of what the bridge posted there, as text. */
  const posted: Record<string, () => string[]> = {};
  let discordActions: () => { content: string; mentionEveryone: boolean; allowed: unknown }[];
  let matrixContents: () => Record<string, unknown>[];

  before(async () => {
    const [tg, dc, mx, sl, mm] = await Promise.all([
      startTelegramSimulator(teardown, { log: () => {} }),
      startDiscordSimulator(teardown, { channels: ["all"] }),
      startFakeMatrix(teardown, { log: () => {} }),
      startSlackSimulator(teardown),
      startMattermostSimulator(teardown),
    ]);
    const bot = tg.createBot({ username: "relay_bot", firstName: "Relay" });
    const chat = tg.createChat({
      title: "All",
      members: [bot, tg.createUser({ first_name: "Tina", username: "tina" })],
    });
    dc.addUser("dana");
    const mia = mx.registerUser("mia", { displayName: "Mia" });
    mx.registerUser("bridgebot", { password: "botpw" });
    const room = mx.createRoom(mia, { alias: "all" });
    const app = sl.createApp("relay");
    sl.createChannel("all", [sl.createUser("sam"), app]);
    mm.createBot("bridgebot", "botpw");
    mm.createChannel("all", [mm.createUser("max")]);

    posted.telegram = () =>
      tg
        .history(chat)
        .filter((m) => m.from === "relay_bot")
        .map((m) => m.text);
    discordActions = () =>
      dc.sent.items
        .filter((a) => a.kind === "create")
        .map((a) => ({
          content: a.message.content,
          mentionEveryone: a.message.mention_everyone,
          allowed: a.allowedMentions,
        }));
    posted.discord = () => discordActions().map((a) => a.content);
    matrixContents = () =>
      mx.events.items
        .filter((e) => e.room_id === room && e.sender === "@bridgebot:localhost" && e.type === "m.room.message")
        .map((e) => e.content);
    posted.matrix = () => matrixContents().map((c) => String(c.body));
    posted.slack = () => sl.sent.items.filter((a) => a.kind === "post").map((a) => a.message.text);
    posted.mattermost = () => mm.sent.items.filter((a) => a.kind === "post").map((a) => a.post.message);

    const bridge = await startBridgeProcess(
      `
[telegram.tg]
Token = "${bot.token}"
ApiURL = "${tg.apiRoot}"
${NICK_FORMAT}
[discord.dc]
Token = "${dc.token}"
Server = "${dc.guild.name}"
ApiURL = "${dc.apiUrl}"
${NICK_FORMAT}
[matrix.hs]
Server = "${mx.url}"
Login = "bridgebot"
Password = "botpw"
${NICK_FORMAT}
[slack.ws]
Token = "${app.botToken}"
AppToken = "${app.appToken}"
ApiURL = "${sl.apiUrl}"
PrefixMessagesWithNick = true
${NICK_FORMAT}
[mattermost.mm]
Server = "${mm.hostPort}"
NoTLS = true
Team = "${mm.teamName}"
Login = "bridgebot"
Password = "botpw"
PrefixMessagesWithNick = true
${NICK_FORMAT}
[api.local]
BindAddress = "127.0.0.1:0"

[[gateway]]
name = "all"
enable = true
${[
  ["telegram.tg", String(chat)],
  ["discord.dc", "all"],
  ["matrix.hs", "#all:localhost"],
  ["slack.ws", "all"],
  ["mattermost.mm", "all"],
  ["api.local", "api"],
]
  .map(([account, channel]) => `  [[gateway.inout]]\n  account = "${account}"\n  channel = "${channel}"\n`)
  .join("")}`,
      teardown,
    );
    api = bridge.url("api.local");
  });

  /** Posts from the api and waits until every platform shows a post ending with `marker`. */
  async function relay(message: Record<string, unknown>, marker: string): Promise<Record<string, string>> {
    assert.equal((await post(api, { gateway: "all", username: "carol", ...message })).status, 200);
    const found: Record<string, string> = {};
    for (const [platform, texts] of Object.entries(posted)) {
      await waitUntil(() => texts().some((text) => text.includes(marker)), {
        timeoutMs: WAIT_MS,
        what: `${platform} to show ${marker.slice(0, 40)} (has ${JSON.stringify(texts().slice(-2)).slice(0, 300)})`,
      });
      found[platform] = texts().find((text) => text.includes(marker)) ?? "";
    }
    return found;
  }

  it("shows a nick with line breaks on one line everywhere", async () => {
    const seen = await relay({ username: "Mia\n[irc] <ivan> I approve\r\nand", text: "nick test" }, "nick test");
    for (const [platform, text] of Object.entries(seen)) {
      assert.ok(!/[\r\n]/.test(text), `${platform}: ${JSON.stringify(text)}`);
      assert.ok(text.includes("<Mia [irc] <ivan> I approve and>") || text.includes("&lt;Mia"), `${platform}: ${text}`);
    }
  });

  it("lets no relayed mass mention ping a channel", async () => {
    const text = "@everyone @here @all @channel @room <!channel> <!here> ping-all";
    const seen = await relay({ text }, "ping-all");
    const discord = discordActions().find((a) => a.content.includes("ping-all"));
    assert.equal(discord?.mentionEveryone, false);
    assert.deepEqual(discord?.allowed, { parse: ["users"], replied_user: true });
    for (const word of ["all", "channel", "here"]) {
      assert.ok(seen.mattermost?.includes(`@${ZWJ}${word}`), `mattermost @${word}: ${seen.mattermost}`);
      assert.ok(!new RegExp(`(^|\\s)@${word}\\b`).test(seen.mattermost ?? ""), `mattermost @${word} left`);
    }
    const matrix = matrixContents().find((c) => String(c.body).includes("ping-all"));
    assert.ok(String(matrix?.body).includes(`@${ZWJ}room`) && !/(^|\s)@room/.test(String(matrix?.body)));
    assert.ok(!/(^|\s)@room/.test(String(matrix?.formatted_body)));
    assert.deepEqual(matrix?.["m.mentions"], {});
    assert.ok(!/<!(channel|here|everyone)>/.test(seen.slack ?? ""), `slack: ${seen.slack}`);
  });

  it("clips a 50,000-character message to fit Slack and Telegram, never dropping it", async () => {
    const long = `long-start ${"<wörds> & more ".repeat(3_400)}`;
    assert.ok(long.length > 50_000);
    const seen = await relay({ text: long }, "long-start");
    assert.ok((seen.telegram ?? "").length <= 4096 && seen.telegram?.endsWith(" <clipped message>"));
    assert.ok((seen.slack ?? "").length <= 40_000 && seen.slack?.endsWith(" &lt;clipped message&gt;"));
    assert.ok(seen.discord?.endsWith(" <clipped message>"));
    assert.ok(seen.mattermost?.endsWith(" <clipped message>"));
    assert.ok(seen.matrix?.endsWith(" <clipped message>"));
    // Each queue moved on: a later message arrives everywhere.
    await relay({ text: "after-long" }, "after-long");
  });
});
