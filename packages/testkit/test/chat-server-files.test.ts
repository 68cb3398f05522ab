import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { requireBinary } from "../src/chat/server-files.ts";

describe("requireBinary", () => {
  it("finds an installed binary, in /usr/sbin too", () => {
    assert.match(requireBinary("sh", "dash"), /\/sh$/);
  });

  it("names the Debian package to install when the binary is missing", () => {
    assert.throws(
      () => requireBinary("no-such-ircd", "no-such-package"),
      /no-such-ircd is not installed.*"no-such-package".*apt-get install -y --no-install-recommends no-such-package/s,
    );
  });
});
