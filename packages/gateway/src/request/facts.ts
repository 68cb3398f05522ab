import type { IncomingMessage } from "node:http";

/** The two APIs the pipeline serves. */
export type Endpoint = "chat" | "embeddings";
/** A request's place in the queue (X-Nexus-Priority). */
export type Priority = "high" | "normal";

/**
 * What the routes and the dispatch pipeline learn about a chat or embeddings request while it runs: the one record
 * its `request_completed` event (and through it the access log, history, stats and metrics) is built from.
 */
export interface RequestFacts {
  endpoint?: Endpoint;
  requestId?: string;
  /** The model as the client asked for it. */
  model?: string;
  stream?: boolean;
  priority?: Priority;
  /** The backend tried last (the one that answered, when one did), and the model sent to it. */
  backend?: string;
  backendModel?: string;
  routeReason?: string;
  /** The model tried last is a fallback for the one asked for. */
  fallback?: boolean;
  attempts?: number;
  queuedMs?: number;
  ttftMs?: number;
  promptTokens?: number;
  completionTokens?: number;
  /** The name of the virtual key the request came with (never the key itself). */
  keyName?: string;
  /** The last attempt answered but its stream broke off. */
  brokenStream?: boolean;
  /** The dispatch pipeline's run: the response may close before it has recorded the last attempt's facts. */
  dispatch?: Promise<unknown>;
}

/** The facts ride on the request itself: a property is cheaper than a WeakMap entry, looked up several times per request. */
const FACTS = Symbol("switchboard.requestFacts");

type WithFacts = IncomingMessage & { [FACTS]?: RequestFacts };

/**
 * A request's facts with every field there from the start: one object of one shape, where fields added one by one
 * as the request goes on moved it through a dozen shapes and grew its property store twice.
 */
function emptyFacts(): RequestFacts {
  return {
    endpoint: undefined,
    requestId: undefined,
    model: undefined,
    stream: undefined,
    priority: undefined,
    backend: undefined,
    backendModel: undefined,
    routeReason: undefined,
    fallback: undefined,
    attempts: undefined,
    queuedMs: undefined,
    ttftMs: undefined,
    promptTokens: undefined,
    completionTokens: undefined,
    keyName: undefined,
    brokenStream: undefined,
    dispatch: undefined,
  };
}

/** The facts object of a request, created on first use; routes and dispatchers fill it in. */
export function factsOf(request: IncomingMessage): RequestFacts {
  const carrier = request as WithFacts;
  let facts = carrier[FACTS];
  if (facts === undefined) {
    facts = emptyFacts();
    carrier[FACTS] = facts;
  }
  return facts;
}

export function knownFacts(request: IncomingMessage): RequestFacts | undefined {
  return (request as WithFacts)[FACTS];
}
