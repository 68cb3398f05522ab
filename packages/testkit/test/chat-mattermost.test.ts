// The Mattermost simulator, validated with Mattermost's own client library (@mattermost/client, unmodified): Client4
// logs in (the session token from the `Token` header), finds the team and channels, posts, replies in threads,
// patches and deletes, reads posts since a time, and gets Mattermost's errors as ClientErrors with their ids and
// status codes; WebSocketClient (with `ws` standing in for the browser's WebSocket on Node 20) authenticates and
// receives what humans post, edit and delete as events with the post as JSON.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import mattermost, { type ClientError } from "@mattermost/client";
import { WebSocket } from "ws";
import { Inbox, startMattermostSimulator, suiteTeardown } from "../src/index.ts";

// A CommonJS package: its classes come through the default export under Node's ESM loader.
const { Client4, WebSocketClient } = mattermost;
const teardown = suiteTeardown();

describe("Mattermost simulator through @mattermost/client", () => {
  it("answers Client4 as Mattermost does", async () => {
    const mm = await startMattermostSimulator(teardown);
    mm.createBot("bridgebot", "botpw");
    const ana = mm.createUser("ana", { nickname: "Ana B" });
    const client = new Client4();
    client.setUrl(mm.url);
    const me = await client.login("bridgebot", "botpw");
    assert.equal(me.username, "bridgebot");
    assert.notEqual(client.getToken(), "");
    const team = await client.getTeamByName(mm.teamName);
    const general = mm.createChannel("general", [ana, me]);
    const channel = await client.getChannelByName(team.id, "general");
    assert.equal(channel.id, general);
    assert.deepEqual(
      (await client.getMyChannels(team.id)).map((c) => c.name),
      ["general"],
    );
    assert.equal((await client.getUser(ana.id)).nickname, "Ana B");

    const root = await client.createPost({
      channel_id: general,
      message: "hi",
      props: { override_username: "ivan" },
    } as never);
    const reply = await client.createPost({ channel_id: general, message: "in thread", root_id: root.id } as never);
    assert.equal(reply.root_id, root.id);
    const patched = await client.patchPost({ id: root.id, message: "hi there" });
    assert.equal(patched.message, "hi there");
    assert.ok(patched.edit_at > 0);
    const since = Date.now() - 60_000;
    const recent = await client.getPostsSince(general, since);
    assert.deepEqual(recent.order.length, 2);
    await client.deletePost(reply.id);
    assert.deepEqual(
      mm.history("general").map((p) => p.message),
      ["hi there"],
    );
    assert.deepEqual(
      mm.sent.items.map((a) => a.kind),
      ["post", "post", "edit", "delete"],
    );
  });

  it("reports Mattermost's errors as ClientErrors", async () => {
    const mm = await startMattermostSimulator(teardown);
    mm.createBot("bridgebot", "botpw");
    const client = new Client4();
    client.setUrl(mm.url);
    await assert.rejects(client.login("bridgebot", "wrong"), (error: ClientError) => {
      assert.ok(error instanceof mattermost.ClientError);
      assert.equal(error.status_code, 401);
      assert.equal(error.server_error_id, "api.user.login.invalid_credentials_email_username");
      return true;
    });
    client.setToken("not-a-session");
    await assert.rejects(client.getMe(), (error: ClientError) => error.status_code === 401);
    await client.login("bridgebot", "botpw");
    await assert.rejects(client.getTeamByName("nope"), (error: ClientError) => error.status_code === 404);
    mm.rateLimit(1, { retryAfter: 3 });
    // Client4 cannot read the limiter's plain-text answer; a request built by it and read here can.
    const limited = await fetch(`${client.getUsersRoute()}/me`, client.getOptions({ method: "get" }) as RequestInit);
    assert.equal(limited.status, 429);
    assert.equal(limited.headers.get("Retry-After"), "3");
    assert.equal(await limited.text(), "limit exceeded\n");
  });

  it("delivers posts, edits and deletes to WebSocketClient", async () => {
    // The library reads WebSocket.OPEN from the global, which Node 20 does not have.
    const globals = globalThis as { WebSocket?: unknown };
    const hadWebSocket = "WebSocket" in globals;
    globals.WebSocket ??= WebSocket;
    teardown.after(() => {
      if (!hadWebSocket) delete globals.WebSocket;
    });
    const mm = await startMattermostSimulator(teardown);
    const bot = mm.createBot("bridgebot", "botpw");
    const ana = mm.createUser("ana");
    mm.createChannel("general", [ana, bot]);
    const events = new Inbox<{ event: string; data: Record<string, unknown> }>();
    const socket = new WebSocketClient({ newWebSocketFn: (url) => new WebSocket(url) as never });
    socket.addMessageListener((message) => events.push(message as never));
    const log = console.log;
    console.log = () => {}; // the library logs its connection states to the console
    teardown.after(() => {
      console.log = log;
      socket.close();
    });
    socket.initialize(`${mm.url.replace("http", "ws")}/api/v4/websocket`, bot.token);
    await events.waitFor((e) => e.event === "hello");
    const id = ana.say("general", "hello");
    const posted = await events.waitFor((e) => e.event === "posted");
    assert.equal(JSON.parse(posted.data.post as string).message, "hello");
    assert.equal(posted.data.channel_name, "general");
    ana.edit(id, "hello again");
    const edited = await events.waitFor((e) => e.event === "post_edited");
    assert.equal(JSON.parse(edited.data.post as string).message, "hello again");
    ana.delete(id);
    await events.waitFor((e) => e.event === "post_deleted");
    assert.equal(mm.webSocketConnections(bot.user.id), 1);
  });
});
