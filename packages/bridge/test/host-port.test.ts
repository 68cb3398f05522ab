import assert from "node:assert/strict";
import { createServer } from "node:net";
import { test } from "node:test";
import fc from "fast-check";
import { isHostPort, listenFailureReason, parseHostPort, showHostPort } from "../src/config/host-port.ts";

test("a valid address parses back to what shows it", () => {
  const host = fc.oneof(fc.ipV4(), fc.ipV6(), fc.domain());
  fc.assert(
    fc.property(host, fc.integer({ min: 0, max: 65535 }), (name, port) => {
      const text = showHostPort(name, port);
      assert.ok(isHostPort(text), text);
      assert.deepEqual(parseHostPort(text), { host: name, port });
    }),
  );
  assert.deepEqual(parseHostPort(":4242"), { host: "0.0.0.0", port: 4242 });
  assert.equal(isHostPort("127.0.0.1:65536"), false);
});

test("a listen failure says why in words, for each cause the operator can act on", async () => {
  const held = createServer();
  await new Promise<void>((resolve) => held.listen(0, "127.0.0.1", resolve));
  const { port } = held.address() as { port: number };
  const second = createServer();
  const error = await new Promise<Error>((resolve) => {
    second.once("error", resolve);
    second.listen(port, "127.0.0.1");
  });
  held.close();
  assert.equal(listenFailureReason(error), "is already in use");
  const coded = (code: string) => Object.assign(new Error(code), { code });
  assert.equal(listenFailureReason(coded("EADDRNOTAVAIL")), "is not an address of this machine");
  assert.equal(listenFailureReason(coded("EACCES")), "needs more privileges");
  assert.equal(listenFailureReason(coded("EMFILE")), "cannot be listened on (EMFILE)");
  assert.equal(listenFailureReason(new Error("odd")), "cannot be listened on (odd)");
});
