import { type ActivityField, ActivityFields, type ActivitySummary, type ShownColumn, type SqlValue } from "../../schema/ActivityFields.ts"
import type { Activity, ActivityImage } from "../../schema/ApiModels.ts"

/** A row of the `activities` table, as ActivityFields declares it: how it is written and read back. */

const fields = Object.entries(ActivityFields) as Array<[string, ActivityField<any, ReadonlyArray<string>>]>
const shown = fields.filter(([, field]) => field.shown)

/** The columns an Activity is read from, in the order `activityOf` takes their values. */
export const ACTIVITY_COLUMNS: ReadonlyArray<ShownColumn> = shown.flatMap(([, field]) => field.columns as ReadonlyArray<ShownColumn>)

/**
 * The Activity of a row read as an array of ACTIVITY_COLUMNS' values (the SQLite driver builds
 * an object per row far more slowly, by column name from native code), with its images.
 *
 * Written out once, at load, from ActivityFields: an object literal naming each field, whose
 * value is the field's `read` of its columns' values, for example
 * `(values, images) => ({ "id": read_id(values[0]), ..., "location": read_location(values[24],
 * values[25], values[26]), ..., "images": images })`. A literal gives every Activity one shape,
 * built in the order of the Activity schema, as jsonResponder needs it; a loop storing each field
 * by a computed key takes three times as long (10,000 rows: about 9 ms of CPU against 3), and
 * this runs for every activity of every page the API serves.
 */
export const activityOf: (values: ReadonlyArray<unknown>, images: ReadonlyArray<ActivityImage>) => Activity = (() => {
  let position = 0
  const properties = shown.map(([name, field]) => {
    if (!/^[A-Za-z]\w*$/.test(name)) throw new Error(`ActivityFields: "${name}" is not a plain field name`)
    const values = field.columns.map(() => `values[${position++}]`)
    return `${JSON.stringify(name)}: read_${name}(${values.join(", ")})`
  })
  const make = new Function(
    ...shown.map(([name]) => `read_${name}`),
    `return (values, images) => ({ ${properties.join(", ")}, "images": images })`
  )
  return make(...shown.map(([, field]) => field.read))
})()

/** The columns of a computed activity, with its id, as the table stores them. */
export const activityColumns = (id: string, activity: ActivitySummary): Record<string, SqlValue> => {
  const row: Record<string, SqlValue> = {}
  for (const [name, field] of fields) Object.assign(row, field.write(name === "id" ? id : activity[name as keyof ActivitySummary]))
  return row
}

/** The columns that `changes` (some fields of a computed activity) set. */
export const changedColumns = (changes: Partial<ActivitySummary>): Record<string, SqlValue> => {
  const row: Record<string, SqlValue> = {}
  for (const [name, value] of Object.entries(changes)) {
    const field = (ActivityFields as Record<string, ActivityField<any, ReadonlyArray<string>>>)[name]
    if (field === undefined || name === "id") throw new Error(`"${name}" is not a field of a stored activity`)
    if (value !== undefined) Object.assign(row, field.write(value))
  }
  return row
}

/** The columns of the fields a person set (not computed from the file): kept when an activity is computed again. */
export const PERSONAL_COLUMNS: ReadonlyArray<string> = fields.filter(([, field]) => field.personal).flatMap(([, field]) => field.columns)
