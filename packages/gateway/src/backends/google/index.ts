import type { BackendModule } from "../module.ts";
import { GoogleBackend } from "./backend.ts";
import { googleOptions } from "./options.ts";

export const google: BackendModule = {
  type: "google",
  kind: "cloud",
  options: googleOptions,
  requiresKey: true,
  create: (settings, context) => new GoogleBackend(settings, context),
};
