import type { ChatMessage } from "../../request/chat.ts";
import { openAiEnvelope } from "../../request/errors.ts";
import type { AnswerFormat } from "../translating-writer.ts";
import { assistantMessageOf, type OutputItem, outputOf, type ResponseDraft, statusOf } from "./response.ts";
import type { ResponseStore } from "./store.ts";
import { ResponsesStream } from "./stream.ts";

/**
 * The answer format of POST /v1/responses. When the response is to be kept, it is stored as it completes, with the
 * conversation so far (`history`: the previous response's and this request's input) and its own output.
 */
export function responsesFormat(
  draft: ResponseDraft,
  history: ChatMessage[],
  store: ResponseStore | undefined,
  onStoreFailed: (error: unknown) => void,
): AnswerFormat {
  const keep = (response: Record<string, unknown>, output: OutputItem[]) => {
    if (store === undefined) return;
    const stored = { response, history: [...history, assistantMessageOf(output)] };
    store.put(draft.id, stored).catch(onStoreFailed);
  };
  return {
    streamType: "text/event-stream; charset=utf-8",
    stream: () => new ResponsesStream(draft, keep),
    completion: (completion) => {
      const output = outputOf(completion);
      const status = statusOf(completion.choices?.[0]?.finish_reason);
      const response = draft.object(
        status,
        output,
        completion.usage ?? undefined,
        completion.model ?? draft.echo.model,
      );
      keep(response, output);
      return response;
    },
    envelope: openAiEnvelope,
  };
}
