/** Posted bodies at least this large wait for a loop turn of their own before they are parsed, routed and encoded. */
const LARGE_BODY_BYTES = 128 * 1024;

const waiting: (() => void)[] = [];
let scheduled = false;

/**
 * Handling a message of a few hundred KiB (parse, route, encode for every stream, encode the answer) takes
 * milliseconds, and the bodies of several clients often complete in the same event-loop turn: handled back to back,
 * they would hold the loop for tens of milliseconds. Large ones therefore go one per turn, in arrival order, with
 * timers and other clients served in between. Small bodies never wait. One queue for the process: one event loop.
 */
export function largeBodyTurn(bytes: number): Promise<void> | undefined {
  if (bytes < LARGE_BODY_BYTES) return undefined;
  return new Promise((resolve) => {
    waiting.push(resolve);
    if (!scheduled) {
      scheduled = true;
      setImmediate(releaseOne);
    }
  });
}

function releaseOne(): void {
  waiting.shift()?.();
  // Scheduled from inside the check phase, the next release runs in the next turn, after timers and I/O.
  if (waiting.length > 0) setImmediate(releaseOne);
  else scheduled = false;
}
