import { z } from "zod";
import type { BackendModule } from "../module.ts";
import { GoogleBackend } from "./backend.ts";

/** `[[backends]]` keys of type "google". */
export const googleOptions = {
  /** The API version in the path (default v1beta, where function calling and system instructions live). */
  api_version: z
    .string()
    .regex(/^v\w+$/)
    .optional(),
};

export const google: BackendModule = {
  type: "google",
  kind: "cloud",
  options: googleOptions,
  requiresKey: true,
  create: (settings, context) => new GoogleBackend(settings, context),
};
