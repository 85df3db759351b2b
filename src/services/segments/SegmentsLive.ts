import * as Layer from "effect/Layer"
import { ActivitiesLive } from "../activities/ActivitiesLive.ts"
import { Segments } from "./Segments.ts"
import { SegmentStore } from "./SegmentStore.ts"

/** The segments' one layer: their store (written with each activity, and in background batches) and the API's reads and creation. */
export const SegmentsLive = Segments.Default.pipe(
  Layer.provideMerge(SegmentStore.Default),
  Layer.provide(ActivitiesLive)
)
