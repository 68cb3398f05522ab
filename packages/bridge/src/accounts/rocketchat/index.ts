// The `rocketchat` protocol: a Rocket.Chat bot user on the REST API (sending) and the DDP realtime API (receiving),
// or Matterbridge's webhook mode (an incoming webhook sends, an outgoing webhook's calls receive), or one of each.
import { defineProtocol } from "../../config/descriptor.ts";
import { lazyConnection } from "../lazy-connection.ts";
import { ROCKETCHAT_KEYS } from "./keys.ts";
import { modeProblems } from "./modes.ts";
import { serverUrl } from "./server-url.ts";

export const rocketchatProtocol = defineProtocol({
  name: "rocketchat",
  keys: ROCKETCHAT_KEYS,
  unsupportedKeys: ["Debug"],
  validate(settings) {
    const problems = modeProblems(settings);
    // Without a login Server is optional (avatars' links); an empty one is named by modeProblems when needed.
    if (settings.Server.trim() === "") return problems;
    let url: URL | undefined;
    try {
      url = new URL(serverUrl(settings.Server, settings.NoTLS));
    } catch {}
    if (url === undefined || url.hostname === "") {
      problems.push(`Server must be a URL such as "https://chat.example.org" (got ${JSON.stringify(settings.Server)})`);
    }
    return problems;
  },
  // Its client code is loaded on the first connect (see lazy-connection.ts).
  create: lazyConnection(() =>
    import("./rocketchat-connection.ts").then(
      (m) => (account, context) => new m.RocketChatConnection(account, context),
    ),
  ),
});
