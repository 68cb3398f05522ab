// Routing over real HTTP: several api accounts on several gateways; POST on one, read from the others.
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { KEYS, post, type RunningBridge, readMessages, startBridge, suiteTeardown } from "./helpers.ts";

const CONFIG = `
[general]
RemoteNickFormat = "GEN<{NICK}>"

[api.a]
BindAddress = "127.0.0.1:0"
Label = "LBL-A"
ReplaceNicks = [["x", "y"]]
ReplaceMessages = [["cat", "dog"], ["x", "xx"]]
IgnoreNicks = "spammer ^evil"
IgnoreMessages = "^~~ badword"
ExtractNicks = [["^relaybot$", "^<(\\\\w+)> "]]

[API.B]
bindaddress = "127.0.0.1:0"
Buffer = 100
RemoteNickFormat = "[{PROTOCOL}/{BRIDGE}/{GATEWAY}/{LABEL}/{CHANNEL}/{USERID}] <{NICK}> <{NOPINGNICK}>"
ShowJoinPart = true
ShowTopicChange = true

[api.c]
BindAddress = "127.0.0.1:0"
StripNick = true

[api.d]
BindAddress = "127.0.0.1:0"
RemoteNickFormat = "{NICK}"

[api.e]
BindAddress = "127.0.0.1:0"
RemoteNickFormat = "E:{NICK}"

[[gateway]]
name = "gw1"
enable = true
  [[gateway.inout]]
  account = "api.a"
  channel = "room-a"
  [[gateway.inout]]
  account = "api.b"
  channel = "room-b"
  [[gateway.out]]
  account = "api.c"
  channel = "room-c"
  [[gateway.in]]
  account = "api.d"
  channel = "room-d"

[[gateway]]
name = "gw2"
enable = true
  [[gateway.inout]]
  account = "api.a"
  channel = "room-a2"
  [[gateway.inout]]
  account = "api.e"
  channel = "room-e"

[[gateway]]
name = "disabled"
enable = false
  [[gateway.inout]]
  account = "api.e"
`;

