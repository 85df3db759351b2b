import type { SuccessOf } from "./endpoints.ts"

/** The API's own types, as its endpoints answer them (type-only: nothing of the schemas is bundled). */
export type Activity = SuccessOf<"activities.get">
export type Gear = SuccessOf<"gear.list">["gear"][number]
export type FileImport = SuccessOf<"fileImports.search">["fileImports"][number]
export type Streams = SuccessOf<"activityDetail.streams">
export type Total = SuccessOf<"stats.totals">["totals"][number]
export type PersonalRecord = SuccessOf<"stats.records">["records"][number]
export type Lap = SuccessOf<"activityDetail.laps">["laps"][number]
export type ImportProgress = SuccessOf<"fileImports.progress">
export type Status = SuccessOf<"system.status">
