// The bridge's command line, the same for both entries: -version and -help answer at once, anything else runs the
// bridge with what `load` gives (launch.ts, the bin's: dist/bundle/run.cjs with V8's code cache; cli.ts, from the
// sources: the run.ts module). Loaded only to run: -version and -help stay as fast as bare node (the accounts pull
// in fastify, ws, zod, pino).
import { type CliArgs, parseArgs, USAGE, UsageError } from "./args.ts";
import type { runBridge } from "./run.ts";
import { VERSION } from "./version.ts";

const NAME = "switchboard-bridge";

export interface LoadedBridge {
  runBridge: typeof runBridge;
  /** Called once the api accounts listen (the bin's code cache is written a second later, or at exit). */
  answering?(): void;
}

function die(message: string, code: number): never {
  process.stderr.write(`${NAME}: ${message}\n`);
  process.exit(code);
}

export async function runCommandLine(argv: readonly string[], load: () => Promise<LoadedBridge>): Promise<void> {
  let args: CliArgs;
  try {
    args = parseArgs(argv);
  } catch (error) {
    if (error instanceof UsageError) die(`${error.message}\n${USAGE}`, 2);
    throw error;
  }
  if (args.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (args.version) {
    process.stdout.write(
      `${NAME} version ${VERSION} (matterbridge-compatible config and API) node ${process.version}\n`,
    );
    return;
  }
  const bridge = await load();
  await bridge.runBridge(args, { answering: () => bridge.answering?.() });
}
