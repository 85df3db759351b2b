import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Context, Effect, Layer, Logger, LogLevel } from "effect"
import { GearMaintenanceLive } from "../../src/fibers/GearMaintenance.ts"
import { ImportWorkerLive } from "../../src/fibers/ImportWorker.ts"
import { SegmentUpkeepLive } from "../../src/fibers/SegmentUpkeep.ts"
import { TrainingUpkeepLive } from "../../src/fibers/TrainingUpkeep.ts"
import { WatchFolderLive } from "../../src/fibers/ImportWatchFolder.ts"
import { StorageLive } from "../../src/runtime/Services.ts"
import { ActivitiesLive } from "../../src/services/activities/ActivitiesLive.ts"
import { ActivityDetail } from "../../src/services/activities/ActivityDetail.ts"
import { ActivityReads } from "../../src/services/activities/ActivityReads.ts"
import { ActivityRemoval } from "../../src/services/activities/ActivityRemoval.ts"
import { ActivityRepo } from "../../src/services/activities/ActivityRepo.ts"
import { GearRepo } from "../../src/services/activities/GearRepo.ts"
import { ImageStore } from "../../src/services/activities/ImageStore.ts"
import { WeightRepo } from "../../src/services/activities/WeightRepo.ts"
import { GearComponents } from "../../src/services/gear/GearComponents.ts"
import { GearLive } from "../../src/services/gear/GearLive.ts"
import { ActivityReprocess } from "../../src/services/import/ActivityReprocess.ts"
import { FileImportActions } from "../../src/services/import/FileImportActions.ts"
import { FileImportReads } from "../../src/services/import/FileImportReads.ts"
import { ImportLive } from "../../src/services/import/ImportLive.ts"
import { ImportProgress } from "../../src/services/import/ImportProgress.ts"
import { ImportService } from "../../src/services/import/ImportService.ts"
import { MapsLive } from "../../src/services/maps/MapsLive.ts"
import { MapTiles } from "../../src/services/maps/MapTiles.ts"
import { Supervisor } from "../../src/services/platform/Supervisor.ts"
import { Segments } from "../../src/services/segments/Segments.ts"
import { SegmentsLive } from "../../src/services/segments/SegmentsLive.ts"
import { SegmentStore } from "../../src/services/segments/SegmentStore.ts"
import { SharedActivity } from "../../src/services/sharing/SharedActivity.ts"
import { ShareLinks } from "../../src/services/sharing/ShareLinks.ts"
import { SharingLive } from "../../src/services/sharing/SharingLive.ts"
import { Stats } from "../../src/services/stats/Stats.ts"
import { StatsLive } from "../../src/services/stats/StatsLive.ts"
import { ThresholdsRepo } from "../../src/services/training/ThresholdsRepo.ts"
import { TrainingLive } from "../../src/services/training/TrainingLive.ts"
import { TrainingReads } from "../../src/services/training/TrainingReads.ts"
import { AthleteYear } from "../../src/services/year/AthleteYear.ts"
import { AthleteYearLive } from "../../src/services/year/AthleteYearLive.ts"
import { scopedRoot } from "../support/ImportHarness.ts"

/**
 * A feature is a slice with one layer: each feature's layer, with its background loops, builds
 * alone over nothing but the storage (a fresh, migrated database in a temporary folder) and the
 * supervisor, and gives the services its routes and loops use. The compiler checks that it
 * needs nothing else (the build below requires no other service); the build checks that it
 * starts.
 */

interface Feature {
  readonly live: Layer.Layer<any, any, any>
  readonly provides: ReadonlyArray<Context.Tag<any, any>>
  /** its background loops, by the name they are supervised under */
  readonly loops: Readonly<Record<string, Layer.Layer<never, any, any>>>
}

