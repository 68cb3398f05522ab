// The `nctalk` protocol: a Nextcloud user (best one made for the bridge) in Talk conversations, through Talk's OCS
// chat API with long polling.
import { defineProtocol } from "../../config/descriptor.ts";
import { httpUrlProblem } from "../http-url.ts";
import { lazyConnection } from "../lazy-connection.ts";
import { NCTALK_KEYS } from "./keys.ts";
import { serverUrl } from "./server-url.ts";

export const nctalkProtocol = defineProtocol({
  name: "nctalk",
  keys: NCTALK_KEYS,
  unsupportedKeys: ["Debug"],
  validate(settings) {
    const problem = httpUrlProblem("Server", serverUrl(settings.Server), "https://cloud.example.org");
    return problem === undefined ? [] : [problem];
  },
  // Its client code is loaded on the first connect (see lazy-connection.ts).
  create: lazyConnection(() =>
    import("./nctalk-connection.ts").then((m) => (account, context) => new m.NctalkConnection(account, context)),
  ),
});
