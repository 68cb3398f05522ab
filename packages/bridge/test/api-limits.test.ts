// Bounds on what one posted message may make the bridge do: nesting, number of values, files, field lengths. Each is
// refused with a 400 naming the limit, before the body is built into objects.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { waitUntil } from "@switchboard/testkit";
import fc from "fast-check";
import { useFourAccounts } from "./four-accounts.ts";
import { http, KEYS, openWebsocket, post } from "./helpers.ts";

const MiB = 1024 * 1024;

describe("api account limits on posted messages", () => {
  const bridge = useFourAccounts();
  const { url, drain, teardown } = bridge;

  const postRaw = (body: string) =>
    http(`${url("a")}/api/message`, { method: "POST", headers: { "content-type": "application/json" }, body });
  const expect400 = async (answer: { status: number; body: string }, pattern: RegExp) => {
    assert.equal(answer.status, 400, answer.body.slice(0, 200));
    assert.match((JSON.parse(answer.body) as { message: string }).message, pattern);
  };

  it("refuses JSON nested deeper than 8 levels, however long the body", async () => {
    await expect400(await postRaw("[".repeat(MiB - 16)), /nested deeper than 8 levels/);
    await expect400(await postRaw(`${"[".repeat(MiB / 2 - 8)}${"]".repeat(MiB / 2 - 8)}`), /nested deeper than 8/);
    const deepInExtra = `{"text":"x","gateway":"gw","Extra":{"file":[{"Name":${'{"a":'.repeat(20)}1${"}".repeat(20)}}]}}`;
    await expect400(await postRaw(deepInExtra), /nested deeper than 8 levels/);
  });

  it("refuses more than 2048 JSON values and more than 100 files, and accepts 100 files", async () => {
    const files = (n: number) => Array.from({ length: n }, () => ({ Name: "a", URL: "b" }));
    const flood = { text: "", username: "u", gateway: "gw", Extra: { file: files(40_000) } };
    await expect400(await post(url("a"), flood), /more than 2048 values/);
    await expect400(await postRaw(`{"text":"x","gateway":"gw","junk":[${"1,".repeat(100_000)}1]}`), /2048 values/);
    await expect400(
      await post(url("a"), { text: "x", username: "u", gateway: "gw", Extra: { file: files(101) } }),
      /at most 100 files/,
    );
    const hundred = await post(url("a"), { text: "x", username: "u", gateway: "gw", Extra: { file: files(100) } });
    assert.equal(hundred.status, 200, hundred.body.slice(0, 200));
    await drain();
  });

  it("refuses names longer than 1024 characters and avatars longer than 8192; text is bounded by BodyLimit only", async () => {
    for (const field of ["username", "userid", "gateway", "parent_id", "event"]) {
      const message = { text: "x", username: "u", gateway: "gw", [field]: "n".repeat(1025) };
      await expect400(await post(url("a"), message), new RegExp(`"${field}" is longer than 1024 characters`));
    }
    await expect400(await post(url("a"), { text: "x", gateway: "gw", avatar: "a".repeat(8193) }), /"avatar" .*8192/);
    const long = await post(url("a"), { text: "t".repeat(MiB / 2), username: "n".repeat(1024), gateway: "gw" });
    assert.equal(long.status, 200);
    await drain();
  });

  it("does not count brackets, commas or escaped quotes inside strings", async () => {
    const tricky = fc.string({
      unit: fc.constantFrom("[", "]", "{", "}", ",", '"', "\\", "\\\\", "a", "\u00e9", "\\u0022"),
    });
    await fc.assert(
      fc.asyncProperty(tricky, fc.string({ maxLength: 50 }), async (text, username) => {
        const answer = await post(url("a"), { text: `${text}.`, username, gateway: "gw" });
        assert.equal(answer.status, 200, answer.body);
        const echoed = JSON.parse(answer.body);
        assert.deepEqual(Object.keys(echoed), KEYS);
        assert.equal(echoed.text, `${text}.`);
      }),
      { numRuns: 150 },
    );
    await drain();
  });

  it("applies the same limits to websocket frames (dropped, the reason logged with -debug)", async () => {
    const ws = await openWebsocket(url("a"));
    teardown.after(() => ws.close());
    ws.send(`{"text":"deep","gateway":"gw","Extra":${"[".repeat(5000)}`);
    await waitUntil(
      () =>
        bridge.logs.some((line) => line.includes("websocket frame rejected") && line.includes("nested deeper than 8")),
      { timeoutMs: 5_000, what: "the rejected frame's log line" },
    );
  });
});
