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
  discoInfo: "http://jabber.org/protocol/disco#info",
  discoItems: "http://jabber.org/protocol/disco#items",
  /** XEP-0004 data forms: a service's extended disco#info (XEP-0128), e.g. the upload service's max-file-size. */
  dataForms: "jabber:x:data",
  /** XEP-0363 HTTP File Upload. */
  httpUpload: "urn:xmpp:http:upload:0",
  /** XEP-0066 out-of-band data: the URL clients show a shared file by. */
  oob: "jabber:x:oob",
} as const;
