// The api account's designed errors and bearer-token auth over real HTTP.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { waitUntil } from "@switchboard/testkit";
import { TOKEN, useFourAccounts } from "./four-accounts.ts";
import { http, openStream, openWebsocket, post, readMessages } from "./helpers.ts";

describe("api account errors and auth", () => {
  const bridge = useFourAccounts();
  const { url, drain, teardown } = bridge;

  describe("bad input gets a designed answer", () => {
    const expectError = async (answer: { status: number; body: string }, status: number, pattern: RegExp) => {
      assert.equal(answer.status, status, answer.body);
      const body = JSON.parse(answer.body);
      assert.deepEqual(Object.keys(body), ["message"]);
      assert.match(body.message, pattern);
    };
    const raw = (body: string, contentType?: string, name = "a") =>
      http(`${url(name)}/api/message`, {
        method: "POST",
        headers: contentType ? { "content-type": contentType } : {},
        body,
      });

    it("invalid JSON → 400", async () => {
      await expectError(await raw('{"text":', "application/json"), 400, /invalid JSON/);
      await expectError(await raw("not json", "application/json"), 400, /invalid JSON/);
      await expectError(await raw("", "application/json"), 400, /empty body/);
    });
    it("a content type other than JSON or a form → 415", async () => {
      await expectError(await raw('{"text":"x"}'), 415, /application\/json/);
      await expectError(await raw('{"text":"x"}', "text/plain"), 415, /application\/json/);
      await expectError(await raw("<text>x</text>", "application/xml"), 415, /x-www-form-urlencoded/);
      await expectError(await raw("--x--", "multipart/form-data; boundary=x"), 415, /application\/json/);
    });
    it("accepts application/json with a charset", async () => {
      const answer = await raw('{"text":"x","username":"u","gateway":"gw"}', "application/json; charset=utf-8");
      assert.equal(answer.status, 200);
    });
    it("a body over the limit → 413 (BodyLimit, and 1 MiB by default)", async () => {
      const big = JSON.stringify({ text: "x".repeat(2000), username: "u", gateway: "gw" });
      await expectError(await raw(big, "application/json", "small"), 413, /1024 bytes/);
      const huge = JSON.stringify({ text: "x".repeat(1024 * 1024), username: "u", gateway: "gw" });
      await expectError(await raw(huge, "application/json"), 413, /1048576 bytes/);
      const fits = JSON.stringify({ text: "x".repeat(1024 * 1024 - 100), username: "u", gateway: "gw" });
      assert.equal((await raw(fits, "application/json")).status, 200);
      await drain();
    });
    it("a missing or unknown gateway → 400 naming the gateways the account is on", async () => {
      await expectError(await post(url("a"), { text: "x", username: "u" }), 400, /missing.*can post to: gw$/);
      await expectError(await post(url("a"), { text: "x", username: "u", gateway: "gw2" }), 400, /"gw2".*: gw$/);
    });
    it("empty text → 400", async () => {
      await expectError(await post(url("a"), { text: "", username: "u", gateway: "gw" }), 400, /text is empty/);
      await expectError(await post(url("a"), { text: "  \n", username: "u", gateway: "gw" }), 400, /text is empty/);
      await expectError(await post(url("a"), { username: "u", gateway: "gw" }), 400, /text is empty/);
    });
    it("events a client may not post → 400, and the process keeps running", async () => {
      for (const event of [
        "get_channel_members",
        "failure",
        "rejoin_channels",
        "api_connected",
        "msg_delete",
        "bogus",
      ]) {
        await expectError(
          await post(url("a"), { text: "x", username: "u", gateway: "gw", event }),
          400,
          /cannot be posted/,
        );
      }
      assert.equal((await http(`${url("a")}/api/health`)).body, "OK");
    });
    it("wrong field types → 400", async () => {
      await expectError(
        await post(url("a"), { text: 123, username: "u", gateway: "gw" }),
        400,
        /"text" must be a string/,
      );
      await expectError(await post(url("a"), { text: "x", username: ["u"], gateway: "gw" }), 400, /"username"/);
      await expectError(await post(url("a"), { text: "x", username: "u", gateway: "gw", Extra: "file" }), 400, /Extra/);
      await expectError(await post(url("a"), [1, 2]), 400, /JSON object/);
      await expectError(await post(url("a"), "text"), 400, /JSON object/);
    });
    it("unknown paths → 404 and wrong methods → 405 with Allow", async () => {
      await expectError(await http(`${url("a")}/nope`), 404, /no route GET \/nope/);
      const wrong = await http(`${url("a")}/api/health`, { method: "POST" });
      await expectError(wrong, 405, /not allowed/);
      assert.equal(wrong.headers.allow, "GET, HEAD");
      await expectError(await http(`${url("a")}/api/message`), 405, /use POST/);
    });
  });

  describe("bearer token", () => {
    const expect401 = (answer: { status: number; headers: Record<string, unknown>; body: string }) => {
      assert.equal(answer.status, 401, answer.body);
      assert.equal(answer.headers["www-authenticate"], "Bearer");
      assert.equal(typeof JSON.parse(answer.body).message, "string");
    };

    it("guards every route with 401 + WWW-Authenticate: Bearer for missing, malformed or wrong tokens", async () => {
      const base = url("locked");
      const variants: Record<string, string>[] = [
        {},
        { authorization: TOKEN },
        { authorization: `Basic ${TOKEN}` },
        { authorization: "Bearer " },
        { authorization: "Bearer nope" },
        { authorization: `Bearer ${TOKEN}x` },
      ];
      for (const headers of variants) {
        for (const path of ["/api/health", "/api/messages", "/api/stream", "/api/nope"]) {
          expect401(await http(`${base}${path}`, { headers }));
        }
        expect401(await post(base, { text: "x", username: "u", gateway: "gw" }, headers));
        await assert.rejects(openWebsocket(base, headers), /401/);
      }
    });

    it("accepts the right token (scheme case-insensitive) on every route", async () => {
      const base = url("locked");
      const auth = { authorization: `Bearer ${TOKEN}` };
      assert.equal((await http(`${base}/api/health`, { headers: { authorization: `bearer ${TOKEN}` } })).body, "OK");
      assert.equal((await post(base, { text: "x", username: "u", gateway: "gw" }, auth)).status, 200);
      const stream = await openStream(base, auth);
      teardown.after(() => stream.close());
      assert.equal(stream.status, 200);
      const ws = await openWebsocket(base, auth);
      teardown.after(() => ws.close());
      await post(url("a"), { text: "to locked", username: "u", gateway: "gw" });
      assert.equal((await stream.take(2))[1]?.text, "to locked");
      assert.equal((await ws.take(2))[1]?.text, "to locked");
      assert.equal((await readMessages(base, auth)).at(-1)?.text, "to locked");
      stream.close();
    });

    it("never writes the token to the log", async () => {
      await waitUntil(() => bridge.logs.length > 0);
      for (const line of bridge.logs) assert.ok(!line.includes(TOKEN), line);
    });
  });
});
