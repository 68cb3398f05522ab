// The api account over real HTTP: every endpoint, the ring, stream and websocket fan-out, errors and auth.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { waitUntil } from "@switchboard/testkit";
import { useFourAccounts } from "./four-accounts.ts";
import { http, KEYS, openStream, openWebsocket, post, readMessages, TIMESTAMP } from "./helpers.ts";

describe("api account", () => {
  const bridge = useFourAccounts();
  const { url, drain, teardown } = bridge;

  it("GET /api/health answers OK as text", async () => {
    const answer = await http(`${url("a")}/api/health`);
    assert.equal(answer.status, 200);
    assert.equal(answer.body, "OK");
    assert.match(String(answer.headers["content-type"]), /^text\/plain/);
  });

  it("GET /api/messages returns [] when empty, then the messages in arrival order, then [] again", async () => {
    await drain();
    const empty = await http(`${url("b")}/api/messages`);
    assert.equal(empty.status, 200);
    assert.equal(empty.body, "[]");
    assert.match(String(empty.headers["content-type"]), /^application\/json/);
    for (const text of ["one", "two", "three"]) await post(url("a"), { text, username: "u", gateway: "gw" });
    const got = await readMessages(url("b"));
    assert.deepEqual(
      got.map((m) => m.text),
      ["one", "two", "three"],
    );
    for (const m of got) {
      assert.deepEqual(Object.keys(m), KEYS);
      assert.match(m.timestamp, TIMESTAMP);
      assert.equal(m.Extra, null);
    }
    assert.deepEqual(await readMessages(url("b")), []);
  });

  it("keeps the ring's capacity for its whole life, drops the oldest and logs the drops", async () => {
    await drain();
    for (let i = 1; i <= 5; i++) await post(url("a"), { text: `o${i}`, username: "u", gateway: "gw" });
    assert.deepEqual(
      (await readMessages(url("small"))).map((m) => m.text),
      ["o3", "o4", "o5"],
    );
    for (let i = 1; i <= 12; i++) await post(url("a"), { text: `q${i}`, username: "u", gateway: "gw" });
    assert.deepEqual(
      (await readMessages(url("small"))).map((m) => m.text),
      ["q10", "q11", "q12"],
      "capacity is still Buffer = 3 after a read (Matterbridge falls back to 10)",
    );
    const counted = await http(`${url("small")}/api/messages`);
    assert.equal(counted.headers["x-switchboard-dropped"], "11", "2 + 9 dropped so far");
    const drops = bridge.logs.filter(
      (line) => line.includes("message buffer full") && line.includes('"account":"api.small"'),
    );
    assert.ok(drops.length >= 1, "drops are logged");
    assert.match(drops[0] ?? "", /"droppedTotal":\d+/);
  });

  it("GET /api/stream starts with the api_connected greeting", async () => {
    const stream = await openStream(url("b"));
    teardown.after(() => stream.close());
    assert.equal(stream.status, 200);
    assert.match(String(stream.headers["content-type"]), /^application\/json/);
    const [greeting] = await stream.take(1);
    assert.deepEqual(Object.keys(greeting ?? {}), KEYS);
    assert.deepEqual(
      { ...greeting, timestamp: "" },
      {
        text: "",
        channel: "",
        username: "",
        userid: "",
        avatar: "",
        account: "",
        event: "api_connected",
        protocol: "",
        gateway: "",
        parent_id: "",
        timestamp: "",
        id: "",
        Extra: null,
      },
    );
    assert.match(greeting?.timestamp ?? "", TIMESTAMP);
    stream.close();
  });

  it("fans every message out to every stream client, without taking it from /api/messages", async () => {
    await drain();
    const streams = await Promise.all([1, 2, 3].map(() => openStream(url("b"))));
    for (const s of streams) teardown.after(() => s.close());
    const sent = Array.from({ length: 20 }, (_, i) => `s${i}`);
    for (const text of sent) await post(url("a"), { text, username: "u", gateway: "gw" });
    for (const stream of streams) {
      const got = await stream.take(1 + sent.length);
      assert.deepEqual(
        got.slice(1).map((m) => m.text),
        sent,
      );
      for (const line of stream.raw) assert.doesNotMatch(line, /\n/);
    }
    assert.deepEqual(
      (await readMessages(url("b"))).map((m) => m.text),
      sent,
      "the polling buffer still has every message",
    );
    streams[0]?.close();
    await post(url("a"), { text: "after-close", username: "u", gateway: "gw" });
    for (const stream of streams.slice(1)) {
      const got = await stream.take(2 + sent.length);
      assert.equal(got.at(-1)?.text, "after-close");
    }
    assert.deepEqual(
      (await readMessages(url("b"))).map((m) => m.text),
      ["after-close"],
    );
    for (const s of streams) s.close();
  });

  it("websocket: greeting, every delivered message as a frame, client frames routed and echoed to the others", async () => {
    await drain();
    const [a1, a2, b1, b2] = await Promise.all([
      openWebsocket(url("a")),
      openWebsocket(url("a")),
      openWebsocket(url("b")),
      openWebsocket(url("b")),
    ]);
    for (const ws of [a1, a2, b1, b2]) teardown.after(() => ws?.close());
    if (!a1 || !a2 || !b1 || !b2) throw new Error("websockets not open");
    for (const ws of [a1, a2, b1, b2]) assert.equal(ws.items[0]?.event, "api_connected");

    await post(url("a"), { text: "posted", username: "alice", gateway: "gw" });
    for (const ws of [b1, b2]) assert.equal((await ws.take(2))[1]?.text, "posted");

    const stream = await openStream(url("b"));
    teardown.after(() => stream.close());
    a1.send({ text: "from ws", username: "wsuser", gateway: "gw", channel: "ignored", id: "x" });
    const [, echo] = await a2.take(2);
    assert.deepEqual(Object.keys(echo ?? {}), KEYS);
    assert.equal(echo?.text, "from ws");
    assert.equal(echo?.account, "api.a");
    assert.equal(echo?.channel, "api");
    assert.equal(echo?.id, "");
    for (const ws of [b1, b2]) assert.equal((await ws.take(3))[2]?.text, "from ws");
    assert.equal((await stream.take(2))[1]?.text, "from ws");

    a1.send("not json");
    a1.send({ text: "", username: "u", gateway: "gw" });
    a1.send({ text: "second", username: "wsuser", gateway: "gw" });
    assert.equal((await a2.take(3))[2]?.text, "second", "bad frames are dropped, the connection stays usable");
    assert.equal(a1.items.length, 1, "the sender gets no echo of its own frames");
    assert.deepEqual(
      (await readMessages(url("b"))).map((m) => m.text),
      ["posted", "from ws", "second"],
    );
    stream.close();
  });

  it("accepts files in Extra.file, normalised to Matterbridge's FileInfo keys, and rejects bad ones with 400", async () => {
    await drain();
    const file = { Name: "hello.txt", Data: "aGVsbG8gd29ybGQ=", Comment: "a comment" };
    const answer = await post(url("a"), { text: "", username: "u", gateway: "gw", Extra: { file: [file] } });
    assert.equal(answer.status, 200, answer.body);
    const expected = {
      file: [
        {
          Name: "hello.txt",
          Data: "aGVsbG8gd29ybGQ=",
          Comment: "a comment",
          URL: "",
          Size: 11,
          Avatar: false,
          SHA: "",
          NativeID: "",
        },
      ],
    };
    assert.deepEqual(JSON.parse(answer.body).Extra, expected);
    // A message with files reaches the other accounts once its files are ready (written to a local file): a moment later.
    let got: Awaited<ReturnType<typeof readMessages>>[number] | undefined;
    await waitUntil(
      async () => {
        got = (await readMessages(url("b")))[0];
        return got !== undefined;
      },
      { what: "the message with its file on account b" },
    );
    assert.deepEqual(got?.Extra, expected);
    assert.deepEqual(Object.keys(got?.Extra?.["file"]?.[0] ?? {}), [
      "Name",
      "Data",
      "Comment",
      "URL",
      "Size",
      "Avatar",
      "SHA",
      "NativeID",
    ]);
    const empty = await post(url("a"), { text: "x", username: "u", gateway: "gw", Extra: { file: [] } });
    assert.equal(JSON.parse(empty.body).Extra, null, "an empty file list is no Extra");
    for (const [extra, pattern] of [
      [{ file: ["oops"] }, /file\[0\] must be an object/],
      [{ file: [{ Name: "a" }] }, /needs Data \(base64\) or a URL/],
      [{ file: [{ Name: "a", Data: "!!!" }] }, /base64/],
      [{ file: [{ Name: "a", Data: ["aGk="] }] }, /base64/],
      [{ file: [{ Name: "a", Data: "aGk=", Size: "12" }] }, /Size/],
      [{ file: [{ Data: "aGk=" }] }, /Name is required/],
      [{ file: "x" }, /must be a list/],
      [{ other: [] }, /Extra\.other is not accepted/],
    ] as const) {
      const bad = await post(url("a"), { text: "", username: "u", gateway: "gw", Extra: extra });
      assert.equal(bad.status, 400, JSON.stringify(extra));
      assert.match(JSON.parse(bad.body).message, pattern);
    }
    await readMessages(url("b"));
  });

  it("a plain GET on /api/websocket says to use a WebSocket client", async () => {
    const answer = await http(`${url("a")}/api/websocket`);
    assert.equal(answer.status, 426);
    assert.ok(JSON.parse(answer.body).message);
  });

  it("answers the POST with an RFC 3339 nanosecond timestamp with a numeric offset", async () => {
    const answer = await post(url("a"), { text: "t", username: "u", gateway: "gw" });
    assert.match(JSON.parse(answer.body).timestamp, TIMESTAMP);
    assert.equal(answer.headers["x-switchboard-deliveries"], "3");
  });
});
