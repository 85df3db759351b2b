import type { ExportedActivity, ExportedGear } from "../archives/ExportedActivity.ts"

/**
 * What the readers of the peers' exports share: each turns an export's texts into the same
 * ExportedActivity and ExportedGear, whichever peer it came from, so that the import writes
 * them with the activity one way.
 */

/** Trimmed text, null when empty or not a string. */
export const textOf = (value: unknown): string | null => {
  if (typeof value !== "string" && typeof value !== "number") return null
  const text = String(value).trim()
  return text === "" ? null : text
}

/** A description and a private note as one text: either alone, or both a blank line apart. */
export const describedWith = (description: string | null, note: string | null): string | null =>
  description !== null && note !== null && note !== description ? `${description}\n\n${note}` : description ?? note

/** A lookup by name that forgives case and surrounding blanks ("Trek Domane " finds "trek domane"). */
export const byName = <T>(items: ReadonlyArray<T>, nameOf: (item: T) => string): (name: string) => T | undefined => {
  const index = new Map<string, T>()
  for (const item of items) {
    const key = nameOf(item).trim().toLowerCase()
    if (!index.has(key)) index.set(key, item)
  }
  return (name) => index.get(name.trim().toLowerCase())
}

/** The records of a JSON array (objects only), empty for anything else. */
export const recordsOf = (value: unknown): Array<Record<string, unknown>> =>
  Array.isArray(value) ? value.filter((v): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)) : []

/** The gear an export lists and the gear its activities name, once per name (the list's first). */
export const allGear = (listed: ReadonlyArray<ExportedGear>, activities: Iterable<ExportedActivity>): Array<ExportedGear> => {
  const byGearName = new Map<string, ExportedGear>()
  for (const g of [...listed, ...[...activities].flatMap((a) => a.gear ?? [])]) if (!byGearName.has(g.name)) byGearName.set(g.name, g)
  return [...byGearName.values()]
}
