// Room for the joined writes of raw answers (a head or chunk frame, the body, the frame's end in one buffer): slices
// of a shared slab, as Buffer.allocUnsafe slices its pool, but a larger one. An answer of a few kilobytes then costs
// a copy into memory that already exists, not a fresh ArrayBuffer (which, with its collection later, cost more than
// the writev of the three parts it saves: 3 µs against a slice's copy for a 5 kB event stream). A slice is never
// handed out twice: a write still in the kernel's queue keeps its slab alive, and a full slab is simply replaced.

/** Large enough that most joins share one; small enough that a slab kept by one slow client costs little. */
const SLAB_BYTES = 64 * 1024;
/** The largest join taken from a slab: a quarter, so that a slab is not replaced after a join or two. */
export const SLAB_JOIN_MAX_BYTES = SLAB_BYTES / 4;

let slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
let used = 0;

/** `size` bytes (at most SLAB_JOIN_MAX_BYTES) of the current slab, 8-byte aligned as Buffer's pool aligns. */
export function slabSlice(size: number): Buffer {
  if (used + size > SLAB_BYTES) {
    slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
    used = 0;
  }
  const slice = slab.subarray(used, used + size);
  used = (used + size + 7) & ~7;
  return slice;
}
