import * as z from "zod";

/** `[[backends]]` keys of type "google". */
export const googleOptions = {
  /** The API version in the path (default v1beta, where function calling and system instructions live). */
  api_version: z
    .string()
    .regex(/^v\w+$/)
    .optional(),
};
