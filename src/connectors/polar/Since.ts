import * as Duration from "effect/Duration"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { parseDuration } from "../../services/platform/Settings.ts"

/**
 * The SINCE setting: the oldest exercise worth delivering. A date (`2024-05-01`, midnight
 * UTC), an ISO instant (`2024-05-01T06:00:00Z`; without an offset it is UTC), a relative
 * offset back from now (`-30d`, `30d`, `720h`) or `now`. Relative values and `now` are
 * resolved once, when first used, and the result is remembered in the ledger.
 */
export type Since =
  | { readonly _tag: "Now"; readonly setting: string }
  | { readonly _tag: "Ago"; readonly setting: string; readonly duration: Duration.Duration }
  | { readonly _tag: "At"; readonly setting: string; readonly instant: number }

export const SINCE_EXPECTED = "must be a date (2024-05-01), an ISO instant, a relative offset (-30d, 720h) or now"

const DATE = /^\d{4}-\d{2}-\d{2}$/
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/i

export const parseSince = (raw: string): Either.Either<Since, string> => {
  const setting = raw.trim()
  if (setting.toLowerCase() === "now") return Either.right({ _tag: "Now", setting })
  if (DATE.test(setting) || INSTANT.test(setting)) {
    // Date.parse rolls 2024-02-31 over to March: the calendar date must read back as itself
    const day = setting.slice(0, 10)
    const dayValid = new Date(Date.parse(`${day}T00:00:00Z`) || 0).toISOString().slice(0, 10) === day
    const iso = DATE.test(setting) ? `${day}T00:00:00Z` : /(Z|[+-]\d{2}:?\d{2})$/i.test(setting) ? setting : `${setting}Z`
    const instant = Date.parse(iso)
    return dayValid && !Number.isNaN(instant) ? Either.right({ _tag: "At", setting, instant }) : Either.left(SINCE_EXPECTED)
  }
  // a relative offset needs a unit: a bare number would be ambiguous
  const relative = /^-?\s*(.+[a-z])$/i.exec(setting)
  if (relative) {
    const duration = parseDuration(relative[1]!)
    if (Option.isSome(duration)) return Either.right({ _tag: "Ago", setting, duration: duration.value })
  }
  return Either.left(SINCE_EXPECTED)
}

/** The instant (epoch ms) `since` stands for when resolved at `now`. */
export const resolveSince = (since: Since, now: number): number => {
  switch (since._tag) {
    case "Now":
      return now
    case "Ago":
      return now - Duration.toMillis(since.duration)
    case "At":
      return since.instant
  }
}
