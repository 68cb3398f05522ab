// Mumble's control channel framing: each message is a 2-byte type, a 4-byte big-endian length, then that many bytes
// of protobuf (Mumble.proto). A FrameReader cuts the TLS byte stream into frames; it never decodes them.

/** Message type numbers of the control channel (the order of Mumble.proto's messages). */
export const PacketType = {
  Version: 0,
  UDPTunnel: 1,
  Authenticate: 2,
  Ping: 3,
  Reject: 4,
  ServerSync: 5,
  ChannelRemove: 6,
  ChannelState: 7,
  UserRemove: 8,
  UserState: 9,
  TextMessage: 11,
  PermissionDenied: 12,
  ServerConfig: 24,
} as const;

export interface Frame {
  type: number;
  payload: Uint8Array;
}

const HEADER = 6;
/**
 * Far above any control message a server sends (a text with an embedded image is bounded by its
 * image_message_length, 128 KiB by default); a longer length means the stream is not Mumble's or is corrupt.
 */
export const MAX_FRAME = 8 * 1024 * 1024;

export function encodeFrame(type: number, payload: Uint8Array): Buffer {
  const frame = Buffer.allocUnsafe(HEADER + payload.length);
  frame.writeUInt16BE(type, 0);
  frame.writeUInt32BE(payload.length, 2);
  frame.set(payload, HEADER);
  return frame;
}

export class FrameTooLarge extends Error {
  override readonly name = "FrameTooLarge";
}

/** Accumulates stream chunks and hands out whole frames in order. */
export class FrameReader {
  #buffer: Buffer = Buffer.alloc(0);

  /** Adds a chunk; returns the frames it completes. Throws FrameTooLarge when a header announces more than MAX_FRAME. */
  push(chunk: Uint8Array): Frame[] {
    this.#buffer = this.#buffer.length === 0 ? Buffer.from(chunk) : Buffer.concat([this.#buffer, chunk]);
    const frames: Frame[] = [];
    let offset = 0;
    while (this.#buffer.length - offset >= HEADER) {
      const type = this.#buffer.readUInt16BE(offset);
      const length = this.#buffer.readUInt32BE(offset + 2);
      if (length > MAX_FRAME) throw new FrameTooLarge(`a frame of type ${type} announces ${length} bytes`);
      if (this.#buffer.length - offset - HEADER < length) break;
      frames.push({ type, payload: this.#buffer.subarray(offset + HEADER, offset + HEADER + length) });
      offset += HEADER + length;
    }
    this.#buffer = this.#buffer.subarray(offset);
    return frames;
  }
}
