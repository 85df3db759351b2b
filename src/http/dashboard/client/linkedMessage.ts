import type { Child } from "./dom.ts"
import { h } from "./dom.ts"
import * as format from "./format.ts"

/**
 * An import's message with each activity it names (`"Name" of 2024-06-01 at 07:05
 * ("activity-…")`, as the importer writes it) turned into a link to that activity, its id left
 * out; the rest stays text.
 */

const NAMED = /"([^]*?)" of (\d{4}-\d{2}-\d{2}) at (\d{2}:\d{2}) \("(activity-[\w-]+)"\)/g

export const linkedMessage = (message: string): Array<Child> => {
  const parts: Array<Child> = []
  let from = 0
  for (const match of message.matchAll(NAMED)) {
    const [whole, name, day, time, id] = match as unknown as [string, string, string, string, string]
    parts.push(message.slice(from, match.index))
    parts.push(h("a", { href: `#/activity/${encodeURIComponent(id)}` }, `“${name}”`), ` of ${format.localDateTime(`${day}T${time}:00`)}`)
    from = match.index! + whole.length
  }
  parts.push(message.slice(from))
  // no empty text: a cell with no message stays empty
  return parts.filter((p) => p !== "")
}
