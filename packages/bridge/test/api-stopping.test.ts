// The api account while the bridge drains its queues at a stop: a post is refused with 503, Retry-After and the
// API's error envelope (and closes its connection); reads go on until the account disconnects.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { http, post, startBridge } from "./helpers.ts";

const CONFIG =
  `[api.a]\nBindAddress = "127.0.0.1:0"\n[api.b]\nBindAddress = "127.0.0.1:0"\n` +
  `[[gateway]]\nname = "g"\nenable = true\n[[gateway.inout]]\naccount = "api.a"\n[[gateway.inout]]\naccount = "api.b"\n`;

describe("api account while the bridge drains", () => {
  it("refuses posts with 503 and Retry-After in the error envelope; reads go on", async (t) => {
    const running = await startBridge(CONFIG, t);
    const a = running.url("api.a");
    const b = running.url("api.b");
    assert.equal((await post(a, { text: "before", username: "bob", gateway: "g" })).status, 200);

    running.bridge.stopAccepting(7);
    const refused = await post(a, { text: "late", username: "bob", gateway: "g" });
    assert.equal(refused.status, 503);
    assert.equal(refused.headers["retry-after"], "7");
    assert.equal(refused.headers.connection, "close");
    assert.match(String(refused.headers["content-type"]), /^application\/json/);
    assert.match((JSON.parse(refused.body) as { message: string }).message, /shutting down/);

    const read = await http(`${b}/api/messages`);
    assert.equal(read.status, 200);
    assert.deepEqual(
      (JSON.parse(read.body) as { text: string }[]).map((m) => m.text),
      ["before"],
      "what was delivered before the stop can still be collected",
    );
    assert.equal((await http(`${a}/api/health`)).status, 200);
  });
});
