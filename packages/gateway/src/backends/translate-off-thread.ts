import { startModuleWorker } from "../threads/module-worker.ts";
import { bytesForWorker, SerialWorker } from "../threads/serial-worker.ts";
import type { RequestTranslation, TranslationReply } from "./request-translation.ts";

/**
 * The thread that parses and re-encodes large bodies for translated backends: parsing, translating and serialising a
 * prompt of megabytes would hold the event loop for tens of milliseconds.
 */
const translationThread = new SerialWorker<TranslationReply>(() =>
  startModuleWorker(import.meta.url, "translation-thread"),
);

/** Translates `raw` (an OpenAI chat body) on the translation thread. Rejects only when the thread itself failed. */
export function translateOffThread(raw: Buffer, translation: RequestTranslation<unknown>): Promise<TranslationReply> {
  const { bytes, transfer } = bytesForWorker(raw);
  const { module, exportName, options } = translation;
  return translationThread.run({ ...bytes, module, exportName, options }, transfer);
}
