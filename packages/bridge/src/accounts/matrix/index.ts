// The `matrix` protocol: a Matrix client on matrix-js-sdk that joins its gateway rooms (matrix-connection.ts).
import { defineProtocol } from "../../config/descriptor.ts";
import { lazyConnection } from "../lazy-connection.ts";
import { MATRIX_KEYS } from "./keys.ts";

export const matrixProtocol = defineProtocol({
  name: "matrix",
  keys: MATRIX_KEYS,
  // SpoofUsername changes the bot's display name in the room before every message: noisy, and racy across rooms.
  unsupportedKeys: ["SpoofUsername"],
  validate(settings) {
    const problems: string[] = [];
    let server: URL | undefined;
    try {
      server = new URL(settings.Server);
    } catch {
      server = undefined;
    }
    if (server === undefined || (server.protocol !== "https:" && server.protocol !== "http:")) {
      problems.push(
        `Server must be the homeserver's URL, e.g. "https://matrix.org" (got ${JSON.stringify(settings.Server)})`,
      );
    }
    const byToken = Boolean(settings.Token);
    const byPassword = settings.Login !== "" && Boolean(settings.Password);
    if (!byToken && !byPassword) {
      problems.push('set Login and Password, or Token (and MxID), e.g. Login = "bridgebot" and Password = "..."');
    }
    if (settings.MxID !== "" && !/^@[^:\s]+:\S+$/.test(settings.MxID)) {
      problems.push(`MxID must be a full user id like "@bridgebot:matrix.org" (got ${JSON.stringify(settings.MxID)})`);
    }
    return problems;
  },
  capabilities: { uploads: true },
  // Its client library is loaded on the first connect (see lazy-connection.ts).
  create: lazyConnection(() =>
    import("./matrix-connection.ts").then((m) => (account, context) => new m.MatrixConnection(account, context)),
  ),
});
