// The routing core through the Account interface, with in-test accounts that have message ids (as IRC, Matrix...
// will): the id cache for edits, deletes and replies, async sends, failure isolation, internal events.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { pino } from "pino";
import { PROTOCOLS } from "../src/accounts/registry.ts";
import { defineProtocol } from "../src/config/descriptor.ts";
import { configFromText } from "../src/config/load.ts";
import type { Account, Delivery, SendResult } from "../src/core/account.ts";
import { MessageIdCache } from "../src/core/id-cache.ts";
import { compileNickFormat, formatNick } from "../src/core/nick-format.ts";
import { Router } from "../src/core/router.ts";
import { emptyMessage, type Message } from "../src/message.ts";

class FakeAccount implements Account {
  readonly protocol = "fake";
  readonly capabilities = { userTyping: true, notices: false, uploads: false };
  readonly delivered: Delivery[] = [];
  #next = 0;
  constructor(
    readonly id: string,
    readonly name: string,
    readonly mode: "sync" | "async" | "throws" = "sync",
  ) {}
  send(delivery: Delivery): SendResult {
    if (this.mode === "throws") throw new Error("platform down");
    this.delivered.push(delivery);
    const id = `${this.name}-${++this.#next}`;
    return this.mode === "async" ? Promise.resolve(id) : id;
  }
}

/** Config only: these tests hand the router in-test accounts directly, so nothing is ever created. */
const FAKE_PROTOCOLS = PROTOCOLS.with(
  defineProtocol({
    name: "fake",
    keys: {},
    create: () => {
      throw new Error("not used");
    },
  }),
);

function setup(extra = "", modes: Record<string, "sync" | "async" | "throws"> = {}) {
  const config = configFromText(
    `
[fake.a]
Label = "A"
[fake.b]
PreserveThreading = true
RemoteNickFormat = "<{NICK}@{PROTOCOL}.{BRIDGE}>"
[fake.c]
${extra}
[[gateway]]
name = "g"
enable = true
[[gateway.inout]]
account = "fake.a"
channel = "#a"
[[gateway.inout]]
account = "fake.b"
channel = "#b"
[[gateway.inout]]
account = "fake.c"
channel = "#c"
`,
    "core.toml",
    { protocols: FAKE_PROTOCOLS, env: {} },
  );
  const accounts = new Map<string, FakeAccount>();
  for (const name of ["a", "b", "c"]) accounts.set(`fake.${name}`, new FakeAccount(`fake.${name}`, name, modes[name]));
  const logs: string[] = [];
  const logger = pino({ level: "info" }, { write: (line: string) => logs.push(line) });
  const router = new Router(config, accounts, { logger });
  const get = (name: string) => accounts.get(`fake.${name}`) as FakeAccount;
  const from = (name: string, fields: Partial<Message>) =>
    router.receive(get(name), emptyMessage({ channel: `#${name}`, username: "u", ...fields }));
  return { router, get, from, logs };
}

