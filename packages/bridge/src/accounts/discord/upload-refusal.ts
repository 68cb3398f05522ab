// Whether Discord refused a message because of the files it carried, read from discord.js's DiscordAPIError (whose
// rawError is whatever body Discord, or a proxy in front of it, answered: any JSON, or bytes). Refusals: 413 or
// code 40005 "Request entity too large" (over the guild's upload limit), 403 code 50013 "Missing Permissions" on a
// message with files (the bot may send but not Attach Files), and a 400 "Invalid Form Body" whose errors name the
// files or attachments. Anything else is no refusal (the caller handles it as any failed send). Never throws.
import { DiscordAPIError } from "discord.js";

const REQUEST_TOO_LARGE = 40005;
const MISSING_PERMISSIONS = 50013;
const INVALID_FORM_BODY = 50035;

/** Why Discord refused the files of a send, or undefined when the error is not such a refusal. */
export function uploadRefusal(error: unknown): string | undefined {
  if (!(error instanceof DiscordAPIError)) return undefined;
  const status = error.status;
  const code = error.code;
  const body: unknown = error.rawError;
  const reason = `HTTP ${status}${typeof code === "number" ? `, code ${code}` : ""}: ${describe(body, status)}`;
  if (status === 413 || code === REQUEST_TOO_LARGE) return reason;
  if (status === 403 && code === MISSING_PERMISSIONS)
    return `${reason} (does the bot have Attach Files in the channel?)`;
  if (status === 400 && code === INVALID_FORM_BODY && namesFiles(body)) return reason;
  return undefined;
}

/** The body's message (and the first error under files or attachments), else the status's usual words. */
function describe(body: unknown, status: number): string {
  const message = isRecord(body) && typeof body["message"] === "string" ? body["message"] : "";
  const detail = isRecord(body) ? firstFileError(body["errors"]) : undefined;
  const words = message || (status === 413 ? "Request Entity Too Large" : "refused");
  return detail === undefined ? words : `${words}: ${detail}`;
}

/** Whether an "Invalid Form Body" errors tree has an entry for the files (files[n], attachments). */
function namesFiles(body: unknown): boolean {
  if (!isRecord(body) || !isRecord(body["errors"])) return false;
  return Object.keys(body["errors"]).some(isFileField);
}

function firstFileError(errors: unknown): string | undefined {
  if (!isRecord(errors)) return undefined;
  for (const [key, value] of Object.entries(errors)) {
    if (!isFileField(key)) continue;
    const found = firstErrorMessage(value, 0);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** The first `_errors[].message` in a subtree (bounded depth: the body is not trusted). */
function firstErrorMessage(node: unknown, depth: number): string | undefined {
  if (!isRecord(node) || depth > 4) return undefined;
  const errors = node["_errors"];
  if (Array.isArray(errors)) {
    for (const entry of errors) {
      if (isRecord(entry) && typeof entry["message"] === "string") return entry["message"];
    }
  }
  for (const [key, child] of Object.entries(node)) {
    if (key === "_errors") continue;
    const found = firstErrorMessage(child, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

const isFileField = (key: string): boolean => /^(files|attachments)\b/.test(key);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
