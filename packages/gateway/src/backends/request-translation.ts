import type { ChatBody } from "../request/chat.ts";

/** A request in the provider's own format. */
export interface NativeRequest {
  /** Path below the backend's base URL (query included). */
  path: string;
  body: string | Buffer;
  stream: boolean;
}

/**
 * How a translated backend type turns an OpenAI chat request into its provider's: a pure function of the request and
 * plain options, exported by name from its module, so that the translation thread can import and run it too.
 */
export interface RequestTranslation<Options> {
  translate(request: ChatBody, options: Options): NativeRequest;
  /** `import.meta.url` of the module that exports `translate` as `exportName`. */
  module: string;
  exportName: string;
  /** Structured-cloneable: they travel to the translation thread. */
  options: Options;
}

/** What the response translation needs of the request: its top-level options, not its messages. */
export type RequestOptions = Pick<ChatBody, "model"> & Record<string, unknown>;

/** The translation thread's reply (see translation-thread.ts). */
export type TranslationReply =
  | { native: { path: string; stream: boolean; body: ArrayBuffer }; options: RequestOptions }
  | { refused: unknown }
  | { failed: string };

/** Fields of a request the response translators read (model name in answers, stream_options.include_usage). */
export const RESPONSE_FIELDS = ["model", "stream", "stream_options"] as const;
