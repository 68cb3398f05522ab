// The TLS side of a Mumble connection: the files the keys name, read at each connect (a renewed certificate is picked
// up by the next reconnect), and what a failed handshake means for the keys.
import { isIP } from "node:net";
import type { ConnectionOptions } from "node:tls";
import { AccountFailure } from "../../core/connection.ts";
import { readPemFile } from "../pem-file.ts";

export interface TlsSettings {
  TLSClientCertificate: string;
  TLSClientKey: string;
  TLSCACertificate: string;
  SkipTLSVerify: boolean;
}

export function tlsOptions(host: string, port: number, settings: TlsSettings): ConnectionOptions {
  const options: ConnectionOptions = { host, port, rejectUnauthorized: !settings.SkipTLSVerify };
  if (isIP(host) === 0) options.servername = host;
  if (settings.TLSClientCertificate !== "") {
    options.cert = readPemFile("TLSClientCertificate", settings.TLSClientCertificate);
    // A PEM holding both the certificate and its key is common; TLSClientKey is then not needed.
    options.key = readPemFile(
      settings.TLSClientKey === "" ? "TLSClientCertificate" : "TLSClientKey",
      settings.TLSClientKey || settings.TLSClientCertificate,
    );
  }
  if (settings.TLSCACertificate !== "") options.ca = readPemFile("TLSCACertificate", settings.TLSCACertificate);
  return options;
}

/** Node's codes for a server certificate that does not check out (retrying cannot help). */
const UNTRUSTED = /CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|ERR_TLS_CERT_ALTNAME_INVALID/;

/** A handshake error as the account reports it: an untrusted certificate names the keys that fix it. */
export function handshakeError(error: Error & { code?: string }): Error {
  if (error.code !== undefined && UNTRUSTED.test(error.code)) {
    return new AccountFailure(
      `the server's TLS certificate is not trusted (${error.code}: ${error.message}); ` +
        "set TLSCACertificate to the certificate (or its CA) or SkipTLSVerify = true",
    );
  }
  return error;
}
