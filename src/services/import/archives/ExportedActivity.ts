import * as Schema from "effect/Schema"
import { GearKind, SportType } from "../../../schema/ApiModels.ts"

/**
 * What an export says about one of its activity files, whichever platform it came from: the
 * same shape for every export, so that the import writes it with the activity one way (in the
 * transaction that stores the activity, see ImportWriter) and keeps it until then (ExportMetadata).
 */

/** Gear as an export names it: its name (what the activities name it by), brand, model and kind, null where it says none. */
export const ExportedGear = Schema.Struct({
  name: Schema.String,
  brand: Schema.NullOr(Schema.String),
  model: Schema.NullOr(Schema.String),
  kind: Schema.NullOr(GearKind)
})
export type ExportedGear = typeof ExportedGear.Type

/** What the export says about one activity file, null where it says nothing. */
export const ExportedActivity = Schema.Struct({
  name: Schema.NullOr(Schema.String),
  description: Schema.NullOr(Schema.String),
  /** what the athlete chose on the platform, in our vocabulary; null when it names none of it */
  sportType: Schema.NullOr(SportType),
  isCommute: Schema.Boolean,
  gear: Schema.NullOr(ExportedGear),
  /** entries of the archive (full paths) holding the activity's photos */
  images: Schema.Array(Schema.String)
})
export type ExportedActivity = typeof ExportedActivity.Type

/** Gear an export names by its name alone: what another export says of its brand, model and kind stays. */
export const gearNamed = (name: string): ExportedGear => ({ name, brand: null, model: null, kind: null })
