/** The backend's bytes are not a valid HTTP/1.1 response; the connection cannot be trusted any more. */
export class MalformedResponse extends Error {
  override readonly name = "MalformedResponse";
}
