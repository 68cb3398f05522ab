// Ollama's own /api/show for a model an ollama backend serves: its template, parameters, capabilities (thinking,
// insert) and model_info, which the fleet's facts do not hold. Clients read them to decide what to send (a template
// that takes a suffix says fill-in-the-middle works; `thinking` offers the think switch).
import type { UpstreamReply } from "../backends/types.ts";
import type { BackendState } from "../fleet/backend-state.ts";

/** Show is a small call: a backend that takes longer is passed over for the fleet's own facts. */
const SHOW_TIMEOUT_MS = 5_000;

export interface OllamaShow {
  backend: string;
  reply: UpstreamReply;
}

/** The first healthy ollama backend's 200 answer for `model`, or undefined (none serves it, or none answered). */
export async function showAtOllama(
  backends: Iterable<BackendState>,
  model: string,
  body: Buffer | string,
  requestId: string,
): Promise<OllamaShow | undefined> {
  for (const state of backends) {
    const native = state.backend.natives?.ollama;
    if (!state.healthy || !state.modelsById.has(model) || native?.call === undefined) continue;
    try {
      const call = { path: "/api/show", body, headers: {} };
      const reply = await native.call(call, { requestId }, AbortSignal.timeout(SHOW_TIMEOUT_MS));
      if (reply.statusCode === 200) return { backend: state.name, reply };
    } catch {
      // Unreachable or too slow: the next one, or the fleet's facts.
    }
  }
  return undefined;
}
