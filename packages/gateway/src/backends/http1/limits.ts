/** Bounds on what a backend can make the client buffer before any byte of body is relayed. */

/** A response head (status line and headers), and likewise a chunked body's trailers: Node's own default. */
export const MAX_HEAD_BYTES = 16 * 1024;
/** A chunk-size line with its extensions. */
export const MAX_CHUNK_LINE_BYTES = 4 * 1024;
