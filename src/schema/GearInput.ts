import * as Schema from "effect/Schema"
import { MAX_NAME_LENGTH } from "./ActivityLimits.ts"

/** Request bodies of custom gear: POST /gear and PATCH /gear/{gearId}. */

const gearName = Schema.compose(Schema.String.annotations({ message: () => '"name" must be a string.' }), Schema.Trim).pipe(
  Schema.minLength(1, { message: () => "The name cannot be empty." }),
  Schema.maxLength(MAX_NAME_LENGTH, { message: () => `The name cannot be longer than ${MAX_NAME_LENGTH} characters.` })
).annotations({ jsonSchema: { type: "string", minLength: 1, maxLength: MAX_NAME_LENGTH, description: "Trimmed" } })

const isRetired = Schema.Boolean.annotations({ message: () => '"isRetired" must be true or false.' })

export const GearCreate = Schema.Struct({
  name: Schema.propertySignature(gearName).annotations({ missingMessage: () => '"name" is required.' }),
  isRetired: Schema.optionalWith(isRetired, { exact: true })
}).annotations({ identifier: "GearCreate" })
export type GearCreate = typeof GearCreate.Type

export const GearUpdate = Schema.Struct({
  name: Schema.optionalWith(gearName, { exact: true }).annotations({ description: "Only custom gear can be renamed" }),
  isRetired: Schema.optionalWith(isRetired, { exact: true })
}).annotations({ identifier: "GearUpdate", jsonSchema: { minProperties: 1 } })
export type GearUpdate = typeof GearUpdate.Type
