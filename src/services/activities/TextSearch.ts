/**
 * The list's word search: an activity matches when its name or description contains every
 * word of the query, whatever the case and accents ("Col du Galibier" is found by "galibier"
 * and by "côl"). SQLite's LIKE folds ASCII letters only, so the read connection compares with
 * this function instead.
 */

/** The SQL function `waymark_has_words(name, description, words)`: 1 when every word is found. */
export const HAS_WORDS_FUNCTION = "waymark_has_words"

/** Text as the search compares it: lower case, without accents. */
export const foldText = (text: string): string => text.normalize("NFD").replace(/\p{M}+/gu, "").toLowerCase()

const SEPARATOR = "\u0000"

/** The words of a query, folded, as the function's third argument; undefined when there are none. */
export const searchWordsParam = (query: string | undefined): string | undefined => {
  if (query === undefined) return undefined
  const words = foldText(query).split(/\s+/).filter((w) => w !== "")
  return words.length === 0 ? undefined : words.join(SEPARATOR)
}

export const hasWords = (name: unknown, description: unknown, words: unknown): number => {
  const text = foldText(`${typeof name === "string" ? name : ""}\n${typeof description === "string" ? description : ""}`)
  return String(words).split(SEPARATOR).every((word) => text.includes(word)) ? 1 : 0
}
