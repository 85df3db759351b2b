import type * as ParseResult from "effect/ParseResult"
import { truncateText } from "../../schema/ActivityLimits.ts"

/**
 * One line saying what is wrong with a value a schema refused: where (its path), what was
 * expected, and what was there, described by its kind and size, never written out. The
 * schema's own formatters print the offending value whole, and recursively: a cloud's answer
 * or a damaged file may be megabytes long or nested thousands deep, which would make the
 * message as long, or overflow the stack while it is made.
 */

export const MAX_PARSE_ERROR_LENGTH = 300

const MAX_KEYS_NAMED = 5
const MAX_SHORT = 40

/** A value as a few words: a short scalar as written, a string cut short, an array or object by its size. */
export const previewOf = (value: unknown): string => {
  if (value === null || value === undefined || typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") {
    return String(value)
  }
  if (typeof value === "string") return JSON.stringify(truncateText(value, MAX_SHORT))
  if (Array.isArray(value)) return `an array of ${value.length} item${value.length === 1 ? "" : "s"}`
  if (typeof value === "object") {
    const keys = Object.keys(value)
    const named = keys.slice(0, MAX_KEYS_NAMED).map((k) => JSON.stringify(truncateText(k, MAX_SHORT))).join(", ")
    return keys.length === 0
      ? "an empty object"
      : `an object with ${keys.length === 1 ? "the key" : `${keys.length} keys:`} ${named}${keys.length > MAX_KEYS_NAMED ? ", ..." : ""}`
  }
  return typeof value
}

const pathText = (path: ReadonlyArray<PropertyKey>) =>
  path.length === 0 ? "the value" : path.map((key) => (typeof key === "number" ? `[${key}]` : `.${String(key)}`)).join("").replace(/^\./, "")

/** The first problem of `error`, in at most `max` characters. */
export const describeParseError = (error: ParseResult.ParseError, max: number = MAX_PARSE_ERROR_LENGTH): string => {
  const path: Array<PropertyKey> = []
  let issue: ParseResult.ParseIssue = error.issue
  // down to the first leaf, iteratively: the tree is as deep as the value
  while (true) {
    if (issue._tag === "Pointer") {
      path.push(...(Array.isArray(issue.path) ? issue.path : [issue.path as PropertyKey]))
      issue = issue.issue
    } else if (issue._tag === "Refinement" || issue._tag === "Transformation") {
      issue = issue.issue
    } else if (issue._tag === "Composite") {
      issue = Array.isArray(issue.issues) ? issue.issues[0]! : issue.issues as ParseResult.ParseIssue
    } else {
      break
    }
  }
  const where = pathText(path)
  const text = (() => {
    switch (issue._tag) {
      case "Missing":
        return `${where} is missing`
      case "Unexpected":
        return `${where} is not expected (${previewOf(issue.actual)})`
      case "Type":
      case "Forbidden":
        return `${where}: expected ${truncateText(String(issue.ast), 80)}, got ${previewOf(issue.actual)}`
    }
  })()
  return truncateText(text, max)
}
