// A file uploaded to a Slack channel with the current flow (files.upload is retired): files.getUploadURLExternal
// names a file id and an upload URL, the bytes are POSTed there, and files.completeUploadExternal shares the file in
// the channel (in a thread with thread_ts) with an initial comment. The share's timestamp, when Slack already
// reports it, is the message's id.
import type { WebClient } from "@slack/web-api";
import type { LocalFile } from "../../core/files/local-file.ts";
import { isFileRefusalStatus } from "../upload-fallback.ts";

const UPLOAD_TIMEOUT_MS = 60_000;

/** The upload service refused the bytes (HTTP 4xx): the file, not the connection, is the problem. */
export class UploadRefused extends Error {
  override readonly name = "UploadRefused";
}

export interface UploadTarget {
  channel: string;
  /** The thread to share it in ("" = the channel). */
  threadTs: string;
  /** Slack mrkdwn, already escaped ("" = none). */
  comment: string;
}

/** Uploads and shares `file`; resolves with the share's ts ("" when Slack does not say yet). */
export async function uploadToSlack(web: WebClient, file: LocalFile, target: UploadTarget): Promise<string> {
  const reserved = await web.files.getUploadURLExternal({ filename: file.name, length: file.size });
  if (!reserved.upload_url || !reserved.file_id) throw new Error("files.getUploadURLExternal gave no upload URL");
  const response = await fetch(reserved.upload_url, {
    method: "POST",
    body: await file.blob(),
    signal: AbortSignal.timeout(UPLOAD_TIMEOUT_MS),
  });
  await response.body?.cancel();
  if (isFileRefusalStatus(response.status)) throw new UploadRefused(`HTTP ${response.status}`);
  if (!response.ok) throw new Error(`the Slack upload service answered HTTP ${response.status}`);
  const destination =
    target.threadTs === ""
      ? { channel_id: target.channel }
      : { channel_id: target.channel, thread_ts: target.threadTs };
  const done = await web.files.completeUploadExternal({
    files: [{ id: reserved.file_id, title: file.name }],
    ...destination,
    ...(target.comment === "" ? {} : { initial_comment: target.comment }),
  });
  return shareTs(done.files?.[0]?.shares, target.channel);
}

/** shares.public|private[channel][0].ts of the completed file, "" when absent. */
function shareTs(shares: unknown, channel: string): string {
  if (typeof shares !== "object" || shares === null) return "";
  for (const scope of Object.values(shares as Record<string, unknown>)) {
    const list = (scope as Record<string, unknown> | null)?.[channel];
    const ts = Array.isArray(list) ? (list[0] as { ts?: unknown } | undefined)?.ts : undefined;
    if (typeof ts === "string") return ts;
  }
  return "";
}
