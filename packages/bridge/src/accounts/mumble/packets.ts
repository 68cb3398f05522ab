// The control messages the account reads and writes, decoded and encoded with the codecs generated from Mumble's
// published Mumble.proto (@tf2pickup-org/mumble-protocol). Decoding a frame never throws: a frame that is not valid
// protobuf, or lacks what the account needs from it, comes back as `malformed` with the reason.
import { thrownMessage } from "@switchboard/common";
import {
  Authenticate,
  ChannelRemove,
  ChannelState,
  PermissionDenied,
  Ping,
  Reject,
  ServerConfig,
  ServerSync,
  TextMessage,
  UserRemove,
  UserState,
  Version,
} from "@tf2pickup-org/mumble-protocol";
import { encodeFrame, type Frame, PacketType } from "./frames.ts";

export type Inbound =
  | { kind: "ServerSync"; session: number }
  | { kind: "ServerConfig"; messageLength?: number }
  | { kind: "Reject"; type: number; reason: string }
  | { kind: "ChannelState"; channelId: number; name?: string }
  | { kind: "ChannelRemove"; channelId: number }
  | { kind: "UserState"; session: number; name?: string; channelId?: number }
  | { kind: "UserRemove"; session: number; reason: string }
  | { kind: "TextMessage"; actor?: number; channelIds: number[]; html: string }
  | { kind: "PermissionDenied"; type: number; session?: number; channelId?: number; reason: string }
  | { kind: "ignored" }
  | { kind: "malformed"; reason: string };

const missing = (field: string, message: string): Inbound => ({
  kind: "malformed",
  reason: `${message} without ${field}`,
});

/** What one frame says, as far as the account cares. */
export function decodeFrame(frame: Frame): Inbound {
  try {
    return decode(frame);
  } catch (error) {
    return { kind: "malformed", reason: thrownMessage(error) };
  }
}

function decode({ type, payload }: Frame): Inbound {
  switch (type) {
    case PacketType.ServerSync: {
      const sync = ServerSync.fromBinary(payload);
      return sync.session === undefined
        ? missing("session", "ServerSync")
        : { kind: "ServerSync", session: sync.session };
    }
    case PacketType.ServerConfig:
      return { kind: "ServerConfig", messageLength: ServerConfig.fromBinary(payload).messageLength };
    case PacketType.Reject: {
      const reject = Reject.fromBinary(payload);
      return { kind: "Reject", type: reject.type ?? 0, reason: reject.reason ?? "" };
    }
    case PacketType.ChannelState: {
      const state = ChannelState.fromBinary(payload);
      if (state.channelId === undefined) return missing("channel_id", "ChannelState");
      return { kind: "ChannelState", channelId: state.channelId, name: state.name };
    }
    case PacketType.ChannelRemove:
      return { kind: "ChannelRemove", channelId: ChannelRemove.fromBinary(payload).channelId };
    case PacketType.UserState: {
      const state = UserState.fromBinary(payload);
      if (state.session === undefined) return missing("session", "UserState");
      return { kind: "UserState", session: state.session, name: state.name, channelId: state.channelId };
    }
    case PacketType.UserRemove: {
      const remove = UserRemove.fromBinary(payload);
      return { kind: "UserRemove", session: remove.session, reason: remove.reason ?? "" };
    }
    case PacketType.TextMessage: {
      const text = TextMessage.fromBinary(payload);
      return { kind: "TextMessage", actor: text.actor, channelIds: [...text.channelId], html: text.message };
    }
    case PacketType.PermissionDenied: {
      const denied = PermissionDenied.fromBinary(payload);
      return {
        kind: "PermissionDenied",
        type: denied.type ?? 0,
        session: denied.session,
        channelId: denied.channelId,
        reason: denied.reason ?? "",
      };
    }
    default:
      // Version, Ping answers, CryptSetup, codecs, ACLs, voice: nothing the text bridge uses.
      return { kind: "ignored" };
  }
}

/** Mumble 1.3.0 in the legacy version field (major << 16 | minor << 8 | patch): text messages, no voice. */
const CLIENT_VERSION = (1 << 16) | (3 << 8);

export function versionFrame(release: string): Buffer {
  return encodeFrame(
    PacketType.Version,
    Version.toBinary(Version.create({ versionV1: CLIENT_VERSION, release, os: process.platform })),
  );
}

export function authenticateFrame(username: string, password: string): Buffer {
  const message = Authenticate.create({ username, opus: true, ...(password === "" ? {} : { password }) });
  return encodeFrame(PacketType.Authenticate, Authenticate.toBinary(message));
}

export function pingFrame(now: number): Buffer {
  return encodeFrame(PacketType.Ping, Ping.toBinary(Ping.create({ timestamp: BigInt(now) })));
}

/** Moves our user to a channel, or (with `comment`) sets the comment others see on it. */
export function userStateFrame(session: number, change: { channelId?: number; comment?: string }): Buffer {
  return encodeFrame(PacketType.UserState, UserState.toBinary(UserState.create({ session, ...change })));
}

export function textMessageFrame(channelId: number, html: string): Buffer {
  return encodeFrame(
    PacketType.TextMessage,
    TextMessage.toBinary(TextMessage.create({ channelId: [channelId], message: html })),
  );
}
