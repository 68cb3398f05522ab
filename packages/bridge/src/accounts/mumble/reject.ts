// The server's Reject (it refuses the login) as the account reports it: what retrying cannot fix is an AccountFailure
// naming the key to change; a name still held by our previous session, or a full server, is worth another attempt.
import { AccountFailure } from "../../core/connection.ts";

/** Mumble.proto Reject.RejectType. */
const RejectType = {
  WrongVersion: 1,
  InvalidUsername: 2,
  WrongUserPW: 3,
  WrongServerPW: 4,
  UsernameInUse: 5,
  ServerFull: 6,
  NoCertificate: 7,
  AuthenticatorFail: 8,
} as const;

export function rejectError(type: number, reason: string): Error {
  const said = reason === "" ? "" : `: ${reason}`;
  switch (type) {
    case RejectType.WrongServerPW:
      return new AccountFailure(`the server refused the password (Password)${said}`);
    case RejectType.WrongUserPW:
    case RejectType.AuthenticatorFail:
      return new AccountFailure(
        `the server refused the login of Nick, a registered user (Password, TLSClientCertificate)${said}`,
      );
    case RejectType.InvalidUsername:
      return new AccountFailure(`the server refuses the user name in Nick${said}`);
    case RejectType.NoCertificate:
      return new AccountFailure(`the server requires a client certificate (TLSClientCertificate)${said}`);
    case RejectType.WrongVersion:
      return new AccountFailure(`the server refuses this client's protocol version${said}`);
    default:
      // UsernameInUse (our previous session, until the server times it out), ServerFull, or unknown.
      return new Error(`the server refused the login${said}`);
  }
}
