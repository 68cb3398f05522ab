// Frames a Slack Socket Mode connection hands to @slack/socket-mode, checked first. The library (2.x) reads
// `frame.type` and, for events_api, `frame.payload.event.type` unguarded in an async handler: a frame that is `null`
// or an envelope whose event is not an object rejects there, and an unhandled rejection ends the process. So the
// library's own listener of its internal "ws_message" event is put behind a check: a frame that is not an object is
// dropped, an envelope without a readable event is passed on with a placeholder event (so it is still acknowledged
// and Slack does not send it again), each with the skipped-event log line; a throw inside is caught as well.
import type { SocketModeClient } from "@slack/socket-mode";
import { objectOf } from "../json-fields.ts";

/** The event type given to an envelope whose event could not be read; nothing handles it. */
const UNREADABLE_EVENT = "switchboard_unreadable";

type FrameListener = (data: unknown, isBinary: boolean) => unknown;

export function guardSocketFrames(socket: SocketModeClient, skip: (frame: unknown, reason: unknown) => void): void {
  const library = socket.listeners("ws_message") as FrameListener[];
  if (library.length === 0) return; // another version of the library: nothing to put a check in front of
  socket.removeAllListeners("ws_message");
  socket.on("ws_message", (data: unknown, isBinary: boolean) => {
    let passed = data;
    if (!isBinary) {
      const checked = checkedFrame(String(data));
      if (checked.problem !== undefined) skip(checked.shown, checked.problem);
      if (checked.frame === undefined) return;
      passed = checked.frame;
    }
    for (const listener of library) {
      try {
        Promise.resolve(listener(passed, isBinary)).catch((error: unknown) => skip(String(passed), error));
      } catch (error) {
        skip(String(passed), error);
      }
    }
  });
}

interface CheckedFrame {
  /** The frame to hand on (possibly repaired); undefined to drop it. */
  frame: string | undefined;
  problem?: string;
  /** What the log line shows of it. */
  shown?: unknown;
}

function checkedFrame(text: string): CheckedFrame {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { frame: text }; // the library logs and ignores what is not JSON
  }
  const frame = objectOf(parsed);
  if (frame === undefined) return { frame: undefined, problem: "the frame is not an object", shown: parsed };
  if (frame.type !== "events_api") return { frame: text };
  const payload = objectOf(frame.payload);
  if (payload !== undefined && objectOf(payload.event) !== undefined) return { frame: text };
  const repaired = { ...frame, payload: { ...payload, event: { type: UNREADABLE_EVENT } } };
  return { frame: JSON.stringify(repaired), problem: "the envelope has no event object", shown: payload?.event };
}
