import { extname } from "node:path";
import { Worker } from "node:worker_threads";

/**
 * Starts a worker thread on the module `name` next to `callerUrl` (pass `import.meta.url`), with the caller's own
 * extension: `.js` in the compiled dist/ the bins run, `.ts` when the gateway runs from its sources (tests), where the
 * thread registers tsx first, as the process did (Node 20 does not start a worker on a .ts file itself).
 */
export function startModuleWorker(callerUrl: string, name: string): Worker {
  const caller = new URL(callerUrl);
  const module = new URL(`./${name}${extname(caller.pathname)}`, caller).href;
  const load = `import(${JSON.stringify(module)})`;
  const source = module.endsWith(".ts")
    ? `import(${JSON.stringify(import.meta.resolve("tsx/esm/api"))}).then((api) => { api.register(); return ${load}; })`
    : load;
  return new Worker(source, { eval: true });
}
