// What a message with files becomes in a room: its text first (the message's own, then one line per file shown as a
// link: those the core relays as links and the uploads that fell back to theirs), then one message per uploaded
// file, whose body is its URL alone (with the same URL as out-of-band data), as clients need to show it inline.
import type { LocalFile } from "../../core/files/local-file.ts";
import { refusedFileLine } from "../upload-fallback.ts";

export interface FilePosts {
  /** The lines of the text message; empty when there is nothing to say but the files. */
  lines: string[];
  /** The GET URLs of the uploaded files, each sent as a message of its own. */
  urls: string[];
}

/**
 * `urls[i]` is the GET URL of `uploads[i]`, "" when it could not be uploaded (its link then goes in the text, when it
 * has one); `links` are the lines of the files the core relays as links.
 */
export function filePosts(
  text: string,
  links: readonly string[],
  uploads: readonly LocalFile[],
  urls: readonly string[],
): FilePosts {
  const lines = text === "" ? [] : [text];
  // An uploaded file's caption has no place in its own message (the body must be the URL alone).
  for (const [index, file] of uploads.entries()) {
    const caption = urls[index] === "" ? "" : oneLine(file.comment);
    if (caption !== "") lines.push(caption);
  }
  lines.push(...links);
  for (const [index, file] of uploads.entries()) {
    const line = urls[index] === "" ? refusedFileLine(file) : "";
    if (line !== "") lines.push(line);
  }
  return { lines, urls: urls.filter((url) => url !== "") };
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is replaced
const oneLine = (text: string): string => text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, " ").trim();
