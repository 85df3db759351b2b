import * as Layer from "effect/Layer"
import { ActivityReads } from "../activities/ActivityReads.ts"
import { Stats } from "./Stats.ts"

/** The statistics' one layer: totals, records, the Eddington number and the heatmap, over the activities' reads. */
export const StatsLive = Stats.Default.pipe(Layer.provide(ActivityReads.Default))
