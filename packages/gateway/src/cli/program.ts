// The command line: serve, the queries of a running gateway, keys, config init (commander). The bin runs it from its
// CommonJS bundle with V8's code cache (launch.ts, dist/bundle/program.cjs); cli.ts from the sources. Each command's
// module is imported when the command runs, so that the others start without it.
import { thrownMessage } from "@switchboard/common";
import { Command, Option } from "commander";
import { VERSION } from "../version.ts";
import type { CreateOptions, KeysOptions } from "./keys.ts";

const DEFAULT_URL = "http://127.0.0.1:8000";

function fail(message: string): never {
  process.stderr.write(`switchboard-gateway: ${message}\n`);
  process.exit(1);
}

async function guarded(action: () => Promise<void>): Promise<void> {
  try {
    await action();
  } catch (error) {
    // By name: the command modules are imported lazily, and their error classes need not be loaded to be told apart.
    if (error instanceof Error && (error.name === "ConfigError" || error.name === "QueryError")) fail(error.message);
    const listen = describeListenError(error);
    if (listen) fail(listen);
    fail(thrownMessage(error));
  }
}

/** A failed listen as one line naming the setting that changes it. */
function describeListenError(error: unknown): string | undefined {
  const { code, address, port } = error as NodeJS.ErrnoException & { address?: string; port?: number };
  const where = `${address ?? "?"}:${port ?? "?"}`;
  switch (code) {
    case "EADDRINUSE":
      return `cannot listen on ${where}: the port is already in use; choose another with --port (or NEXUS_PORT, or port in [server])`;
    case "EACCES":
      return `cannot listen on ${where}: permission denied; choose a port above 1023 with --port (or NEXUS_PORT, or port in [server])`;
    case "EADDRNOTAVAIL":
      return `cannot listen on ${where}: not an address of this machine; choose another with --host (or NEXUS_HOST, or host in [server])`;
    default:
      return undefined;
  }
}

export interface ProgramHooks {
  /** Called once `serve` listens (the bin writes V8's code cache a second later, or at exit). */
  served?(): void;
}

/** Runs the command line `argv` (process.argv: node, the script, then the arguments). */
export async function runProgram(argv: string[], hooks: ProgramHooks = {}): Promise<void> {
  const program = new Command("switchboard-gateway")
    .description("An OpenAI-compatible gateway in front of local and cloud LLM backends")
    .version(VERSION)
    .showHelpAfterError();

  program
    .command("serve")
    .description("run the gateway")
    .option(
      "-c, --config <file>",
      "configuration file (TOML, nexus.toml-compatible; env NEXUS_CONFIG; default ./gateway.toml when it exists)",
    )
    .option("-H, --host <host>", "address to listen on (env NEXUS_HOST)")
    .option("-p, --port <port>", "port to listen on (env NEXUS_PORT)")
    .addOption(
      new Option("-l, --log-level <level>", "log level (env NEXUS_LOG_LEVEL)").choices([
        "trace",
        "debug",
        "info",
        "warn",
        "error",
        "fatal",
        "silent",
      ]),
    )
    .action((options: { config?: string; host?: string; port?: string; logLevel?: string }) =>
      guarded(async () => {
        const { serveCommand } = await import("./serve.ts");
        await serveCommand(options);
        hooks.served?.();
      }),
    );

  const query = (name: string, description: string, run: (options: { url: string; json?: boolean }) => Promise<void>) =>
    program
      .command(name)
      .description(description)
      .option("--url <url>", "the running gateway", DEFAULT_URL)
      .option("--json", "print JSON instead of a table")
      .action((options: { url: string; json?: boolean }) => guarded(() => run(options)));

  query("backends", "list the backends of a running gateway with their health and load", async (options) => {
    const { backendsCommand } = await import("./query.ts");
    console.log(await backendsCommand(options));
  });
  query("models", "list the models a running gateway serves", async (options) => {
    const { modelsCommand } = await import("./query.ts");
    console.log(await modelsCommand(options));
  });
  query("health", "show a running gateway's health (exit 1 when unhealthy)", async (options) => {
    const { healthCommand } = await import("./query.ts");
    const { output, healthy } = await healthCommand(options);
    console.log(output);
    if (!healthy) process.exitCode = 1;
  });

  const keys = program
    .command("keys")
    .description("manage the virtual keys of a running gateway (needs its master key)");
  const keysCommand = (name: string, description: string) =>
    keys
      .command(name)
      .description(description)
      .option("--url <url>", "the running gateway", DEFAULT_URL)
      .option("--key-env <name>", "the environment variable holding the master key", "SWITCHBOARD_MASTER_KEY")
      .option("--json", "print JSON instead of a table");
  keysCommand("create", "make a key; its secret is printed once")
    .requiredOption("--name <name>", "a name for people, metrics and logs")
    .option("--models <list>", "models the key may use, comma-separated (default: all)")
    .option("--rpm <n>", "requests per minute")
    .option("--tpm <n>", "tokens per minute")
    .option("--max-concurrent <n>", "requests in flight at once")
    .option("--budget-usd <usd>", "spend limit")
    .option("--budget-period <period>", "daily, monthly or total (default monthly)")
    .option("--expires-at <time>", "ISO 8601 time after which the key is refused")
    .action((options: CreateOptions) =>
      guarded(async () => {
        const { createKeyCommand } = await import("./keys.ts");
        console.log(await createKeyCommand(options));
      }),
    );
  keysCommand("list", "list the keys with their limits and usage (never their secrets)").action(
    (options: KeysOptions) =>
      guarded(async () => {
        const { listKeysCommand } = await import("./keys.ts");
        console.log(await listKeysCommand(options));
      }),
  );
  keysCommand("revoke", "revoke a key (on every replica within a second)")
    .argument("<id>", "the key's id (key_…)")
    .action((id: string, options: KeysOptions) =>
      guarded(async () => {
        const { revokeKeyCommand } = await import("./keys.ts");
        console.log(await revokeKeyCommand(options, id));
      }),
    );

  program
    .command("config")
    .description("configuration helpers")
    .command("init")
    .description("write a commented example configuration")
    .option("-o, --output <file>", 'where to write it ("-" for stdout)', "gateway.toml")
    .option("-f, --force", "overwrite an existing file")
    .action((options: { output: string; force?: boolean }) =>
      guarded(async () => {
        const { configInitCommand } = await import("./config-init.ts");
        const message = configInitCommand(options.output, options.force === true);
        if (message) console.log(message);
      }),
    );

  await program.parseAsync(argv);
}
