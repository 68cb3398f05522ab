// The Rocket.Chat simulator, checked against Rocket.Chat's documented wire format with plain fetch and `ws` (neither
// of Rocket.Chat's JavaScript clients installs from npm: @rocket.chat/sdk depends on a git repository, and
// @rocket.chat/ddp-client on @rocket.chat/core-typings, whose published manifest names a yarn `patch:` dependency
// npm cannot resolve). REST: login, rooms.info, channels.join, chat.postMessage with alias/avatar/tmid, chat.update,
// chat.delete, chat.syncMessages, errors and 429. DDP: connect, login with a resume token, stream-room-messages and
// stream-notify-room deletions, pings.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { WebSocket } from "ws";
import { Inbox, startRocketChatSimulator, suiteTeardown } from "../src/index.ts";

const teardown = suiteTeardown();

type Json = Record<string, unknown>;

async function rest(
  url: string,
  path: string,
  auth: Json | undefined,
  body?: Json,
): Promise<{ status: number; json: Json; headers: Headers }> {
  const headers: Record<string, string> = { "Content-Type": "application/json" };
  if (auth) Object.assign(headers, { "X-Auth-Token": String(auth.authToken), "X-User-Id": String(auth.userId) });
  const response = await fetch(`${url}/api/v1/${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, json: (await response.json()) as Json, headers: response.headers };
}

describe("Rocket.Chat simulator, by the documented wire format", () => {
  it("answers the REST API as Rocket.Chat does", async () => {
    const rc = await startRocketChatSimulator(teardown);
    rc.createBot("bridgebot", "botpw");
    const ana = rc.createUser("ana");
    const general = rc.createRoom("general", [ana.user]);
    const refused = await rest(rc.url, "login", undefined, { user: "bridgebot", password: "wrong" });
    assert.equal(refused.status, 401);
    const login = await rest(rc.url, "login", undefined, { user: "bridgebot", password: "botpw" });
    assert.equal(login.json.status, "success");
    const auth = login.json.data as Json;
    assert.equal((await rest(rc.url, "me", auth)).json.username, "bridgebot");
    assert.equal((await rest(rc.url, "me", { authToken: "x", userId: "y" })).status, 401);
    const info = await rest(rc.url, "rooms.info?roomName=general", auth);
    assert.equal((info.json.room as Json)._id, general);
    assert.equal((await rest(rc.url, "rooms.info?roomName=nope", auth)).json.errorType, "error-room-not-found");
    assert.equal((await rest(rc.url, "channels.join", auth, { roomId: general })).json.success, true);
    const posted = await rest(rc.url, "chat.postMessage", auth, {
      roomId: general,
      text: "hi",
      alias: "ivan",
      avatar: "https://a/x.png",
    });
    const message = posted.json.message as Json;
    assert.equal(message.alias, "ivan");
    const reply = await rest(rc.url, "chat.postMessage", auth, {
      roomId: general,
      text: "in thread",
      tmid: message._id,
    });
    assert.equal((reply.json.message as Json).tmid, message._id);
    const since = new Date(Date.now() - 60_000).toISOString();
    await rest(rc.url, "chat.update", auth, { roomId: general, msgId: message._id, text: "hi there" });
    await rest(rc.url, "chat.delete", auth, { roomId: general, msgId: (reply.json.message as Json)._id });
    const sync = await rest(rc.url, `chat.syncMessages?roomId=${general}&lastUpdate=${since}`, auth);
    const result = sync.json.result as { updated: Json[]; deleted: Json[] };
    assert.ok(result.updated.some((m) => m.msg === "hi there" && typeof m.editedAt === "string"));
    assert.equal(result.deleted.length, 1);
    const long = await rest(rc.url, "chat.postMessage", auth, { roomId: general, text: "x".repeat(5001) });
    assert.equal(long.json.errorType, "error-message-size-exceeded");
    rc.rateLimit(1, { retryAfter: 2 });
    const limited = await rest(rc.url, "me", auth);
    assert.equal(limited.status, 429);
    assert.equal(limited.json.errorType, "error-too-many-requests");
    assert.ok(Number(limited.headers.get("x-ratelimit-reset")) > Date.now());
    assert.deepEqual(
      rc.sent.items.map((a) => a.kind),
      ["post", "post", "edit", "delete"],
    );
    assert.deepEqual(rc.unhandled, []);
  });

  it("speaks DDP: connect, resume login, room messages, deletions, pings", async () => {
    const rc = await startRocketChatSimulator(teardown);
    const bot = rc.createBot("bridgebot", "botpw");
    const ana = rc.createUser("ana");
    const general = rc.createRoom("general", [ana.user, bot]);
    const auth = (await rest(rc.url, "login", undefined, { user: "bridgebot", password: "botpw" })).json.data as Json;
    const frames = new Inbox<Json>();
    const socket = new WebSocket(`${rc.url.replace("http", "ws")}/websocket`);
    teardown.after(() => socket.terminate());
    socket.on("message", (data) => frames.push(JSON.parse(String(data)) as Json));
    await new Promise((resolve) => socket.once("open", resolve));
    const send = (frame: Json) => socket.send(JSON.stringify(frame));
    send({ msg: "connect", version: "1", support: ["1"] });
    await frames.waitFor((f) => f.msg === "connected");
    send({ msg: "method", method: "login", id: "1", params: [{ resume: "bad" }] });
    assert.equal(((await frames.waitFor((f) => f.id === "1")).error as Json).error, 403);
    send({ msg: "method", method: "login", id: "2", params: [{ resume: auth.authToken }] });
    assert.equal(((await frames.waitFor((f) => f.id === "2")).result as Json).id, bot._id);
    send({ msg: "sub", id: "s1", name: "stream-room-messages", params: [general, false] });
    send({ msg: "sub", id: "s2", name: "stream-notify-room", params: [`${general}/deleteMessage`, false] });
    await frames.waitFor((f) => f.msg === "ready" && (f.subs as string[]).includes("s2"));
    const id = ana.say("general", "hello");
    const changed = await frames.waitFor((f) => f.msg === "changed" && f.collection === "stream-room-messages");
    const message = ((changed.fields as Json).args as Json[])[0] as Json;
    assert.equal(message.msg, "hello");
    assert.equal(typeof (message.ts as Json).$date, "number");
    ana.edit(id, "hello again");
    await frames.waitFor(
      (f) => f.msg === "changed" && (((f.fields as Json).args as Json[])[0] as Json).editedAt !== undefined,
    );
    ana.delete(id);
    const deleted = await frames.waitFor((f) => f.collection === "stream-notify-room");
    assert.equal((deleted.fields as Json).eventName, `${general}/deleteMessage`);
    send({ msg: "ping", id: "p" });
    await frames.waitFor((f) => f.msg === "pong" && f.id === "p");
    assert.equal(rc.subscriptions(bot._id, "general"), 1);
  });
});
