// What an account that posts, edits and deletes messages by id does with a delivery: a delete removes the bridge's
// copy when it knows it (a copy already gone is what a delete wants), a message carrying the id of the bridge's copy
// is an edit of it, anything else a new post. Events the platform does not show, and texts that come out blank,
// send nothing. The answer is the id of the copy, "" for none.
import { Events, type Message } from "../message.ts";

/** What most platforms show: every event but typing notices and file deletes. */
export const showsAllButTyping = (event: string): boolean => event !== Events.userTyping && event !== Events.fileDelete;

export interface DeliverySteps {
  shows(event: string): boolean;
  /** The text to send, made only when there is one to send. */
  text(): string;
  remove(id: string): Promise<unknown>;
  /** Whether a remove's failure says the copy is gone already. */
  alreadyGone(error: unknown): boolean;
  edit(id: string, text: string): Promise<unknown>;
  /** Posts the text; answers the new copy's id. */
  post(text: string): Promise<string>;
}

export async function sendBySteps(message: Message, steps: DeliverySteps): Promise<string> {
  if (!steps.shows(message.event)) return "";
  if (message.event === Events.msgDelete) {
    if (message.id === "") return "";
    try {
      await steps.remove(message.id);
    } catch (error) {
      if (!steps.alreadyGone(error)) throw error;
    }
    return "";
  }
  const text = steps.text();
  if (text.trim() === "") return "";
  if (message.id !== "") {
    await steps.edit(message.id, text);
    return message.id;
  }
  return steps.post(text);
}
