// The `zulip` protocol: a Zulip bot on the REST API and the real-time events API (a registered event queue, long-polled).
import { defineProtocol } from "../../config/descriptor.ts";
import { httpUrlProblem } from "../http-url.ts";
import { lazyConnection } from "../lazy-connection.ts";
import { ZULIP_KEYS } from "./keys.ts";

export const zulipProtocol = defineProtocol({
  name: "zulip",
  keys: ZULIP_KEYS,
  unsupportedKeys: ["Debug"],
  validate(settings) {
    const problem = httpUrlProblem("Server", settings.Server.trim(), "https://yourorg.zulipchat.com");
    return problem === undefined ? [] : [problem];
  },
  // Its client library is loaded on the first connect (see lazy-connection.ts).
  create: lazyConnection(() =>
    import("./zulip-connection.ts").then((m) => (account, context) => new m.ZulipConnection(account, context)),
  ),
});
