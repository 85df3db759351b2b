import * as Schema from "effect/Schema"
import { CalendarDate } from "./CalendarDate.ts"
import { MAX_NAME_LENGTH } from "./ActivityLimits.ts"
import { LocalDate } from "./LocalDate.ts"

/**
 * Gear components (a chain, tyres, a cassette, shoes) with their maintenance intervals, and
 * their service records: the bodies of /gear/{gearId}/components and what it answers.
 */

export const COMPONENT_STATUSES = ["ok", "dueSoon", "overdue"] as const
export type ComponentStatus = typeof COMPONENT_STATUSES[number]

/** Share of an interval left under which a component is due soon. */
export const DUE_SOON_SHARE = 0.1

export const ComponentService = Schema.Struct({
  id: Schema.String.annotations({ description: "Prefixed id, starts with gearComponentService-" }),
  on: LocalDate("The day it was done"),
  note: Schema.NullOr(Schema.String)
}).annotations({ identifier: "GearComponentService" })
export type ComponentService = typeof ComponentService.Type

export const ComponentUse = Schema.Struct({
  since: LocalDate("The last service's date, or the install date: activities on this local date or later count"),
  activities: Schema.Int,
  distanceInMeter: Schema.Int,
  movingTimeInSeconds: Schema.Int,
  days: Schema.Int.annotations({ description: "Days from `since` to today" })
}).annotations({ identifier: "GearComponentUse", description: "The use since the last service, from the activities that carry the gear" })
export type ComponentUse = typeof ComponentUse.Type

const due = (what: string) =>
  Schema.NullOr(Schema.Int).annotations({ description: `${what} left before the next service, negative when overdue; null without such an interval` })

export const GearComponent = Schema.Struct({
  id: Schema.String.annotations({ description: "Prefixed id, starts with gearComponent-" }),
  gearId: Schema.String,
  name: Schema.String,
  installedOn: LocalDate("The day it was installed"),
  intervalInMeter: Schema.NullOr(Schema.Int).annotations({ description: "Service every this many metres" }),
  intervalInSeconds: Schema.NullOr(Schema.Int).annotations({ description: "Service every this many seconds of moving time" }),
  intervalInDays: Schema.NullOr(Schema.Int).annotations({ description: "Service every this many days" }),
  lastServiceOn: Schema.NullOr(LocalDate("The latest service's date")),
  services: Schema.Array(ComponentService).annotations({ description: "Its service records, newest first" }),
  use: ComponentUse,
  dueInMeter: due("Metres"),
  dueInSeconds: due("Seconds of moving time"),
  dueInDays: due("Days"),
  dueOn: Schema.NullOr(LocalDate("The day the days' interval ends")),
  status: Schema.Literal(...COMPONENT_STATUSES).annotations({
    description: `overdue when a due figure is negative; dueSoon when one has at most ${DUE_SOON_SHARE * 100} % of its interval left; else ok`
  })
}).annotations({ identifier: "GearComponent" })
export type GearComponent = typeof GearComponent.Type

export const GearComponentList = Schema.Struct({ components: Schema.Array(GearComponent) }).annotations({
  identifier: "GearComponentList",
  description: "The gear's components in the order they were added"
})

// ---------------------------------------------------------------------------------------
// Request bodies

const componentName = Schema.compose(Schema.String.annotations({ message: () => '"name" must be a string.' }), Schema.Trim).pipe(
  Schema.minLength(1, { message: () => "The name cannot be empty." }),
  Schema.maxLength(MAX_NAME_LENGTH, { message: () => `The name cannot be longer than ${MAX_NAME_LENGTH} characters.` })
).annotations({ jsonSchema: { type: "string", minLength: 1, maxLength: MAX_NAME_LENGTH, description: "Trimmed" } })

/** The largest interval of each kind: 1,000,000 km, 100,000 hours, 100 years. */
export const MAX_INTERVAL = { intervalInMeter: 1_000_000_000, intervalInSeconds: 360_000_000, intervalInDays: 36_500 } as const

const interval = (name: keyof typeof MAX_INTERVAL, what: string) => {
  const message = `"${name}" must be a whole number from 1 to ${MAX_INTERVAL[name]}, or null.`
  return Schema.NullOr(
    Schema.Number.annotations({ message: () => message }).pipe(
      Schema.int({ message: () => message }),
      Schema.between(1, MAX_INTERVAL[name], { message: () => message })
    )
  ).annotations({
    message: () => message,
    jsonSchema: { type: ["integer", "null"], minimum: 1, maximum: MAX_INTERVAL[name], description: `${what}; null for none` }
  })
}

const intervalFields = {
  intervalInMeter: Schema.optionalWith(interval("intervalInMeter", "Service every this many metres"), { exact: true }),
  intervalInSeconds: Schema.optionalWith(interval("intervalInSeconds", "Service every this many seconds of moving time"), { exact: true }),
  intervalInDays: Schema.optionalWith(interval("intervalInDays", "Service every this many days"), { exact: true })
}

export const INTERVAL_NAMES = Object.keys(intervalFields) as ReadonlyArray<keyof typeof intervalFields>

export const GearComponentCreate = Schema.Struct({
  name: Schema.propertySignature(componentName).annotations({ missingMessage: () => '"name" is required.' }),
  installedOn: Schema.optionalWith(CalendarDate("installedOn"), { exact: true }).annotations({ description: "Today when left out; not in the future" }),
  ...intervalFields
}).annotations({ identifier: "GearComponentCreate", description: "At least one interval is required" })
export type GearComponentCreate = typeof GearComponentCreate.Type

export const GearComponentUpdate = Schema.Struct({
  name: Schema.optionalWith(componentName, { exact: true }),
  installedOn: Schema.optionalWith(CalendarDate("installedOn"), { exact: true }),
  ...intervalFields
}).annotations({ identifier: "GearComponentUpdate", description: "null clears an interval; at least one must remain", jsonSchema: { minProperties: 1 } })
export type GearComponentUpdate = typeof GearComponentUpdate.Type

/** Longest note of a service record. */
export const MAX_SERVICE_NOTE_LENGTH = 1000

export const ComponentServiceInput = Schema.Struct({
  on: Schema.optionalWith(CalendarDate("on"), { exact: true }).annotations({ description: "Today when left out; not in the future nor before the install date" }),
  note: Schema.optionalWith(
    Schema.compose(Schema.String.annotations({ message: () => '"note" must be a string.' }), Schema.Trim).pipe(
      Schema.maxLength(MAX_SERVICE_NOTE_LENGTH, { message: () => `The note cannot be longer than ${MAX_SERVICE_NOTE_LENGTH} characters.` })
    ).annotations({ jsonSchema: { type: "string", maxLength: MAX_SERVICE_NOTE_LENGTH } }),
    { exact: true }
  )
}).annotations({ identifier: "GearComponentServiceInput", description: "An empty body (or none) records a service done today" })
export type ComponentServiceInput = typeof ComponentServiceInput.Type
