// Types for node-fetch 2.7 (grammy's transport on Node; it ships none), covering what Switchboard uses.
declare module "node-fetch" {
  import type { Readable } from "node:stream";

  export interface NodeFetchResponse {
    readonly status: number;
    readonly statusText: string;
    readonly headers: { get(name: string): string | null };
    readonly body: Readable;
    json(): Promise<unknown>;
  }

  export default function fetch(url: string, init?: Record<string, unknown>): Promise<NodeFetchResponse>;
}
