// The `msteams` protocol: a Microsoft 365 user (best one made for the bridge) in a team's channels, through
// Microsoft Graph with delegated sign-in (the OAuth device-code flow), as Matterbridge's msteams bridge.
import { defineProtocol } from "../../config/descriptor.ts";
import { httpUrlProblem } from "../http-url.ts";
import { lazyConnection } from "../lazy-connection.ts";
import { MSTEAMS_KEYS } from "./keys.ts";

export const msteamsProtocol = defineProtocol({
  name: "msteams",
  keys: MSTEAMS_KEYS,
  unsupportedKeys: ["Debug"],
  validate(settings) {
    const problems: string[] = [];
    for (const [key, example] of [
      ["LoginURL", "https://login.microsoftonline.com"],
      ["GraphURL", "https://graph.microsoft.com"],
    ] as const) {
      const problem = httpUrlProblem(key, settings[key], example);
      if (problem !== undefined) problems.push(problem);
    }
    for (const key of ["TenantID", "ClientID", "TeamID"] as const) {
      if (settings[key].trim() === "") problems.push(`${key} must not be empty`);
    }
    return problems;
  },
  // Its client library is loaded on the first connect (see lazy-connection.ts).
  create: lazyConnection(() =>
    import("./msteams-connection.ts").then((m) => (account, context) => new m.MsteamsConnection(account, context)),
  ),
});
