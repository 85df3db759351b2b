import type { WorldType } from "../../../schema/ActivityDraft.ts"
import type { SportType } from "../../../schema/SportType.ts"
import { sportWords } from "../parsers/sportNames.ts"

/** "<Morning|Afternoon|Evening|Night> <Sport Type>": 05–11 Morning, 12–16 Afternoon, 17–20 Evening, else Night. */
export const defaultName = (sport: SportType, localHour: number): string => {
  const period = localHour >= 5 && localHour <= 11
    ? "Morning"
    : localHour >= 12 && localHour <= 16
    ? "Afternoon"
    : localHour >= 17 && localHour <= 20
    ? "Evening"
    : "Night"
  return `${period} ${sportWords(sport)}`
}

/** The file's name (trimmed, a "Zwift - " prefix removed), or null when it has none. */
export const cleanName = (name: string | null): string | null => {
  if (name === null) return null
  const cleaned = name.trim().replace(/^zwift\s*-\s*/i, "").trim()
  return cleaned === "" ? null : cleaned
}

const WORLD_BY_DEVICE: Record<string, WorldType> = { zwift: "zwift", rouvy: "rouvy", mywhoosh: "myWhoosh" }

/**
 * Device name equal (case-insensitive) to zwift / rouvy / mywhoosh, or starting with that word
 * (FIT files name the manufacturer, e.g. "Zwift" or "Zwift Virtual"); else any of the names
 * containing "mywhoosh"; else realWorld.
 */
export const worldTypeOf = (deviceName: string | null, names: ReadonlyArray<string | null>): WorldType => {
  const device = (deviceName ?? "").trim().toLowerCase()
  const exact = WORLD_BY_DEVICE[device]
  if (exact) return exact
  const word = /^(zwift|rouvy|mywhoosh)\b/.exec(device)?.[1]
  if (word) return WORLD_BY_DEVICE[word]!
  if (names.some((n) => n !== null && n.toLowerCase().includes("mywhoosh"))) return "myWhoosh"
  return "realWorld"
}
