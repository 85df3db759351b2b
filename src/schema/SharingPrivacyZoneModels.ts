import * as Schema from "effect/Schema"

/**
 * Privacy zones: circles around places the athlete keeps to themself (home, work). Nothing that
 * leaves through a share link holds a point inside one, nor within the hidden ends of a track.
 */

export const MIN_ZONE_RADIUS = 200
export const MAX_ZONE_RADIUS = 2000
export const MAX_ZONE_NAME_LENGTH = 100
/** The first and the last metres of every shared track hidden by default, as Strava does. */
export const DEFAULT_HIDDEN_ENDS = 200
/** At most a mile and a quarter of each end hidden. */
export const MAX_HIDDEN_ENDS = 2000

const numberField = (name: string, min: number, max: number, what: string) => {
  const message = `"${name}" must be a number from ${min} to ${max}.`
  return Schema.propertySignature(
    Schema.Number.annotations({ message: () => message }).pipe(
      Schema.finite({ message: () => message }),
      Schema.between(min, max, { message: () => message })
    ).annotations({ message: () => message, jsonSchema: { type: "number", minimum: min, maximum: max, description: what } })
  ).annotations({ missingMessage: () => `"${name}" is required.` })
}

const zoneName = Schema.propertySignature(
  Schema.compose(Schema.String.annotations({ message: () => '"name" must be a string.' }), Schema.Trim).pipe(
    Schema.minLength(1, { message: () => "The name cannot be empty." }),
    Schema.maxLength(MAX_ZONE_NAME_LENGTH, { message: () => `The name cannot be longer than ${MAX_ZONE_NAME_LENGTH} characters.` })
  ).annotations({ jsonSchema: { type: "string", minLength: 1, maxLength: MAX_ZONE_NAME_LENGTH, description: "Trimmed" } })
).annotations({ missingMessage: () => '"name" is required.' })

export const PrivacyZoneInput = Schema.Struct({
  name: zoneName,
  latitude: numberField("latitude", -90, 90, "Degrees north of the zone's centre"),
  longitude: numberField("longitude", -180, 180, "Degrees east of the zone's centre"),
  radiusInMeter: numberField("radiusInMeter", MIN_ZONE_RADIUS, MAX_ZONE_RADIUS, "The circle's radius")
}).annotations({ identifier: "PrivacyZoneInput" })
export type PrivacyZoneInput = typeof PrivacyZoneInput.Type

export const PrivacyZone = Schema.Struct({
  id: Schema.String.annotations({ description: "Prefixed id, starts with privacyZone-" }),
  name: Schema.String,
  latitude: Schema.Number,
  longitude: Schema.Number,
  radiusInMeter: Schema.Number,
  createdOn: Schema.String.annotations({ jsonSchema: { type: "string", format: "date-time" } })
}).annotations({ identifier: "PrivacyZone" })
export type PrivacyZone = typeof PrivacyZone.Type

export const PrivacyZoneList = Schema.Struct({ privacyZones: Schema.Array(PrivacyZone) }).annotations({ identifier: "PrivacyZoneList" })
export type PrivacyZoneList = typeof PrivacyZoneList.Type

export const PrivacySettings = Schema.Struct({
  hiddenEndsInMeter: numberField(
    "hiddenEndsInMeter",
    0,
    MAX_HIDDEN_ENDS,
    `The first and the last metres of every shared track that are hidden (${DEFAULT_HIDDEN_ENDS} by default; 0 hides none)`
  )
}).annotations({ identifier: "PrivacySettings", description: "What every share link hides besides the privacy zones" })
export type PrivacySettings = typeof PrivacySettings.Type
