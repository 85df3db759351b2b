import * as Schema from "effect/Schema"
import { nestedDeeperThan } from "../../schema/JsonDepth.ts"

/**
 * Reading one POSTed event of the platform. Its events are flat objects of a few hundred bytes
 * (`updates` is the only nested member), so a body nested deeper than a few levels is not
 * one: it is refused before it is parsed, and never walked by anything recursive (logging
 * or re-serialising a 10,000-deep value overflows the stack).
 */

export const WEBHOOK_MAX_DEPTH = 16

/** The members of an event worth keeping and logging; everything else is dropped. */
export type EventSummary = {
  readonly object_type?: string
  readonly aspect_type?: string
  readonly object_id?: string | number
  readonly owner_id?: string | number
  readonly subscription_id?: string | number
  readonly event_time?: string | number
}

export type ReadEvent =
  | { readonly _tag: "Refused"; readonly message: string }
  | { readonly _tag: "Event"; readonly summary: EventSummary }

const SUMMARY_KEYS = ["object_type", "aspect_type", "object_id", "owner_id", "subscription_id", "event_time"] as const
const MAX_VALUE_LENGTH = 64

/** The known members of a parsed body, each a short string or a finite number. */
export const summarize = (value: Record<string, unknown>): EventSummary => {
  const summary: Record<string, string | number> = {}
  for (const key of SUMMARY_KEYS) {
    const v = value[key]
    if (typeof v === "string") summary[key] = v.length > MAX_VALUE_LENGTH ? `${v.slice(0, MAX_VALUE_LENGTH)}…` : v
    else if (typeof v === "number" && Number.isFinite(v)) summary[key] = v
  }
  return summary
}

const NOT_AN_EVENT = "The body is not an event: a JSON object with object_type, aspect_type and object_id is expected."

const EventFields = Schema.Struct({
  object_type: Schema.String,
  aspect_type: Schema.String,
  object_id: Schema.Union(Schema.Number, Schema.String)
})
const isEvent = Schema.is(EventFields)

/** Checks and parses a body already limited in size. */
export const readEvent = (text: string): ReadEvent => {
  if (nestedDeeperThan(text, WEBHOOK_MAX_DEPTH)) {
    return { _tag: "Refused", message: `The body is nested deeper than ${WEBHOOK_MAX_DEPTH} levels; it is not an event.` }
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return { _tag: "Refused", message: "The body is not valid JSON." }
  }
  if (value === null || typeof value !== "object" || Array.isArray(value) || !isEvent(value)) {
    return { _tag: "Refused", message: NOT_AN_EVENT }
  }
  return { _tag: "Event", summary: summarize(value as Record<string, unknown>) }
}
