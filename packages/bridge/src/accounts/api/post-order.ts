// The posts of one connection are routed in the order the client sent them. A pipelined connection's posts take
// different paths: the raw ingress and node:http's fast path (fast-post.ts) route at the end of the poll phase,
// fastify after its own hooks and body parsing, a large body after a turn of its own (large-body-turns.ts). Left to
// themselves, a later post overtakes an earlier one. Matterbridge serves a connection's requests one after the other,
// so each post takes a place in its connection's line as its head is read (in the parser's order) and is routed only
// once every place before it has left.
import type { IncomingMessage, ServerResponse } from "node:http";

/** A post's place in the line of its connection. */
export interface Place {
  readonly line: Line;
  /** What routes the post, set once it is ready and waiting for the places before it. */
  run: (() => void) | undefined;
  left: boolean;
}

interface Line {
  readonly places: Place[];
  /** A run of this line is on the stack: the loop in advance() picks up what it makes ready. */
  advancing: boolean;
}

/** Whether every earlier place of the line has left (a post now would be routed at once). */
export function isFirst(place: Place): boolean {
  return place.line.places[0] === place;
}

/**
 * Runs `run` when every earlier place of the line has left (now, if they have, or if this one already left); the
 * caller then calls leave().
 */
export function whenFirst(place: Place, run: () => void): void {
  if (place.left) {
    run();
    return;
  }
  place.run = run;
  advance(place.line);
}

/**
 * The post is routed, refused, or its connection is gone: the places behind it may go on. One that leaves while it
 * waits (its connection closed) runs at once: with the connection gone there is no order left to keep.
 */
export function leave(place: Place): void {
  if (place.left) return;
  place.left = true;
  const run = place.run;
  place.run = undefined;
  run?.();
  advance(place.line);
}

/** Runs the waiting places at the head of the line, in order, until one is not ready or has not left yet. */
function advance(line: Line): void {
  if (line.advancing) return;
  line.advancing = true;
  try {
    const places = line.places;
    for (;;) {
      const head = places[0];
      if (head === undefined) return;
      if (head.left) {
        places.shift();
        continue;
      }
      const run = head.run;
      if (run === undefined) return;
      head.run = undefined;
      run();
      // A run that routes synchronously has left by now; one that routes later (fastify's) holds the line.
      if (!head.left) return;
    }
  } finally {
    line.advancing = false;
  }
}

/**
 * A fastify post's place rides on its request: a property costs less than a WeakMap entry, whose value V8's young
 * collections keep until a full one.
 */
const PLACE = Symbol("switchboard.postPlace");
type WithPlace = IncomingMessage & { [PLACE]?: Place };

/** The lines of an api account's connections. */
export class PostOrder {
  readonly #lines = new WeakMap<object, Line>();

  /** A post's head was read on `connection`: its place is behind every post read before it there. */
  join(connection: object): Place {
    let line = this.#lines.get(connection);
    if (line === undefined) {
      line = { places: [], advancing: false };
      this.#lines.set(connection, line);
    }
    const place: Place = { line, run: undefined, left: false };
    line.places.push(place);
    return place;
  }

  /**
   * A post handed to fastify. It leaves when it is routed (routeInTurn), answered without being routed (fastify's
   * refusals: leaveFastify from onSend), or when its connection closes.
   */
  joinFastify(request: IncomingMessage, response: ServerResponse): void {
    const place = this.join(request.socket);
    (request as WithPlace)[PLACE] = place;
    response.once("close", () => leave(place));
  }

  /** Routes a fastify post once the posts before it on its connection are routed. */
  routeInTurn<T>(request: IncomingMessage, route: () => T): T | Promise<T> {
    const place = (request as WithPlace)[PLACE];
    if (place === undefined || place.left) return route();
    const routeAndLeave = () => {
      try {
        return route();
      } finally {
        leave(place);
      }
    };
    if (isFirst(place)) return routeAndLeave();
    return new Promise<T>((resolve, reject) =>
      whenFirst(place, () => {
        try {
          resolve(routeAndLeave());
        } catch (error) {
          reject(error);
        }
      }),
    );
  }

  leaveFastify(request: IncomingMessage): void {
    const place = (request as WithPlace)[PLACE];
    if (place !== undefined) leave(place);
  }
}
