import * as Layer from "effect/Layer"
import { SegmentStore } from "../segments/SegmentStore.ts"
import { TrainingStore } from "../training/TrainingStore.ts"
import { ActivityDetail } from "./ActivityDetail.ts"
import { ActivityReads } from "./ActivityReads.ts"
import { ActivityRepo } from "./ActivityRepo.ts"
import { ImageStore } from "./ImageStore.ts"
import { WeightRepo } from "./WeightRepo.ts"

/**
 * The activities' one layer: their repository and reads, an activity's detail (streams, laps,
 * splits, its original), their images, and the athlete's weights; over the storage (database,
 * read connection, configuration, storage paths). An activity is written with its training
 * figures and its segment efforts in one transaction: the training's and the segments' stores
 * are provided here, the same instances as their features' layers (a layer is built once in
 * a composition).
 */
export const ActivitiesLive = Layer.mergeAll(ActivityRepo.Default, ActivityDetail.Default, WeightRepo.Default, ImageStore.DefaultWithoutDependencies).pipe(
  Layer.provideMerge(ActivityReads.Default),
  Layer.provide(Layer.merge(TrainingStore.Default, SegmentStore.Default))
)
