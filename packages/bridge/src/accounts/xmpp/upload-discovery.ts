// Finding the server's HTTP File Upload service (XEP-0363 §2): the server's domain itself, or one of the items its
// disco#items lists, has the feature urn:xmpp:http:upload:0 in its disco#info, whose data form may give the largest
// file it takes (max-file-size). The replies come from the server: read defensively, and bounded in number.
import xml, { type Element } from "@xmpp/xml";
import { NS } from "./namespaces.ts";

export interface UploadService {
  /** The service's JID, where slot requests go (e.g. "upload.example.org"). */
  jid: string;
  /** The largest file it takes, in bytes; undefined when it does not say. */
  maxFileSize: number | undefined;
}

/** Sends an IQ get with `payload` to `to`: resolves with the reply, rejects on an error reply or when none comes. */
export type IqGet = (to: string, payload: Element) => Promise<Element>;

/** Items asked about at most (a server lists its components: a handful). */
const MAX_ITEMS = 20;
/** RFC 7622: a JID is at most 3 × 1023 bytes; none has white space or control characters. */
const JID = /^[^\s\p{Cc}]{1,3071}$/u;
/** A size in bytes, as a JavaScript number holds it exactly. */
const SIZE = /^\d{1,15}$/;

const attr = (element: Element | undefined, name: string): string | undefined => {
  const value = element?.attrs[name];
  return typeof value === "string" ? value : undefined;
};

/** The JIDs a disco#items reply lists (items with a node are parts of an entity, not services), at most 20. */
export function parseDiscoItems(reply: Element): string[] {
  const query = reply.getChild("query", NS.discoItems);
  const jids = new Set<string>();
  for (const item of query?.getChildren("item") ?? []) {
    const jid = attr(item, "jid");
    if (jid === undefined || attr(item, "node") !== undefined || !JID.test(jid)) continue;
    jids.add(jid);
    if (jids.size >= MAX_ITEMS) break;
  }
  return [...jids];
}

/** From a disco#info reply: the upload service's limit, or undefined when it has no HTTP File Upload feature. */
export function parseUploadInfo(reply: Element): { maxFileSize: number | undefined } | undefined {
  const query = reply.getChild("query", NS.discoInfo);
  if (query === undefined) return undefined;
  if (!query.getChildren("feature").some((feature) => attr(feature, "var") === NS.httpUpload)) return undefined;
  const form = query.getChildren("x", NS.dataForms).find((x) => fieldValue(x, "FORM_TYPE") === NS.httpUpload);
  const max = form === undefined ? undefined : fieldValue(form, "max-file-size")?.trim();
  return { maxFileSize: max !== undefined && SIZE.test(max) ? Number(max) : undefined };
}

function fieldValue(form: Element, name: string): string | undefined {
  const field = form.getChildren("field").find((candidate) => attr(candidate, "var") === name);
  return field?.getChild("value")?.text();
}

const infoQuery = () => xml("query", { xmlns: NS.discoInfo });
const itemsQuery = () => xml("query", { xmlns: NS.discoItems });

/** The upload service of the server at `domain`, or undefined when it offers none (or does not answer). */
export async function discoverUploadService(get: IqGet, domain: string): Promise<UploadService | undefined> {
  const info = async (jid: string) => {
    try {
      return parseUploadInfo(await get(jid, infoQuery()));
    } catch {
      return undefined;
    }
  };
  const own = await info(domain);
  if (own !== undefined) return { jid: domain, ...own };
  let items: string[];
  try {
    items = parseDiscoItems(await get(domain, itemsQuery())).filter((jid) => jid !== domain);
  } catch {
    return undefined;
  }
  // Asked all at once: each answer is bounded by the IQ's own timeout.
  const infos = await Promise.all(items.map(info));
  const index = infos.findIndex((found) => found !== undefined);
  const found = infos[index];
  return found === undefined ? undefined : { jid: items[index] as string, ...found };
}
