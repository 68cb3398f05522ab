// The fake Matrix homeserver, validated with the real client library (matrix-js-sdk 37.5.0, unmodified) on both
// sides: password login and its refusal, a refused token, the initial and incremental /sync, joining by alias,
// messages both ways, edits, replies and redactions as the library builds them, a 429 the library reads with its own
// getRetryAfterMs(), and a dropped long poll the library notices. Every request the library made has a route.
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import {
  ClientEvent,
  createClient,
  type MatrixError,
  type MatrixEvent,
  MatrixScheduler,
  MsgType,
  RoomEvent,
  SyncState,
} from "matrix-js-sdk";
import { logger } from "matrix-js-sdk/lib/logger.js";
import { type FakeMatrix, Inbox, type MatrixHuman, startFakeMatrix, suiteTeardown, waitUntil } from "../src/index.ts";

// The library logs every request and sync step to the console at debug level.
(logger as unknown as { setLevel(level: string): void }).setLevel("silent");

// startClient()'s sync loop arms a timer of the long poll's timeout + 80 s for every request (15 s for its keep-alive
// polls) and never clears it (http-api/utils.ts timeoutSignal), which would keep this test process alive for two minutes after the suite. The
// library is unmodified: its long timers just do not hold the process open here.
const realSetTimeout = globalThis.setTimeout;
globalThis.setTimeout = ((callback: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => {
  const timer = realSetTimeout(callback, ms, ...args);
  if ((ms ?? 0) >= 10_000) timer.unref();
  return timer;
}) as typeof setTimeout;

interface Seen {
  roomId: string;
  sender: string;
  type: string;
  content: Record<string, unknown>;
  eventId: string;
  redacts?: string;
}

/** A started client recording the live timeline events it sees. */
async function startClient(
  fake: FakeMatrix,
  userId: string,
  accessToken: string,
  teardown: { after(fn: () => void): void },
) {
  const client = createClient({
    baseUrl: fake.url,
    userId,
    accessToken,
    deviceId: "TEST",
    // No client-side queue: errors (a 429) reach the caller as the server sent them.
    scheduler: new MatrixScheduler(undefined, () => null),
  });
  const seen = new Inbox<Seen>();
  client.on(RoomEvent.Timeline, (event: MatrixEvent, room, _start, _removed, data) => {
    if (!data?.liveEvent) return;
    seen.push({
      roomId: room?.roomId ?? "",
      sender: event.getSender() ?? "",
      type: event.getType(),
      content: event.getContent(),
      eventId: event.getId() ?? "",
      redacts: event.event.redacts ?? (event.getContent().redacts as string | undefined),
    });
  });
  const states: string[] = [];
  client.on(ClientEvent.Sync, (state) => states.push(state));
  teardown.after(() => client.stopClient());
  await client.startClient({ initialSyncLimit: 0 });
  await waitUntil(() => states.includes(SyncState.Prepared), { what: "the first sync" });
  return { client, seen, states };
}

describe("fake Matrix homeserver with matrix-js-sdk", () => {
  const teardown = suiteTeardown();
  let fake: FakeMatrix;
  let alice: MatrixHuman;
  let roomId: string;
  let bot: Awaited<ReturnType<typeof startClient>>;
  let human: Awaited<ReturnType<typeof startClient>>;

  before(async () => {
    fake = await startFakeMatrix(teardown, { log: () => {} });
    alice = fake.registerUser("alice", { displayName: "Alice" });
    fake.registerUser("bot", { password: "botpw" });
    roomId = fake.createRoom(alice, { alias: "main" });
    alice.say(roomId, "said before the bot came");
  });

  it("logs in with a password, and refuses a wrong one with 403 M_FORBIDDEN", async () => {
    const anonymous = createClient({ baseUrl: fake.url });
    const login = await anonymous.loginRequest({
      type: "m.login.password",
      identifier: { type: "m.id.user", user: "bot" },
      password: "botpw",
    });
    assert.equal(login.user_id, "@bot:localhost");
    assert.match(login.access_token, /^syt_/);
    const refused = await anonymous
      .loginRequest({ type: "m.login.password", identifier: { type: "m.id.user", user: "bot" }, password: "nope" })
      .then(
        () => undefined,
        (error: MatrixError) => error,
      );
    assert.equal(refused?.httpStatus, 403);
    assert.equal(refused?.errcode, "M_FORBIDDEN");

    bot = await startClient(fake, login.user_id, login.access_token, teardown);
    human = await startClient(fake, alice.userId, alice.accessToken, teardown);
  });

  it("refuses an unknown access token with 401 M_UNKNOWN_TOKEN", async () => {
    const stranger = createClient({ baseUrl: fake.url, accessToken: "syt_wrong", userId: "@x:localhost" });
    const error = await stranger.whoami().then(
      () => undefined,
      (e: MatrixError) => e,
    );
    assert.equal(error?.httpStatus, 401);
    assert.equal(error?.errcode, "M_UNKNOWN_TOKEN");
  });

  it("joins by alias: the join's sync brings the room's history, then new messages arrive", async () => {
    const joined = await bot.client.joinRoom("#main:localhost");
    assert.equal(joined.roomId, roomId);
    const said = alice.say(roomId, "hello bot");
    const got = await bot.seen.waitFor((e) => e.eventId === said, { what: "alice's message at the bot" });
    assert.equal(got.content.body, "hello bot");
    assert.equal(got.sender, "@alice:localhost");
    assert.equal(bot.client.getRoom(roomId)?.getMember(alice.userId)?.name, "Alice");
    // As on Synapse, a room joined since the last sync comes with its latest events, from before the join too.
    const history = bot.seen.items.findIndex((e) => e.content.body === "said before the bot came");
    const ownJoin = bot.seen.items.findIndex((e) => e.type === "m.room.member" && e.sender === "@bot:localhost");
    assert.ok(history >= 0 && history < ownJoin, `history at ${history}, the bot's join at ${ownJoin}`);
  });

  it("carries messages, edits, replies and redactions sent through the library", async () => {
    const sent = await bot.client.sendMessage(roomId, { msgtype: MsgType.Text, body: "hello alice" });
    const recorded = await fake.waitForEvent((e) => e.event_id === sent.event_id);
    assert.equal(recorded.sender, "@bot:localhost");
    await human.seen.waitFor((e) => e.eventId === sent.event_id, { what: "the bot's message at alice" });

    const edit = await bot.client.sendMessage(roomId, {
      msgtype: MsgType.Text,
      body: "* hello again",
      "m.new_content": { msgtype: MsgType.Text, body: "hello again" },
      "m.relates_to": { rel_type: "m.replace", event_id: sent.event_id },
    } as never);
    const seenEdit = await human.seen.waitFor((e) => e.eventId === edit.event_id, { what: "the edit" });
    assert.deepEqual(seenEdit.content["m.relates_to"], { rel_type: "m.replace", event_id: sent.event_id });

    const reply = await human.client.sendMessage(roomId, {
      msgtype: MsgType.Text,
      body: "a reply",
      "m.relates_to": { "m.in_reply_to": { event_id: sent.event_id } },
    } as never);
    await bot.seen.waitFor((e) => e.eventId === reply.event_id, { what: "the reply at the bot" });

    const redaction = await bot.client.redactEvent(roomId, sent.event_id);
    const seenRedaction = await human.seen.waitFor((e) => e.eventId === redaction.event_id, { what: "the redaction" });
    assert.equal(seenRedaction.type, "m.room.redaction");
    assert.equal(seenRedaction.redacts, sent.event_id);
  });

  it("answers a rate-limited send with 429 M_LIMIT_EXCEEDED that the library reads", async () => {
    fake.rateLimitNext(1, { retryAfterMs: 1500 });
    const error = await bot.client.sendMessage(roomId, { msgtype: MsgType.Text, body: "too fast" }).then(
      () => undefined,
      (e: MatrixError) => e,
    );
    assert.equal(error?.httpStatus, 429);
    assert.equal(error?.errcode, "M_LIMIT_EXCEEDED");
    assert.ok(error?.isRateLimitError());
    // The Retry-After header (whole seconds) wins over the body's retry_after_ms in the library.
    assert.equal(error?.getRetryAfterMs(), 2000);
    assert.equal(error?.data.retry_after_ms, 1500);
    const sent = await bot.client.sendMessage(roomId, { msgtype: MsgType.Text, body: "after the wait" });
    assert.match(sent.event_id, /^\$/);
  });

  it("drops the long poll: the library notices, and syncs again once the server answers", async () => {
    const from = bot.states.length;
    fake.dropConnections();
    await waitUntil(() => bot.states.slice(from).some((s) => s === SyncState.Reconnecting || s === SyncState.Error), {
      what: "the library to notice the drop",
    });
    const said = alice.say(roomId, "after the drop");
    await bot.seen.waitFor((e) => e.eventId === said, { timeoutMs: 20_000, what: "a message after the drop" });
  });

  it("has a route for every request the library made", () => {
    assert.deepEqual(fake.unhandled, []);
  });
});
