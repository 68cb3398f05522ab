// The `api` protocol: Matterbridge's HTTP message API (shared/specs/chat-bridge-api.md). An api account is a server:
// connecting is listening, it has no channels to join, and sending pushes to its ring, streams and websockets.
import { defineProtocol } from "../../config/descriptor.ts";
import { ApiAccount } from "./api-account.ts";
import { API_KEYS } from "./keys.ts";

const BIND_ADDRESS = /^(\[[0-9a-fA-F:.]+\]|[^:\s]*):\d{1,5}$/;

export const apiProtocol = defineProtocol({
  name: "api",
  keys: API_KEYS,
  // Sends never fail nor wait; the queue only matters for ordering, so it never holds much.
  defaults: { MessageDelay: 0 },
  validate(settings) {
    const problems: string[] = [];
    const bind = settings.BindAddress;
    if (bind.trim() === "") problems.push('has no BindAddress; add e.g. BindAddress = "127.0.0.1:4242"');
    else if (!BIND_ADDRESS.test(bind) || Number(bind.slice(bind.lastIndexOf(":") + 1)) > 65535) {
      problems.push(`BindAddress must be <host>:<port>, e.g. "127.0.0.1:4242" (got ${JSON.stringify(bind)})`);
    }
    const token = settings.Token;
    if (token !== undefined && token !== token.trim()) {
      // A Bearer header value is trimmed by HTTP, so a token with outer whitespace could never match.
      problems.push("Token has leading or trailing whitespace, so no client could ever present it; remove it");
    }
    return problems;
  },
  create: (account, context) => new ApiAccount(account, context),
});
