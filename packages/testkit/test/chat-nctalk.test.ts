// The Nextcloud Talk simulator, checked against what Talk's Chat API documentation (nextcloud-talk.readthedocs.io)
// says a client sees. No maintained Node client for Talk exists on npm to check it with, so these requests are
// written from the documentation with fetch: the OCS envelope, basic auth with an app password, the OCS-APIRequest
// header, history and long polls with X-Chat-Last-Given, 304 after a poll's timeout, replies, edits and deletes
// announced by system messages, the 32,000-character limit, 429.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { startTalkSimulator, suiteTeardown, type TalkSimulator } from "../src/index.ts";

const teardown = suiteTeardown();
const CHAT = "/ocs/v2.php/apps/spreed/api/v1/chat";

function client(talk: TalkSimulator, login: string, password: string) {
  const auth = `Basic ${Buffer.from(`${login}:${password}`).toString("base64")}`;
  return async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${talk.url}${path}`, {
      method,
      headers: {
        Authorization: auth,
        "OCS-APIRequest": "true",
        Accept: "application/json",
        ...(body === undefined ? {} : { "Content-Type": "application/json" }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    const json =
      text === "" ? undefined : (JSON.parse(text) as { ocs: { meta: { statuscode: number }; data: unknown } });
    return { status: response.status, headers: response.headers, ocs: json?.ocs };
  };
}

describe("Nextcloud Talk simulator, as Talk's Chat API documents it", () => {
  it("authenticates with an app password and the OCS header", async () => {
    const talk = await startTalkSimulator(teardown);
    talk.createBot("bridgebot", "app-pw", "Bridge Bot");
    const ok = await client(talk, "bridgebot", "app-pw")("GET", "/ocs/v2.php/cloud/user");
    assert.equal(ok.status, 200);
    assert.deepEqual(ok.ocs?.meta, { status: "ok", statuscode: 200, message: "OK" });
    assert.equal((ok.ocs?.data as { id: string } | undefined)?.id, "bridgebot");
    const refused = await client(talk, "bridgebot", "wrong")("GET", "/ocs/v2.php/cloud/user");
    assert.equal(refused.status, 401);
    assert.equal(refused.ocs?.meta.statuscode, 401);
    const noHeader = await fetch(`${talk.url}/ocs/v2.php/cloud/user`, { headers: { Accept: "application/json" } });
    assert.equal(noHeader.status, 412);
  });

  it("sends, reads history and long-polls with X-Chat-Last-Given", async () => {
    const talk = await startTalkSimulator(teardown);
    const bot = talk.createBot("bridgebot", "app-pw");
    const ana = talk.createUser("ana", "Ana");
    const room = talk.createRoom("General", [ana, bot]);
    const call = client(talk, "bridgebot", "app-pw");
    const first = ana.say(room, "one");
    ana.say(room, "two");
    const history = await call("GET", `${CHAT}/${room}?lookIntoFuture=0&limit=1`);
    assert.equal(history.status, 200);
    const newest = (history.ocs?.data as { id: number; message: string }[] | undefined)?.[0];
    assert.equal(newest?.message, "two");
    assert.equal(history.headers.get("X-Chat-Last-Given"), String(newest?.id));

    const empty = await call("GET", `${CHAT}/${room}?lookIntoFuture=1&lastKnownMessageId=${newest?.id}&timeout=0`);
    assert.equal(empty.status, 304);
    const waiting = call("GET", `${CHAT}/${room}?lookIntoFuture=1&lastKnownMessageId=${newest?.id}&timeout=30`);
    const sent = await call("POST", `${CHAT}/${room}`, { message: "three", replyTo: first });
    assert.equal(sent.status, 201);
    const created = sent.ocs?.data as { id: number; parent?: { id: number }; actorId: string };
    assert.equal(created.parent?.id, first);
    assert.equal(created.actorId, "bridgebot");
    const polled = await waiting;
    assert.equal(polled.status, 200);
    assert.deepEqual(
      (polled.ocs?.data as { message: string }[] | undefined)?.map((m) => m.message),
      ["three"],
    );
    assert.equal(polled.headers.get("X-Chat-Last-Given"), String(created.id));
    assert.equal((await call("POST", `${CHAT}/${room}`, { message: "x".repeat(32_001) })).status, 413);
    assert.equal((await call("POST", `${CHAT}/${room}`, { message: "  " })).status, 400);
    assert.equal((await call("GET", `${CHAT}/nosuchroom?lookIntoFuture=0`)).status, 404);
  });

  it("announces edits and deletes with system messages naming the message", async () => {
    const talk = await startTalkSimulator(teardown);
    const bot = talk.createBot("bridgebot", "app-pw");
    const room = talk.createRoom("General", [bot]);
    const call = client(talk, "bridgebot", "app-pw");
    const posted = await call("POST", `${CHAT}/${room}`, { message: "typo" });
    const id = (posted.ocs?.data as { id: number } | undefined)?.id;
    const edited = await call("PUT", `${CHAT}/${room}/${id}`, { message: "fixed" });
    assert.equal(edited.status, 200);
    const notice = edited.ocs?.data as { systemMessage: string; parent: { id: number; message: string } };
    assert.equal(notice.systemMessage, "message_edited");
    assert.deepEqual([notice.parent.id, notice.parent.message], [id, "fixed"]);
    const deleted = await call("DELETE", `${CHAT}/${room}/${id}`);
    assert.equal(deleted.status, 200);
    const gone = deleted.ocs?.data as { systemMessage: string; parent: { id: number; messageType: string } };
    assert.equal(gone.systemMessage, "message_deleted");
    assert.deepEqual([gone.parent.id, gone.parent.messageType], [id, "comment_deleted"]);
    assert.deepEqual(
      talk.sent.items.map((a) => a.kind),
      ["post", "edit", "delete"],
    );
  });

  it("answers 429 when rate-limited, with Retry-After when given", async () => {
    const talk = await startTalkSimulator(teardown);
    const bot = talk.createBot("bridgebot", "app-pw");
    const room = talk.createRoom("General", [bot]);
    talk.rateLimit(1, { retryAfter: 2, method: "POST" });
    const limited = await client(talk, "bridgebot", "app-pw")("POST", `${CHAT}/${room}`, { message: "hi" });
    assert.equal(limited.status, 429);
    assert.equal(limited.headers.get("Retry-After"), "2");
    assert.deepEqual(talk.unhandled, []);
  });
});
