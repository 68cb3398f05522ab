// Hostile names and sizes through the real bin to a real ngIRCd: a nick (or a file's comment) holding CR, LF or NUL
// never becomes a second IRC command, delivery goes on after it, a RunCommand with a line break is refused by the
// IRC writer itself, and a message with many files takes at most MessageMaxLines lines.
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { connectIrcUser, type IrcEvent, type IrcUser, type NgircdServer, startNgircd } from "@switchboard/testkit";
import { type BridgeProcess, startBridgeProcess } from "./bridge-process.ts";
import { post, suiteTeardown } from "./helpers.ts";

describe("irc account against hostile names and sizes (real bin, ngIRCd)", () => {
  const teardown = suiteTeardown();
  let server: NgircdServer;
  let bridge: BridgeProcess;
  let api: string;
  let alice: IrcUser;

  /** What the bridge's bot did in #all since `from`: its messages, topic changes and quits. */
  const botEvents = (from: number): IrcEvent[] =>
    alice.events.items
      .slice(from)
      .filter((e) => ("nick" in e && e.nick === "bridgebot") || (e.type === "topic" && e.nick !== undefined));

  before(async () => {
    server = await startNgircd(teardown);
    alice = await connectIrcUser(teardown, { ...server, nick: "alice", channels: ["#all"] });
    bridge = await startBridgeProcess(
      `
[irc.net]
Server = "127.0.0.1:${server.port}"
Nick = "bridgebot"
RemoteNickFormat = "[{PROTOCOL}] <{NICK}> "
MessageDelay = 0
MessageMaxLines = 8
# A line break in a raw command must not reach the server as a second command (QUIT here).
RunCommands = ["MODE {BOTNICK} +i\\r\\nQUIT :tricked"]

[api.local]
BindAddress = "127.0.0.1:0"

[[gateway]]
name = "all"
enable = true
  [[gateway.inout]]
  account = "irc.net"
  channel = "#all"
  [[gateway.inout]]
  account = "api.local"
  channel = "api"
`,
      teardown,
    );
    api = bridge.url("api.local");
    // The bot is in the channel once a relayed line arrives.
    await post(api, { text: "ready", username: "probe", gateway: "all" });
    await alice.waitForMessage("#all", "<probe> ready", 20_000);
  });

  it("refuses a raw line holding a line break, and stays connected", async () => {
    await bridge.process.waitForLine("refused to write an IRC line holding CR, LF or NUL");
    assert.doesNotMatch(bridge.process.output, /tricked/);
  });

  it("a nick with CR LF yields one line from the bot, no second command, no topic change", async () => {
    const from = alice.events.items.length;
    const nick = "Mia\r\nPRIVMSG #all :[irc] <ivan> I approve\r\nTOPIC #all :owned";
    assert.equal((await post(api, { text: "hello", username: nick, gateway: "all" })).status, 200);
    await post(api, { text: "after mia", username: "bob", gateway: "all" });
    await alice.waitForMessage("#all", "<bob> after mia");
    const seen = botEvents(from).map((e) => ("text" in e ? e.text : `${e.type}`));
    assert.deepEqual(seen, [
      "[api] <Mia PRIVMSG #all :[irc] <ivan> I approve TOPIC #all :owned> hello",
      "[api] <bob> after mia",
    ]);
  });

  it("a nick with QUIT in it does not make the bot quit; one with NUL does not stop later deliveries", async () => {
    const from = alice.events.items.length;
    await post(api, { text: "one", username: "q\r\nQUIT :bye", gateway: "all" });
    await post(api, { text: "two", username: "nu\0ll", gateway: "all" });
    await post(api, { text: "three", username: "bob", gateway: "all" });
    await alice.waitForMessage("#all", "<bob> three");
    const seen = botEvents(from).map((e) => ("text" in e ? e.text : e.type));
    assert.deepEqual(seen, ["[api] <q QUIT :bye> one", "[api] <null> two", "[api] <bob> three"]);
  });

  it("a file comment with a line break stays on its line", async () => {
    const from = alice.events.items.length;
    const file = { Name: "a.png", URL: "https://files.example/a.png", Comment: "see\r\nQUIT :bye" };
    await post(api, { text: "", username: "bob", gateway: "all", Extra: { file: [file] } });
    await post(api, { text: "after the file", username: "bob", gateway: "all" });
    await alice.waitForMessage("#all", "after the file");
    const seen = botEvents(from).map((e) => ("text" in e ? e.text : e.type));
    assert.deepEqual(seen, ["[api] <bob> see QUIT :bye : https://files.example/a.png", "[api] <bob> after the file"]);
  });

  it("a message with 100 files (the api's most) takes MessageMaxLines lines, the last counting the rest", async () => {
    const from = alice.events.items.length;
    const files = Array.from({ length: 100 }, (_, i) => ({ Name: `${i}.png`, URL: `https://files.example/${i}` }));
    assert.equal(
      (await post(api, { text: "album", username: "bob", gateway: "all", Extra: { file: files } })).status,
      200,
    );
    await post(api, { text: "after the album", username: "bob", gateway: "all" });
    await alice.waitForMessage("#all", "after the album");
    const seen = botEvents(from).map((e) => ("text" in e ? e.text : e.type));
    assert.equal(seen.length, 9);
    assert.equal(seen[0], "[api] <bob> album");
    assert.equal(seen[7], "[api] <bob> (+94 more files)");
    assert.equal(seen[8], "[api] <bob> after the album");
  });
});
