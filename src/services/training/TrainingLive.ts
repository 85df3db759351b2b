import * as Layer from "effect/Layer"
import { ActivityReads } from "../activities/ActivityReads.ts"
import { ThresholdsRepo } from "./ThresholdsRepo.ts"
import { TrainingReads } from "./TrainingReads.ts"
import { TrainingRecompute } from "./TrainingRecompute.ts"
import { TrainingStore } from "./TrainingStore.ts"

/**
 * The training analysis' one layer: its stored figures (written with each activity), the
 * thresholds, the background recompute they start, and the API's reads (over the activities').
 */
export const TrainingLive = Layer.mergeAll(ThresholdsRepo.Default, TrainingReads.Default).pipe(
  Layer.provideMerge(TrainingRecompute.Default),
  Layer.provideMerge(TrainingStore.Default),
  Layer.provide(ActivityReads.Default)
)
