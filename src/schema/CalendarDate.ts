import * as Schema from "effect/Schema"

/** A real day written YYYY-MM-DD (2026-02-29 is refused). */
export const isCalendarDate = (value: string): boolean => {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value)
  if (!match) return false
  const [y, m, d] = [Number(match[1]), Number(match[2]), Number(match[3])]
  const date = new Date(Date.UTC(y, m - 1, d))
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d
}

/** A calendar date named `name` in its messages (a query parameter, a path segment or a body field). */
export const CalendarDate = (name: string) =>
  Schema.String.annotations({ message: () => `"${name}" must be a date in YYYY-MM-DD format.` }).pipe(
    Schema.filter(isCalendarDate, { message: () => `"${name}" must be a date in YYYY-MM-DD format.` })
  ).annotations({ jsonSchema: { type: "string", format: "date" } })
