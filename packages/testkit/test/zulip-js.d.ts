// The part of zulip-js (untyped CommonJS) the simulator's test uses: every call answers Zulip's JSON as is.
declare module "zulip-js" {
  type Params = Record<string, unknown>;
  type Answer = Promise<Record<string, unknown> & { result: string; msg: string; code?: string }>;
  export interface ZulipClient {
    users: { me: { getProfile(): Answer } };
    queues: { register(params: Params): Answer; deregister(params: Params): Answer };
    events: { retrieve(params: Params): Answer };
    messages: {
      send(params: Params): Answer;
      retrieve(params: Params): Answer;
      update(params: Params): Answer;
      deleteById(params: Params): Answer;
      getById(params: Params): Answer;
    };
    streams: { getStreamId(name: string): Answer };
    callEndpoint(endpoint: string, method?: string, params?: Params): Answer;
  }
  export default function zulip(config: { username: string; apiKey: string; realm: string }): Promise<ZulipClient>;
}
