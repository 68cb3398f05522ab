// Token counts at the provider (Anthropic's count_tokens, Gemini's countTokens). The gateway's own count (o200k) is an
// estimate of another tokenizer; a backend of the model that speaks the client's API counts exactly, for free. The
// backends routing would send the request to are asked in their order; the gateway counts locally when none of them
// can answer.
import type { IncomingHttpHeaders } from "node:http";
import type { FastifyReply } from "fastify";
import type { NativeApi, UpstreamReply } from "../backends/types.ts";
import type { ChatBody } from "../request/chat.ts";
import { chatRequirements } from "../routing/requirements.ts";
import type { GatewayContext } from "./context.ts";
import { decideOnceProbed } from "./decide-once-probed.ts";
import { routeControls } from "./route-controls.ts";

/** A count is a small call: a backend that takes longer is passed over for the local count. */
const COUNT_TIMEOUT_MS = 10_000;

export interface ProviderCount {
  /** The backend that counted. */
  backend: string;
  /** Its answer as the provider wrote it: the count, or its refusal of the request (a 4xx the client should see). */
  reply: UpstreamReply;
}

/** The count request of `api` for one backend's model. */
export interface CountCall {
  api: NativeApi;
  callFor(model: string): { path: string; body: string | Buffer };
  /** The client's headers the provider reads. */
  headers: Readonly<Record<string, string>>;
}

/** The count of the first backend that answers it, or undefined (no backend of that API, or none answered). */
export async function countAtProvider(
  context: GatewayContext,
  request: { id: string; headers: IncomingHttpHeaders },
  body: ChatBody,
  count: CountCall,
): Promise<ProviderCount | undefined> {
  const requested = body.model;
  const requirements = chatRequirements(body);
  requirements.api = count.api;
  const controls = routeControls(request.headers);
  const decide = () => context.router.decide(requested, requirements, context.registry, controls);
  const decision = await decideOnceProbed(decide, context.firstRound);
  // A backend at its concurrency limit can still count: counting takes none of its slots.
  const targets =
    decision.outcome === "route" ? decision.targets : decision.outcome === "at_capacity" ? decision.blocked : [];
  for (const target of targets) {
    const native = target.backend.backend.natives?.[count.api];
    if (native?.call === undefined) continue;
    const call = { ...count.callFor(target.model), headers: count.headers };
    try {
      const reply = await native.call(call, { requestId: request.id }, AbortSignal.timeout(COUNT_TIMEOUT_MS));
      // The provider's overload or rate limit, or its failure: the next backend, or the local count.
      if (reply.statusCode === 429 || reply.statusCode >= 500) continue;
      return { backend: target.backend.name, reply };
    } catch {
      // Unreachable or too slow: likewise.
    }
  }
  return undefined;
}

/** The provider's answer as it wrote it, naming the backend that counted. */
export function relayProviderCount(reply: FastifyReply, counted: ProviderCount): void {
  reply
    .code(counted.reply.statusCode)
    .header("x-request-id", String(reply.request.id))
    .header("x-gateway-backend", counted.backend)
    .type(counted.reply.contentType)
    .send(counted.reply.body);
}
