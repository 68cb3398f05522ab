// `Extra` of a posted message: null, or {"file": [FileInfo...]} as Matterbridge's API accepts it (issue #1993).
// Every entry is checked and normalised to Matterbridge's 8 FileInfo keys in their order; a bad entry is a 400
// (Matterbridge answers 500 or silently zeroes fields).
import type { MessageExtra } from "../../message.ts";
import { InboundError } from "./inbound-error.ts";
import { MAX_FILES } from "./limits.ts";

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function bad(message: string): never {
  throw new InboundError(400, message);
}

/** An own property only: names inherited from Object.prototype (constructor, toString...) are not fields. */
function own(entry: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(entry, key) ? entry[key] : undefined;
}

function optionalString(entry: Record<string, unknown>, key: string, where: string): string {
  const value = own(entry, key);
  if (value === undefined || value === null) return "";
  if (typeof value !== "string") bad(`${where}.${key} must be a string`);
  return value;
}

function fileInfo(entry: unknown, index: number): Record<string, unknown> {
  const where = `Extra.file[${index}]`;
  if (typeof entry !== "object" || entry === null || Array.isArray(entry)) bad(`${where} must be an object`);
  const fields = entry as Record<string, unknown>;
  const name = optionalString(fields, "Name", where);
  if (name === "") bad(`${where}.Name is required`);
  const url = optionalString(fields, "URL", where);
  const data = own(fields, "Data");
  if (data !== undefined && data !== null && (typeof data !== "string" || !BASE64.test(data))) {
    bad(`${where}.Data must be a base64 string`);
  }
  if ((data === undefined || data === null) && url === "") bad(`${where} needs Data (base64) or a URL`);
  const size = own(fields, "Size") ?? (typeof data === "string" ? Buffer.byteLength(data, "base64") : 0);
  if (typeof size !== "number" || !Number.isSafeInteger(size) || size < 0) bad(`${where}.Size must be a whole number`);
  const avatar = own(fields, "Avatar") ?? false;
  if (typeof avatar !== "boolean") bad(`${where}.Avatar must be true or false`);
  return {
    Name: name,
    Data: typeof data === "string" ? data : null,
    Comment: optionalString(fields, "Comment", where),
    URL: url,
    Size: size,
    Avatar: avatar,
    SHA: optionalString(fields, "SHA", where),
    NativeID: optionalString(fields, "NativeID", where),
  };
}

export function parseExtra(value: unknown): MessageExtra {
  if (value === undefined || value === null) return null;
  if (typeof value !== "object" || Array.isArray(value))
    bad('field "Extra" must be null or an object like {"file": [...]}');
  const out: Record<string, unknown[]> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (key !== "file") bad(`Extra.${key} is not accepted; only Extra.file (a list of files) is`);
    if (!Array.isArray(inner)) bad("Extra.file must be a list of files");
    if (inner.length > MAX_FILES) bad(`Extra.file has ${inner.length} entries; at most ${MAX_FILES} files per message`);
    if (inner.length > 0) out["file"] = inner.map(fileInfo);
  }
  return Object.keys(out).length > 0 ? out : null;
}
