// The tokenizer thread (see tokens.ts): gpt-tokenizer's o200k tables (21 MB) live here, not in the event loop's
// heap, and counting a hostile text costs this thread's time, not the loop's.
import { parentPort } from "node:worker_threads";
import { countTokens } from "gpt-tokenizer";
import { countInPieces } from "./token-count.ts";

parentPort?.on("message", (text: string) => {
  parentPort?.postMessage(countInPieces(text, countTokens));
});