describe("router core", () => {
  it("routes to every other channel with its own copy and the destination's channel", () => {
    const { get, from } = setup();
    const result = from("a", { text: "hi", id: "1" });
    assert.equal(result.deliveries, 2);
    assert.equal(get("a").delivered.length, 0);
    const [b] = get("b").delivered;
    const [c] = get("c").delivered;
    assert.equal(b?.channel, "#b");
    assert.equal(b?.message.channel, "#a");
    assert.equal(b?.message.username, "<u@fake.a>");
    assert.equal(c?.message.username, "u");
    assert.notEqual(b?.message, c?.message);
    assert.equal(b?.message.account, "fake.a");
    assert.equal(b?.message.protocol, "fake");
    assert.equal(b?.message.gateway, "g");
  });

  it("cleans every nick once before RemoteNickFormat: no line break or control character reaches a destination", () => {
    const { get, from } = setup();
    from("a", { text: "hi", username: "Mia\r\nPRIVMSG #all :spoof\0", userid: "id\n1" });
    assert.equal(get("b").delivered[0]?.message.username, "<Mia PRIVMSG #all :spoof@fake.a>");
    assert.equal(get("c").delivered[0]?.message.username, "Mia PRIVMSG #all :spoof");
    from("a", { text: "who?", username: "\u0000\r\n", userid: "U123" });
    assert.equal(get("c").delivered[1]?.message.username, "U123");
  });

  it("turns an edit into an edit of each destination's copy (ids from the cache)", () => {
    const { get, from } = setup();
    from("a", { text: "original", id: "m1" });
    from("a", { text: "edited", id: "m1" });
    assert.deepEqual(
      get("b").delivered.map((d) => [d.message.text, d.message.id]),
      [
        ["original", ""],
        ["edited", "b-1"],
      ],
    );
    assert.deepEqual(
      get("c").delivered.map((d) => d.message.id),
      ["", "c-1"],
    );
  });

  it("sends deletes only where a copy exists", () => {
    const { get, from } = setup();
    from("a", { text: "x", id: "m1" });
    from("a", { text: "", event: "msg_delete", id: "m1" });
    from("a", { text: "", event: "msg_delete", id: "unknown" });
    assert.deepEqual(
      get("b").delivered.map((d) => [d.message.event, d.message.id]),
      [
        ["", ""],
        ["msg_delete", "b-1"],
      ],
    );
  });

  it("resolves reply parents per destination with PreserveThreading, else marks them not found", () => {
    const { get, from } = setup();
    from("a", { text: "question", id: "q1" });
    from("c", { text: "answer", id: "r1", parent_id: "c-1" });
    const reply = get("b").delivered.at(-1)?.message;
    assert.equal(reply?.text, "answer");
    assert.equal(reply?.parent_id, "b-1", "a reply to c's copy reaches b's copy of the original");
    const toA = get("a").delivered.at(-1)?.message;
    assert.equal(toA?.parent_id, "msg-parent-not-found", "fake.a has no PreserveThreading");
    from("b", { text: "reply to own", id: "r2", parent_id: "b-1" });
    from("a", { text: "reply on source", id: "r3", parent_id: "q1" });
    assert.equal(get("b").delivered.at(-1)?.message.parent_id, "b-1");
    from("c", { text: "unknown parent", id: "r4", parent_id: "nope" });
    assert.equal(get("b").delivered.at(-1)?.message.parent_id, "msg-parent-not-found");
  });

  it("records ids from asynchronous sends", async () => {
    const { get, from } = setup("", { b: "async" });
    from("a", { text: "x", id: "m1" });
    await new Promise((resolve) => setImmediate(resolve));
    from("a", { text: "x2", id: "m1" });
    assert.equal(get("b").delivered.at(-1)?.message.id, "b-1");
  });

  it("keeps delivering to the others when one destination throws", () => {
    const { get, from, logs } = setup("", { b: "throws" });
    const result = from("a", { text: "x" });
    assert.equal(result.deliveries, 2);
    assert.equal(get("c").delivered.length, 1);
    assert.ok(logs.some((line) => line.includes("send failed")));
  });

  it("never routes internal events (get_channel_members crashed Matterbridge) nor empty text", () => {
    const { get, from } = setup();
    for (const event of ["get_channel_members", "failure", "rejoin_channels", "api_connected"]) {
      assert.equal(from("a", { text: "x", event }).dropped, "internal-event");
    }
    assert.equal(from("a", { text: "" }).dropped, "ignored");
    assert.equal(from("a", { text: "", event: "user_typing" }).deliveries, 2);
    assert.equal(get("b").delivered.length, 1);
  });

  it("drops a message from a channel that is not on the gateway", () => {
    const { router, get } = setup();
    assert.equal(router.receive(get("a"), emptyMessage({ channel: "#elsewhere", text: "x" })).deliveries, 0);
  });
});

describe("message id cache", () => {
  it("is bounded and evicts the least recently used entry", () => {
    const cache = new MessageIdCache(3);
    for (const key of ["k1", "k2", "k3"]) cache.set(key, []);
    cache.get("k1");
    cache.set("k4", []);
    assert.equal(cache.size, 3);
    assert.equal(cache.has("k2"), false);
    assert.equal(cache.has("k1"), true);
    for (let i = 0; i < 100; i++) cache.set(`x${i}`, []);
    assert.equal(cache.size, 3);
  });
});

describe("nick format", () => {
  it("expands each placeholder of the template once, never text inside values", () => {
    const format = compileNickFormat("{NICK}|{NOPINGNICK}|{TENGO}|{nick}|{USERID}");
    const values = {
      NICK: "{USERID}",
      PROTOCOL: "p",
      BRIDGE: "b",
      GATEWAY: "g",
      LABEL: "l",
      CHANNEL: "c",
      USERID: "U",
    };
    assert.equal(formatNick(format, values), "{USERID}|{\u200bUSERID}|{TENGO}|{nick}|U");
    assert.equal(formatNick(compileNickFormat("{NOPINGNICK}"), { ...values, NICK: "x" }), "x\u200b");
    assert.equal(formatNick(compileNickFormat("{NOPINGNICK}"), { ...values, NICK: "😀ab" }), "😀\u200bab");
  });
});
