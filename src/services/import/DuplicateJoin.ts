import type { ActivitySummary } from "../../schema/ActivityFields.ts"
import { SPORT_TYPES } from "../../schema/SportType.ts"
import { sportWords } from "./parsers/sportNames.ts"

/**
 * What a second copy of an activity (a Garmin export and a Strava export of the same ride; two
 * files of one ride) brings to the activity stored first, when it is skipped as its duplicate:
 * what the kept activity has none of. Its gear and description where it has none, its name where
 * the kept one is a name nobody wrote ("Morning Ride", Garmin's "Lisbon Running"), its commute
 * flag, and its photos where the kept one has none (the same export dropped twice does not
 * double them). A field the athlete set by hand is never replaced.
 */

/** What the skipped copy says about the activity (its file, its export and its export's summary). */
export interface CopyFacts {
  readonly name: string | null
  readonly description: string | null
  readonly gearId: string | null
  readonly isCommute: boolean
  /** how many photos it brings */
  readonly photos: number
}

/** The kept activity as stored, and the fields of it the athlete set by hand. */
export interface KeptFacts {
  readonly name: string
  readonly description: string | null
  readonly gearId: string | null
  readonly isCommute: boolean
  /** how many photos it has */
  readonly photos: number
  readonly edited: ReadonlyArray<string>
}

const PERIODS = ["Morning", "Lunch", "Afternoon", "Evening", "Night"]
/** Strava's words for the sports of its automatic names that are no sport type's words here. */
const STRAVA_WORDS = ["Activity", "Weight Training", "E-Bike Ride", "E-Mountain Bike Ride"]
/** The activity types Garmin Connect ends its automatic names with, after the place ("Lisbon Running"). */
const GARMIN_TYPES = [
  "Running", "Trail Running", "Treadmill Running", "Track Running", "Indoor Running", "Virtual Running", "Cycling", "Road Cycling", "Gravel Cycling",
  "Mountain Biking", "Indoor Cycling", "Virtual Cycling", "E-Bike", "Walking", "Hiking", "Swimming", "Pool Swim", "Open Water Swimming",
  "Strength", "Cardio", "Yoga", "Rowing", "Indoor Rowing", "Kayaking", "Cross Country Classic Skiing", "Skate Skiing", "Resort Skiing", "Multisport"
]

const automatic = new Set(
  PERIODS.flatMap((period) => [...SPORT_TYPES.map(sportWords), ...STRAVA_WORDS].map((words) => `${period} ${words}`.toLowerCase()))
)
const garminAutomatic = new RegExp(`^(?:[\\p{L}'.-]+ ){0,3}(?:${GARMIN_TYPES.join("|")})$`, "iu")

/** A name a platform or the import gave by itself (a time of day and the sport, or Garmin's place and type), not one a person wrote. */
export const isAutomaticName = (name: string): boolean => {
  const trimmed = name.trim().replace(/\s+/g, " ")
  return trimmed === "" || automatic.has(trimmed.toLowerCase()) || garminAutomatic.test(trimmed)
}

/** The changes the copy brings to the kept activity, and what joined in words ("its gear", "2 photos"). */
export const joinedChanges = (
  kept: KeptFacts,
  copy: CopyFacts
): { readonly changes: Partial<ActivitySummary>; readonly photos: boolean; readonly words: ReadonlyArray<string> } => {
  const free = (field: keyof ActivitySummary) => !kept.edited.includes(field)
  const changes: { -readonly [K in keyof ActivitySummary]?: ActivitySummary[K] } = {}
  const words: Array<string> = []
  if (free("name") && copy.name !== null && !isAutomaticName(copy.name) && isAutomaticName(kept.name) && copy.name !== kept.name) {
    changes.name = copy.name
    words.push("its name")
  }
  if (free("description") && (kept.description ?? "") === "" && copy.description !== null && copy.description.trim() !== "") {
    changes.description = copy.description
    words.push("its description")
  }
  if (free("gearId") && kept.gearId === null && copy.gearId !== null) {
    changes.gearId = copy.gearId
    words.push("its gear")
  }
  if (free("isCommute") && !kept.isCommute && copy.isCommute) {
    changes.isCommute = true
    words.push("its commute flag")
  }
  const photos = kept.photos === 0 && copy.photos > 0
  if (photos) words.push(copy.photos === 1 ? "1 photo" : `${copy.photos} photos`)
  return { changes, photos, words }
}

/**
 * "Its name, gear and 2 photos joined that activity." (null when nothing joined): said after the
 * skipped row's message, which names the activity (its name, date and id).
 */
export const joinedSentence = (words: ReadonlyArray<string>): string | null => {
  if (words.length === 0) return null
  const listed = words.map((w, i) => (i === 0 ? w : w.replace(/^its /, "")))
  const text = listed.length === 1 ? listed[0]! : `${listed.slice(0, -1).join(", ")} and ${listed.at(-1)}`
  return `${text.charAt(0).toUpperCase()}${text.slice(1)} joined that activity.`
}
