import type * as Detail from "../../../schema/ActivityDetailModels.ts"
import type * as Models from "../../../schema/ApiModels.ts"
import type * as Progress from "../../../schema/ImportProgressModels.ts"
import type * as Stats from "../../../schema/StatsModels.ts"

/** The API's own types (type-only: nothing of the schemas is bundled). */
export type Activity = typeof Models.Activity.Type
export type ActivityList = typeof Models.ActivityList.Type
export type Gear = typeof Models.Gear.Type
export type FileImport = typeof Models.FileImport.Type
export type FileImportList = typeof Models.FileImportList.Type
export type ImportProgress = typeof Progress.ImportProgress.Type
export type Weight = typeof Models.Weight.Type
export type Status = typeof Models.Status.Type
export type Streams = typeof Detail.Streams.Type
export type Lap = typeof Detail.Lap.Type
export type Length = typeof Detail.Length.Type
export type Split = typeof Detail.Split.Type
export type BestEffort = typeof Detail.BestEffort.Type
export type Total = typeof Stats.Total.Type
export type PersonalRecord = typeof Stats.PersonalRecord.Type
export type Eddington = typeof Stats.Eddington.Type
export type HeatmapRoute = typeof Stats.HeatmapRoute.Type
