// Attachments as Matterbridge shows them on platforms the bridge does not upload files to: one line per file with a
// URL, "comment : url" when it has a comment. Comments and URLs come from another platform: each line is made one
// plain line (control characters become spaces), as a line break in them would start a new line or an IRC command.
import type { Message } from "../message.ts";

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is replaced
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g;
const oneLine = (text: string): string => text.replace(CONTROLS, " ").trim();

export function fileLines(message: Message): string[] {
  const lines: string[] = [];
  for (const file of message.Extra?.file ?? []) {
    if (typeof file !== "object" || file === null) continue;
    const { URL: url, Comment: comment } = file as { URL?: unknown; Comment?: unknown };
    if (typeof url !== "string") continue;
    const link = oneLine(url);
    if (link === "") continue;
    lines.push(fileLine(link, typeof comment === "string" ? comment : ""));
  }
  return lines;
}

/** One file's line: "comment : url", or the URL alone. */
export function fileLine(url: string, comment: string): string {
  const note = oneLine(comment);
  return note !== "" ? `${note} : ${oneLine(url)}` : oneLine(url);
}
