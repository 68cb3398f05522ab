// application/x-www-form-urlencoded messages (matterbabble and other clients post forms): the same field names as
// the JSON body, string values only. The number of fields is bounded before the body is split.
import { InboundError } from "./inbound-error.ts";
import { MAX_FORM_FIELDS } from "./limits.ts";

function bad(message: string): never {
  throw new InboundError(400, message);
}

/** The fields of a form body, by name as sent, in a prototype-free object (names are client data). */
export function parseFormBody(text: string): Record<string, string> {
  if (text.trim() === "") bad("empty body: send the fields text, username and gateway");
  let fields = 1;
  for (let amp = text.indexOf("&"); amp >= 0; amp = text.indexOf("&", amp + 1)) {
    if (++fields > MAX_FORM_FIELDS) bad(`form with more than ${MAX_FORM_FIELDS} fields; a message needs at most 7`);
  }
  const out: Record<string, string> = Object.create(null);
  for (const [name, value] of new URLSearchParams(text)) {
    if (name === "") continue;
    if (Object.hasOwn(out, name)) bad(`form field "${name}" is given more than once`);
    if (name.toLowerCase() === "extra") bad("Extra cannot be sent in a form: post files as JSON");
    out[name] = value;
  }
  return out;
}
