import * as Schema from "effect/Schema"
import { MapStatus } from "./MapModels.ts"
import { MAX_DESCRIPTION_LENGTH, MAX_NAME_LENGTH } from "./ActivityLimits.ts"
import { ActivityFields, shownFields } from "./ActivityFields.ts"
import { CalendarDate } from "./CalendarDate.ts"
import { oneOf } from "./OneOf.ts"
import { SPORT_TYPES } from "./SportType.ts"

/** Response and request bodies of /api/v1. */

export { SportType } from "./ActivityFields.ts"

export const ActivityImage = Schema.Struct({
  id: Schema.String.pipe(Schema.startsWith("activityImage-")).annotations({ description: "Prefixed id, starts with activityImage-" }),
  url: Schema.String.annotations({ description: "Where the image is served", jsonSchema: { type: "string", format: "uri" } })
}).annotations({ identifier: "ActivityImage" })
export type ActivityImage = typeof ActivityImage.Type

/** The fields declared in ActivityFields, then the activity's images. */
export const Activity = Schema.Struct({ ...shownFields, images: Schema.Array(ActivityImage) }).annotations({ identifier: "Activity" })
export type Activity = typeof Activity.Type

export const Pagination = Schema.Struct({
  page: Schema.Int,
  size: Schema.Int,
  total: Schema.Int,
  totalPages: Schema.Int
}).annotations({ identifier: "Pagination" })
export type Pagination = typeof Pagination.Type

export const ActivityList = Schema.Struct({
  activities: Schema.Array(Activity),
  pagination: Pagination
}).annotations({ identifier: "ActivityList" })
export type ActivityList = typeof ActivityList.Type

/** What gear is, as the platform it was imported from says (its bike and shoe lists). */
export const GEAR_KINDS = ["bike", "shoes", "other"] as const
export const GearKind = Schema.Literal(...GEAR_KINDS)

export const Gear = Schema.Struct({
  id: Schema.String.pipe(Schema.startsWith("gear-")),
  name: Schema.String,
  type: Schema.Literal("imported", "custom"),
  isRetired: Schema.Boolean,
  distanceInMeter: Schema.Int,
  numberOfActivities: Schema.Int,
  brand: Schema.NullOr(Schema.String).annotations({ description: "The maker, as the export it came from names it; null when it names none" }),
  model: Schema.NullOr(Schema.String).annotations({ description: "The model, as the export it came from names it; null when it names none" }),
  kind: Schema.NullOr(GearKind).annotations({ description: "bike, shoes or other, as the export it came from lists it; null when unknown" })
}).annotations({ identifier: "Gear" })
export type Gear = typeof Gear.Type

export const GearList = Schema.Struct({ gear: Schema.Array(Gear) }).annotations({ identifier: "GearList" })

/** One month of a gear's use: the distance of the activities that used it that month (by their local start). */
export const GearMonth = Schema.Struct({
  month: Schema.String.annotations({ description: "YYYY-MM, local to the activities' starts", examples: ["2024-05"] }),
  distanceInMeter: Schema.Int,
  numberOfActivities: Schema.Int
}).annotations({ identifier: "GearMonth" })

/** One gear, with its distance month by month: its activities are the activity list's `filters[gearId]`. */
export const GearDetail = Schema.Struct({
  ...Gear.fields,
  months: Schema.Array(GearMonth).annotations({ description: "Every month it was used in, oldest first" })
}).annotations({ identifier: "GearDetail" })
export type GearDetail = typeof GearDetail.Type

export const FILE_IMPORT_STATUSES = ["queued", "success", "skipped", "failed"] as const
export const FileImportStatus = Schema.Literal(...FILE_IMPORT_STATUSES)
export type FileImportStatus = typeof FileImportStatus.Type
export const FILE_IMPORT_SOURCES = ["fitFile", "tcxFile", "gpxFile", "kmlFile", "kmzFile", "zipFile", "garminExport", "stravaExport", "fitTrackeeExport", "endurainExport", "otherFile"] as const
export const FileImportSource = Schema.Literal(...FILE_IMPORT_SOURCES)
export type FileImportSource = typeof FileImportSource.Type

export const FileImport = Schema.Struct({
  id: Schema.NullOr(Schema.String).annotations({ description: "Starts with fileImport-; null while queued" }),
  filename: Schema.String,
  source: FileImportSource,
  status: FileImportStatus,
  errorMessage: Schema.NullOr(Schema.String).annotations({ description: "Says why when the status is failed or skipped" }),
  activityId: Schema.NullOr(Schema.String).annotations({ description: "Set only when the status is success: the first activity of the file" }),
  activityIds: Schema.Array(Schema.String).annotations({
    description: "Every activity the file made (a multisport file makes one per sport), the first being activityId; empty unless the status is success"
  }),
  activities: Schema.Array(Schema.Struct({ id: Schema.String, name: Schema.String, sportType: Schema.String })).annotations({
    description: "The activities of activityIds with their names and sports, in the same order (each leg of a multisport file)"
  }),
  notes: Schema.NullOr(Schema.String).annotations({
    description: "What the import repaired in the file, in plain words (impossible samples dropped, impossible device totals ignored); null when nothing was"
  }),
  importedOn: Schema.NullOr(Schema.String).annotations({ description: "Null while queued", jsonSchema: { type: ["string", "null"], format: "date-time" } })
}).annotations({ identifier: "FileImport" })
export type FileImport = typeof FileImport.Type

