// A message with files for a room. The files are uploaded first (HttpUploads); then the text goes out: the message's
// own, then one line per file shown as a link (those the core relays as links, and the uploads that fell back to
// theirs); then one message per uploaded file, whose body is its URL alone (with the same URL as out-of-band data),
// as clients need to show it inline. Each delivery's progress is kept: a retried one uploads and posts nothing twice.
import type { Client } from "@xmpp/client";
import type { Delivery } from "../../core/account.ts";
import type { LocalFile } from "../../core/files/local-file.ts";
import type { Message } from "../../message.ts";
import { refusedFileLine } from "../upload-fallback.ts";
import type { HttpUploads } from "./http-uploads.ts";
import { fileMessage, groupchatMessage } from "./outgoing.ts";

interface FilePosts {
  /** The lines of the text message; empty when there is nothing to say but the files. */
  lines: string[];
  /** The GET URLs of the uploaded files, each sent as a message of its own. */
  urls: string[];
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is replaced
const oneLine = (text: string): string => text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, " ").trim();

/**
 * `urls[i]` is the GET URL of `uploads[i]`, "" when it could not be uploaded (its link then goes in the text, when it
 * has one); `links` are the lines of the files the core relays as links.
 */
function filePosts(
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

/** What the connection lends: its formatting of a text body, its stanza ids and its pacing. */
interface RoomPosting {
  /** The body of a text message: the formatted username, then the lines. */
  body(message: Message, lines: readonly string[]): string;
  /** A new stanza id, remembered as the bridge's own. */
  newId(): string;
  /** Waits for the next MessageDelay slot (before each stanza after the first). */
  pace(): Promise<void>;
}

export class FileDeliveries {
  readonly #posting: RoomPosting;
  /** Per delivery: each file's GET URL ("" = sent as its link) and the ids of the stanzas sent. */
  readonly #progress = new WeakMap<Delivery, { urls: string[]; ids: string[] }>();

  constructor(posting: RoomPosting) {
    this.#posting = posting;
  }

  /** Sends the delivery to `room`; resolves with the text's id, else the first file's ("" when nothing went). */
  async send(
    xmpp: Client,
    uploader: HttpUploads,
    room: string,
    delivery: Delivery,
    links: readonly string[],
  ): Promise<string> {
    const uploads = delivery.uploads ?? [];
    const progress = this.#progress.get(delivery) ?? { urls: [], ids: [] };
    this.#progress.set(delivery, progress);
    for (const file of uploads.slice(progress.urls.length)) progress.urls.push((await uploader.upload(file)) ?? "");
    const posts = filePosts(delivery.message.text, links, uploads, progress.urls);
    // Without text the room is still told who sent the files: the formatted username alone.
    const nothing = posts.lines.length === 0 && posts.urls.length === 0;
    const text = nothing ? "" : this.#posting.body(delivery.message, posts.lines);
    const stanzas = [
      ...(text.trim() === "" ? [] : [(id: string) => groupchatMessage({ room, text, id })]),
      ...posts.urls.map((url) => (id: string) => fileMessage({ room, url, id })),
    ];
    for (const [index, stanza] of stanzas.entries()) {
      if (index < progress.ids.length) continue;
      if (index > 0) await this.#posting.pace();
      const id = this.#posting.newId();
      await xmpp.send(stanza(id));
      progress.ids.push(id);
    }
    return progress.ids[0] ?? "";
  }
}