describe("routing between api accounts", () => {
  let run: RunningBridge;
  const teardown = suiteTeardown();
  const url = (account: string) => run.url(account);
  const drainAll = () => Promise.all(["a", "b", "c", "d", "e"].map((n) => readMessages(url(`api.${n}`))));

  before(async () => {
    run = await startBridge(CONFIG, teardown);
  });

  it("answers a POST with the resulting message: submitted fields, the account's channel on that gateway", async () => {
    await drainAll();
    const answer = await post(url("api.a"), { text: "hello world", username: "alice", gateway: "gw1" });
    assert.equal(answer.status, 200);
    assert.match(String(answer.headers["content-type"]), /^application\/json/);
    const message = JSON.parse(answer.body);
    assert.deepEqual(Object.keys(message), KEYS);
    assert.deepEqual(
      { ...message, timestamp: "T" },
      {
        text: "hello world",
        channel: "room-a",
        username: "alice",
        userid: "",
        avatar: "",
        account: "api.a",
        event: "",
        protocol: "api",
        gateway: "gw1",
        parent_id: "",
        timestamp: "T",
        id: "",
        Extra: null,
      },
    );
  });

  it("delivers to every other channel the directions allow, never back to the source, nothing to other gateways", async () => {
    await drainAll();
    await post(url("api.a"), { text: "to gw1", username: "alice", gateway: "gw1" });
    const [a, b, c, d, e] = await drainAll();
    assert.deepEqual(a, [], "never back to the source");
    assert.equal(b?.length, 1);
    assert.equal(c?.length, 1, "out-only accounts receive");
    assert.deepEqual(d, [], "in-only accounts do not receive");
    assert.deepEqual(e, [], "other gateways do not receive");
    const got = b?.[0];
    assert.equal(got?.text, "to gw1");
    assert.equal(got?.account, "api.a");
    assert.equal(got?.channel, "room-a", "receivers see the source channel, as in Matterbridge");
    assert.equal(got?.gateway, "gw1");
    assert.equal(got?.protocol, "api");
    assert.deepEqual(Object.keys(got ?? {}), KEYS);
  });

  it("routes a POST only in the gateway it names", async () => {
    await drainAll();
    await post(url("api.a"), { text: "to gw2", username: "alice", gateway: "gw2" });
    const [a, b, c, d, e] = await drainAll();
    assert.deepEqual([a, b, c, d], [[], [], [], []]);
    assert.equal(e?.length, 1);
    assert.equal(e?.[0]?.channel, "room-a2");
    assert.equal(e?.[0]?.username, "E:alice");
  });

  it("lets an in-only account post to the gateway, and an out-only account not", async () => {
    await drainAll();
    const fromD = await post(url("api.d"), { text: "from d", username: "dave", gateway: "gw1" });
    assert.equal(fromD.status, 200);
    const [a, b, c] = await drainAll();
    assert.equal(a?.[0]?.text, "from d");
    assert.equal(a?.[0]?.username, "GEN<dave>", "[general] RemoteNickFormat is the default");
    assert.equal(b?.[0]?.text, "from d");
    assert.equal(c?.[0]?.text, "from d");
    const fromC = await post(url("api.c"), { text: "from c", username: "carol", gateway: "gw1" });
    assert.equal(fromC.status, 400);
    assert.match(JSON.parse(fromC.body).message, /cannot post to any gateway/);
    const unknown = await post(url("api.a"), { text: "x", username: "u", gateway: "nope" });
    assert.equal(unknown.status, 400);
    assert.match(JSON.parse(unknown.body).message, /"nope".*gw1, gw2/);
  });

  it("formats nicks per destination with every placeholder, ReplaceNicks and Label from the source", async () => {
    await drainAll();
    await post(url("api.a"), { text: "hi", username: "Ünï-x", userid: "U9", gateway: "gw1" });
    const [, b, c] = await drainAll();
    assert.equal(b?.[0]?.username, "[api/a/gw1/LBL-A/room-a/U9] <Ünï-y> <Ü\u200bnï-y>");
    assert.equal(c?.[0]?.username, "GEN<ny>", "StripNick keeps [a-zA-Z0-9] only, then ReplaceNicks");
  });

  it("does not expand placeholders that appear inside a user's nick", async () => {
    await drainAll();
    await post(url("api.a"), { text: "hi", username: "{CHANNEL}|{USERID}|{PROTOCOL}", userid: "U1", gateway: "gw1" });
    const [, b] = await drainAll();
    assert.equal(
      b?.[0]?.username,
      "[api/a/gw1/LBL-A/room-a/U1] <{CHANNEL}|{USERID}|{PROTOCOL}> <{\u200bCHANNEL}|{USERID}|{PROTOCOL}>",
    );
  });

  it("gives each destination its own copy: StripNick on one does not leak into another", async () => {
    await drainAll();
    for (let i = 0; i < 10; i++) await post(url("api.d"), { text: `m${i}`, username: "bo-b.y", gateway: "gw1" });
    const [a, b, c] = await drainAll();
    assert.equal(a?.length, 10);
    for (const m of a ?? []) assert.equal(m.username, "GEN<bo-b.y>");
    for (const m of b ?? []) assert.match(m.username, /<bo-b\.y>/);
    for (const m of c ?? []) assert.equal(m.username, "GEN<boby>");
  });

  it("applies IgnoreNicks and IgnoreMessages of the source", async () => {
    await drainAll();
    for (const [username, text] of [
      ["spammer", "buy"],
      ["evilbob", "hi"],
      ["alice", "~~ ignored"],
      ["alice", "has badword inside"],
    ]) {
      const answer = await post(url("api.a"), { text, username, gateway: "gw1" });
      assert.equal(answer.status, 200);
      assert.equal(answer.headers["x-switchboard-deliveries"], "0");
    }
    await post(url("api.a"), { text: "fine", username: "alice", gateway: "gw1" });
    const [, b] = await drainAll();
    assert.deepEqual(
      b?.map((m) => m.text),
      ["fine"],
    );
  });

  it("applies ReplaceMessages exactly once although the source is on two gateways", async () => {
    await drainAll();
    await post(url("api.a"), { text: "x and my cat", username: "alice", gateway: "gw2" });
    await post(url("api.a"), { text: "x and my cat", username: "alice", gateway: "gw1" });
    const [, b, , , e] = await drainAll();
    assert.equal(e?.[0]?.text, "xx and my dog");
    assert.equal(b?.[0]?.text, "xx and my dog");
  });

  it("answers the POST with what was submitted, not the rewritten text", async () => {
    const answer = await post(url("api.a"), { text: "my cat", username: "alice", gateway: "gw2" });
    assert.equal(JSON.parse(answer.body).text, "my cat");
    await drainAll();
  });

  it("applies ExtractNicks of the source", async () => {
    await drainAll();
    await post(url("api.a"), { text: "<realuser> relayed words", username: "relaybot", gateway: "gw1" });
    const [, , c] = await drainAll();
    assert.equal(c?.[0]?.username, "GEN<realuser>");
    assert.equal(c?.[0]?.text, "relayed words");
  });

  it("delivers join_leave and topic_change only where ShowJoinPart / ShowTopicChange is set", async () => {
    await drainAll();
    await post(url("api.a"), { text: "alice joined", username: "alice", event: "join_leave", gateway: "gw1" });
    await post(url("api.a"), { text: "new topic", username: "alice", event: "topic_change", gateway: "gw1" });
    await post(url("api.a"), { text: "waves", username: "alice", event: "user_action", gateway: "gw1" });
    await post(url("api.a"), { text: "", username: "alice", event: "user_typing", gateway: "gw1" });
    const [, b, c] = await drainAll();
    assert.deepEqual(
      b?.map((m) => [m.event, m.text]),
      [
        ["join_leave", "alice joined"],
        ["topic_change", "new topic"],
        ["user_action", "waves"],
      ],
    );
    assert.deepEqual(
      c?.map((m) => m.event),
      ["user_action"],
    );
  });

  it("marks a reply's parent as not found where it cannot be resolved", async () => {
    await drainAll();
    const answer = await post(url("api.a"), { text: "re", username: "alice", parent_id: "p1", gateway: "gw1" });
    assert.equal(JSON.parse(answer.body).parent_id, "p1");
    const [, b] = await drainAll();
    assert.equal(b?.[0]?.parent_id, "msg-parent-not-found");
  });
});