export const FileImportList = Schema.Struct({
  fileImports: Schema.Array(FileImport),
  pagination: Pagination
}).annotations({ identifier: "FileImportList" })
export type FileImportList = typeof FileImportList.Type

export const Weight = Schema.Struct({
  on: Schema.String.annotations({ description: "Calendar date", jsonSchema: { type: "string", format: "date" } }),
  weight: Schema.Number.annotations({ description: "Kilograms for the metric unit system, pounds for imperial" })
}).annotations({ identifier: "WeightMeasurement" })
export type Weight = typeof Weight.Type

export const WeightList = Schema.Struct({ weights: Schema.Array(Weight) }).annotations({ identifier: "WeightList" })

export const Status = Schema.Struct({
  app: Schema.Literal("waymark"),
  version: Schema.String.annotations({ examples: ["v0.1.0"] }),
  canUpload: Schema.Boolean,
  map: MapStatus
}).annotations({ identifier: "Status" })
export type Status = typeof Status.Type

export const UploadAccepted = Schema.Struct({
  status: Schema.Literal("queued"),
  message: Schema.String
}).annotations({ identifier: "UploadAccepted" })

/** multipart/form-data body of the upload operations (documentation; the handler streams the part itself). */
export const FileUpload = Schema.Struct({
  file: Schema.String.annotations({ jsonSchema: { type: "string", format: "binary" } })
}).annotations({ identifier: "FileUpload" })

const trimmedText = (message: string) => Schema.compose(Schema.String.annotations({ message: () => message }), Schema.Trim)

/** PATCH /activities/{id} body: at least one field; an empty description or gearId (or null) clears it. */
export const ActivityUpdate = Schema.Struct({
  name: Schema.optionalWith(
    trimmedText("The name cannot be empty.").pipe(
      Schema.minLength(1, { message: () => "The name cannot be empty." }),
      Schema.maxLength(MAX_NAME_LENGTH, { message: () => `The name cannot be longer than ${MAX_NAME_LENGTH} characters.` })
    ).annotations({ jsonSchema: { type: "string", minLength: 1, maxLength: MAX_NAME_LENGTH, description: "Trimmed" } }),
    { exact: true }
  ),
  sportType: Schema.optionalWith(
    oneOf(SPORT_TYPES, (actual) => `"sportType" must be one of the sport types (Ride, Run, Walk, Hike, ...: the SportType schema lists them), not ${actual}.`, {
      $ref: "#/components/schemas/SportType"
    }),
    { exact: true }
  ),
  description: Schema.optionalWith(
    Schema.NullOr(
      trimmedText('"description" must be a string or null.').pipe(
        Schema.maxLength(MAX_DESCRIPTION_LENGTH, { message: () => `The description cannot be longer than ${MAX_DESCRIPTION_LENGTH} characters.` })
      )
    ).annotations({ description: "Null or empty string clears it" }),
    { exact: true }
  ),
  gearId: Schema.optionalWith(
    Schema.NullOr(trimmedText('"gearId" must be a string or null.')).annotations({
      description: "Prefixed id of existing gear; null or empty string removes the gear"
    }),
    { exact: true }
  ),
  excludeFromRecords: Schema.optionalWith(ActivityFields.excludeFromRecords.schema, { exact: true })
}).annotations({ identifier: "ActivityUpdate", jsonSchema: { minProperties: 1 } })
export type ActivityUpdate = typeof ActivityUpdate.Type

/** Largest weight accepted, in the configured unit system. */
export const MAX_WEIGHT = 1000
const weightMessage = `"weight" must be a number above 0 and at most ${MAX_WEIGHT}.`

export const WeightInput = Schema.Struct({
  on: Schema.propertySignature(CalendarDate("on")).annotations({ missingMessage: () => '"on" is required.' }),
  weight: Schema.Number.annotations({ message: () => weightMessage }).pipe(
    Schema.finite({ message: () => weightMessage }),
    Schema.greaterThan(0, { message: () => weightMessage }),
    Schema.lessThanOrEqualTo(MAX_WEIGHT, { message: () => weightMessage })
  ).annotations({ title: "weight", description: "In the configured unit system (kg or lb)" })
}).annotations({ identifier: "WeightInput" })
