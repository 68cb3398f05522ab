import { existsSync, writeFileSync } from "node:fs";
import { EXAMPLE_CONFIG } from "../config/example.ts";

/** `config init`: writes the commented example (to stdout with "-"); refuses to overwrite without --force. */
export function configInitCommand(output: string, force: boolean): string {
  if (output === "-") {
    process.stdout.write(EXAMPLE_CONFIG);
    return "";
  }
  if (existsSync(output) && !force) throw new Error(`${output} already exists; use --force to overwrite it`);
  writeFileSync(output, EXAMPLE_CONFIG);
  const next = output === "gateway.toml" ? "switchboard-gateway serve" : `switchboard-gateway serve -c ${output}`;
  return `wrote ${output}; edit its [[backends]], then start the gateway with:\n  ${next}`;
}
