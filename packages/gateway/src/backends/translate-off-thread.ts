import { extname } from "node:path";
import { Worker } from "node:worker_threads";
import { bytesForWorker, SerialWorker } from "../threads/serial-worker.ts";
import type { RequestTranslation, TranslationReply } from "./request-translation.ts";

/**
 * The thread that parses and re-encodes large bodies for translated backends: a 10 MB prompt costs the event loop
 * ~60 ms to parse, translate and serialise. Started from its module's URL; when the gateway runs from its TypeScript
 * sources (tests), the thread registers tsx first, as the process did.
 */
function startThread(): Worker {
  const own = new URL(import.meta.url);
  const thread = new URL(`./translation-thread${extname(own.pathname)}`, own).href;
  const load = `import(${JSON.stringify(thread)})`;
  const source = thread.endsWith(".ts")
    ? `import(${JSON.stringify(import.meta.resolve("tsx/esm/api"))}).then((api) => { api.register(); return ${load}; })`
    : load;
  return new Worker(source, { eval: true });
}

const translationThread = new SerialWorker<TranslationReply>(startThread);

/** Translates `raw` (an OpenAI chat body) on the translation thread. Rejects only when the thread itself failed. */
export function translateOffThread(raw: Buffer, translation: RequestTranslation<unknown>): Promise<TranslationReply> {
  const { bytes, transfer } = bytesForWorker(raw);
  const { module, exportName, options } = translation;
  return translationThread.run({ ...bytes, module, exportName, options }, transfer);
}
