// RunCommands: raw lines sent after connecting; "{BOTNICK}" stands for the nick we actually got.

export function expandRunCommand(command: string, nick: string): string {
  return command.replaceAll("{BOTNICK}", nick);
}
