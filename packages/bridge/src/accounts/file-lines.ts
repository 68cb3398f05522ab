// Attachments as Matterbridge shows them on platforms the bridge does not upload files to: one line per file with a
// URL, "comment : url" when it has a comment.
import type { Message } from "../message.ts";

export function fileLines(message: Message): string[] {
  const lines: string[] = [];
  for (const file of message.Extra?.file ?? []) {
    if (typeof file !== "object" || file === null) continue;
    const { URL: url, Comment: comment } = file as { URL?: unknown; Comment?: unknown };
    if (typeof url !== "string" || url === "") continue;
    lines.push(typeof comment === "string" && comment !== "" ? `${comment} : ${url}` : url);
  }
  return lines;
}
