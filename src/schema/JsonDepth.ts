/**
 * How deep a JSON text nests, read before it is parsed: a value nested thousands deep is
 * refused as text, so that nothing recursive (a schema's error message formatting it, a log
 * line) ever walks it. Every JSON body Waymark and its connectors accept is checked this way.
 */

/** Arrays and objects inside each other that a request body may hold; no body needs more than a few. */
export const MAX_JSON_DEPTH = 32

/** True when `text` opens more than `max` arrays or objects inside each other (strings skipped). */
export const nestedDeeperThan = (text: string, max: number): boolean => {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 0x5c) i++ // backslash: the next character is escaped
      else if (c === 0x22) inString = false
    } else if (c === 0x22) {
      inString = true
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true
    } else if (c === 0x5d || c === 0x7d) {
      depth--
    }
  }
  return false
}
