// XML namespaces of the XMPP extensions the bridge speaks.
export const NS = {
  muc: "http://jabber.org/protocol/muc",
  mucUser: "http://jabber.org/protocol/muc#user",
  /** XEP-0203 delayed delivery: history replayed by a room carries it. */
  delay: "urn:xmpp:delay",
  /** XEP-0091, the legacy delay element some servers still add. */
  legacyDelay: "jabber:x:delay",
  /** XEP-0308 last message correction. */
  correction: "urn:xmpp:message-correct:0",
  /** XEP-0359 unique and stable stanza ids (origin-id, stanza-id). */
  sid: "urn:xmpp:sid:0",
  stanzas: "urn:ietf:params:xml:ns:xmpp-stanzas",
} as const;