describe("samechannelgateway", () => {
  let run: RunningBridge;
  const teardown = suiteTeardown();
  before(async () => {
    run = await startBridge(
      `
[api.x]
BindAddress = "127.0.0.1:0"
[api.y]
BindAddress = "127.0.0.1:0"
[api.z]
BindAddress = "127.0.0.1:0"

[[samechannelgateway]]
name = "same"
enable = true
accounts = ["api.x", "api.y"]
channels = ["one", "two"]

[[gateway]]
name = "plain"
enable = true
  [[gateway.inout]]
  account = "api.x"
  channel = "one"
  [[gateway.inout]]
  account = "api.z"
  channel = "zz"
`,
      teardown,
    );
  });

  it("delivers only to the same channel name on the other accounts", async () => {
    const answer = await post(run.url("api.x"), { text: "same", username: "u", gateway: "same" });
    assert.equal(answer.status, 200);
    assert.equal(JSON.parse(answer.body).channel, "one");
    assert.equal(answer.headers["x-switchboard-deliveries"], "1");
    const y = await readMessages(run.url("api.y"));
    assert.deepEqual(
      y.map((m) => [m.text, m.channel, m.gateway]),
      [["same", "one", "same"]],
    );
    assert.deepEqual(await readMessages(run.url("api.z")), []);
    await post(run.url("api.x"), { text: "plain", username: "u", gateway: "plain" });
    assert.deepEqual(
      (await readMessages(run.url("api.z"))).map((m) => m.text),
      ["plain"],
    );
    assert.deepEqual(await readMessages(run.url("api.y")), []);
  });
});
