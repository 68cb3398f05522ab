// A protocol is a self-describing module: accounts/<protocol>/index.ts exports one ProtocolDescriptor, and
// accounts/registry.ts lists them. The config reader checks the generic structure and the core keys, then hands each
// account's table to its descriptor's keys and `validate`; the bridge calls `create` for each account in use.
import type { Capabilities } from "../core/account.ts";
import type { Connection, ConnectionContext } from "../core/connection.ts";
import { CORE_KEYS, type CoreSettings } from "./core-keys.ts";
import type { KeySpecs, SettingsOf } from "./key-spec.ts";

/** An account's settings: the core keys and the protocol's own, each from the account, else [general], else default. */
export type AccountSettings<S extends KeySpecs = KeySpecs> = CoreSettings & SettingsOf<S>;

/** A validated account, as its descriptor's `validate` and `create` receive it. */
export interface AccountConfig<S extends KeySpecs = KeySpecs> {
  /** `<protocol>.<name>` as the gateways spell it; used in the `account` field of messages. */
  id: string;
  protocol: string;
  name: string;
  settings: AccountSettings<S>;
  descriptor: ProtocolDescriptor<S>;
}

export interface ProtocolDescriptor<S extends KeySpecs = KeySpecs> {
  /** The section name in the config: `[<name>.<account>]`, lower case, e.g. "irc". */
  readonly name: string;
  /** The protocol's own keys by their Matterbridge spelling (matched case-insensitively), built with `key.*`. */
  readonly keys: S;
  /** This protocol's defaults for core keys, e.g. IRC `{ MessageDelay: 1300, MessageQueue: 30 }`. */
  readonly defaults?: Partial<CoreSettings>;
  readonly capabilities?: Partial<Capabilities>;
  /**
   * Matterbridge keys of this protocol that Switchboard does not implement yet: a config using them gets a warning
   * saying so ("not supported yet") rather than "unknown key".
   */
  readonly unsupportedKeys?: readonly string[];
  /**
   * Checks beyond each key's kind and range (formats, combinations). Returns one text per problem, each naming its
   * key and saying what to write, without the account prefix (the reader adds `[<id>] `); empty when all is well.
   * Never put a secret's value in a text.
   */
  validate?(settings: AccountSettings<S>, account: { id: string }): readonly string[];
  /** Builds the account's connection; called once per account in use, at start-up. Must not do I/O yet. */
  create(account: AccountConfig<S>, context: ConnectionContext): Connection;
}

/** Identity function that infers `S` from the keys, so `validate` and `create` get typed settings. */
export function defineProtocol<const S extends KeySpecs>(descriptor: ProtocolDescriptor<S>): ProtocolDescriptor<S> {
  return descriptor;
}

const CORE_KEY_NAMES = new Set(Object.keys(CORE_KEYS).map((name) => name.toLowerCase()));

/** The protocols a bridge knows, by name. Immutable: `with()` returns a new registry (tests add protocols so). */
export class ProtocolRegistry {
  readonly #byName = new Map<string, ProtocolDescriptor>();

  constructor(descriptors: Iterable<ProtocolDescriptor>) {
    for (const descriptor of descriptors) {
      if (!/^[a-z][a-z0-9-]*$/.test(descriptor.name)) {
        throw new Error(`protocol name "${descriptor.name}" must be lower case letters, digits and dashes`);
      }
      if (this.#byName.has(descriptor.name)) throw new Error(`protocol "${descriptor.name}" is registered twice`);
      for (const name of Object.keys(descriptor.keys)) {
        if (CORE_KEY_NAMES.has(name.toLowerCase())) {
          throw new Error(
            `protocol "${descriptor.name}" declares the core key ${name}; set its default in \`defaults\``,
          );
        }
      }
      this.#byName.set(descriptor.name, descriptor as ProtocolDescriptor);
    }
  }

  get(name: string): ProtocolDescriptor | undefined {
    return this.#byName.get(name);
  }

  get names(): string[] {
    return [...this.#byName.keys()];
  }

  descriptors(): IterableIterator<ProtocolDescriptor> {
    return this.#byName.values();
  }

  /** A registry with these descriptors added (a descriptor with a registered name replaces it). */
  with(...descriptors: ProtocolDescriptor[]): ProtocolRegistry {
    const names = new Set(descriptors.map((d) => d.name));
    return new ProtocolRegistry([...[...this.#byName.values()].filter((d) => !names.has(d.name)), ...descriptors]);
  }
}
