// Matterbridge-compatible flags: -conf FILE, -debug, -version (Go style, one dash), also with two dashes and "=".

export interface CliArgs {
  conf: string;
  debug: boolean;
  version: boolean;
  help: boolean;
}

export class UsageError extends Error {}

export const USAGE = `usage: switchboard-bridge [-conf FILE] [-debug] [-version]
  -conf FILE   config file (default: matterbridge.toml in the working directory)
  -debug       debug logging (every routed message)
  -version     print the version and exit`;

const BOOLEAN_FLAGS = new Set(["debug", "version", "help", "h", "gops"]);

export function parseArgs(argv: readonly string[]): CliArgs {
  const args: CliArgs = { conf: "matterbridge.toml", debug: false, version: false, help: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    const match = /^--?([a-zA-Z]+)(?:=(.*))?$/.exec(arg);
    if (!match?.[1]) throw new UsageError(`unexpected argument "${arg}"`);
    const name = match[1].toLowerCase();
    const inline = match[2];
    if (name === "conf") {
      const value = inline ?? argv[++i];
      if (value === undefined || value === "") throw new UsageError("-conf needs a file name");
      args.conf = value;
    } else if (BOOLEAN_FLAGS.has(name)) {
      const on = inline === undefined || inline === "true" || inline === "1";
      if (inline !== undefined && !on && inline !== "false" && inline !== "0") {
        throw new UsageError(`-${name} takes no value other than true or false`);
      }
      if (name === "debug") args.debug = on;
      else if (name === "version") args.version = on;
      else if (name === "help" || name === "h") args.help = on;
      // -gops (Matterbridge's Go agent) has no meaning here; it is accepted so existing command lines keep working.
    } else {
      throw new UsageError(`unknown flag "${arg}"`);
    }
  }
  return args;
}