const FEATURES = {
  activities: { live: ActivitiesLive, provides: [ActivityRepo, ActivityReads, ActivityDetail, ImageStore, WeightRepo], loops: {} },
  import: {
    live: ImportLive,
    provides: [ImportService, ImportProgress, FileImportReads, FileImportActions, ActivityReprocess, ActivityRemoval],
    loops: { WatchFolder: WatchFolderLive, ImportWorker: ImportWorkerLive }
  },
  training: { live: TrainingLive, provides: [ThresholdsRepo, TrainingReads], loops: { TrainingRecompute: TrainingUpkeepLive } },
  segments: { live: SegmentsLive, provides: [Segments, SegmentStore], loops: { SegmentUpkeep: SegmentUpkeepLive } },
  gear: { live: GearLive, provides: [GearRepo, GearComponents], loops: { GearMaintenance: GearMaintenanceLive } },
  stats: { live: StatsLive, provides: [Stats], loops: {} },
  "the athlete's year": { live: AthleteYearLive, provides: [AthleteYear], loops: {} },
  sharing: { live: SharingLive, provides: [SharedActivity, ShareLinks], loops: {} },
  maps: { live: MapsLive, provides: [MapTiles], loops: {} }
} satisfies Record<string, Feature>

/** What a feature's layer needs beyond the storage and the supervisor, and its loops beyond that and the layer: nothing, for each. */
type Unmet<L> = L extends Layer.Layer<infer _A, infer _E, infer R> ? Exclude<R, Layer.Layer.Success<typeof StorageLive> | Supervisor> : never
type LoopsOf<F> = F extends { readonly loops: infer L } ? L[keyof L] : never
type Needs = {
  readonly [K in keyof typeof FEATURES]:
    | Unmet<(typeof FEATURES)[K]["live"]>
    | Exclude<Unmet<LoopsOf<(typeof FEATURES)[K]>>, Layer.Layer.Success<(typeof FEATURES)[K]["live"]>>
}
const needsNothingElse: { readonly [K in keyof Needs]: [Needs[K]] extends [never] ? true : Needs[K] } = {
  activities: true,
  import: true,
  training: true,
  segments: true,
  gear: true,
  stats: true,
  "the athlete's year": true,
  sharing: true,
  maps: true
}

/** The feature with its loops, over the supervisor and the storage at `env`, and nothing else. */
const alone = <A, E, RIn, L extends Record<string, Layer.Layer<never, any, any>>>(
  live: Layer.Layer<A, E, RIn>,
  loops: L,
  env: Readonly<Record<string, string>>
) =>
  Layer.mergeAll(Layer.empty, ...Object.values(loops)).pipe(
    Layer.provideMerge(live),
    Layer.provideMerge(Supervisor.Default),
    Layer.provideMerge(StorageLive),
    Layer.provide(Logger.minimumLogLevel(LogLevel.None)),
    Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))))
  )

describe("each feature's one layer", () => {
  it("needs nothing but the storage and the supervisor (checked by the compiler)", () => {
    expect(Object.keys(needsNothingElse)).toEqual(Object.keys(FEATURES))
  })

  for (const [name, feature] of Object.entries(FEATURES) as Array<[string, Feature]>) {
    it.scoped(`${name}: builds alone over a fresh database, its background loops (if any) running`, () =>
      Effect.gen(function*() {
        const root = yield* scopedRoot()
        const context = yield* Layer.build(alone(feature.live, feature.loops, root.env))
        for (const tag of feature.provides) expect(Context.getOption(context, tag)._tag, tag.key).toBe("Some")
        // the database is the migrated one: the activities' table is there, empty
        const sql = Context.get(context, SqlClient.SqlClient)
        expect(yield* sql<{ n: number }>`SELECT count(*) AS n FROM activities`).toEqual([{ n: 0 }])
        // each loop registered with the supervisor once the layer is built
        const running = (yield* Context.get(context, Supervisor).snapshot).map((fiber) => fiber.name)
        expect(running).toEqual(expect.arrayContaining(Object.keys(feature.loops)))
      }))
  }
})
