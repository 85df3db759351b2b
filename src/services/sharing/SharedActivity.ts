import * as Effect from "effect/Effect"
import type { Activity } from "../../schema/ApiModels.ts"
import type { Shows } from "../../schema/ShareModels.ts"
import { RUNS, type SportType } from "../../schema/SportType.ts"
import { ActivityReads } from "../activities/ActivityReads.ts"
import { parseStream, type StreamName, storedStreams } from "../activities/StreamsCodec.ts"
import { ReadConnection } from "../platform/ReadConnection.ts"
import { PrivacyZones } from "./PrivacyZones.ts"
import { type LatLng, type TrackSamples, type VisibleTrack, visibleTrack } from "./visibleTrack.ts"

/**
 * What a share shows of an activity, built from its visible track (visibleTrack.ts) under the
 * zones and settings of the moment: the page, the picture and the owner's preview all read this.
 * It holds the local date only (the time of day a ride left home is kept), the figures of the
 * visible track (or the totals of an activity without positions), and the description and
 * photos only when the link shows them.
 */

export interface SharedFigures {
  readonly distanceInMeter: number
  readonly timeInSeconds: number | null
  readonly elevationGainInMeter: number | null
  /** km/h over the visible track */
  readonly averageSpeedInKmPerHour: number | null
  readonly averageHeartRate: number | null
  readonly averagePower: number | null
  /** a run's or a walk's pace, else a speed */
  readonly showsPace: boolean
}

export interface SharedPhoto {
  readonly fileName: string
}

export interface SharedView {
  readonly activityId: string
  readonly name: string
  readonly sportType: SportType
  /** `YYYY-MM-DD`, local; "Date unknown" for an activity whose date is unknown (its start is a stand-in), shown as it is */
  readonly date: string
  readonly description: string | null
  readonly figures: SharedFigures
  readonly track: VisibleTrack
  readonly shows: Shows
  readonly photos: ReadonlyArray<SharedPhoto>
}

const PACE_SPORTS: ReadonlySet<string> = new Set([...RUNS, "Walk", "Hike"])

const STREAMS = "SELECT data FROM activity_streams WHERE activity_id = ?"
const IMAGES = "SELECT file_name FROM activity_images WHERE activity_id = ? ORDER BY created_at, id"

const mean = (values: ReadonlyArray<number | null>): number | null => {
  let sum = 0
  let n = 0
  for (const v of values) {
    if (v === null) continue
    sum += v
    n++
  }
  return n === 0 ? null : sum / n
}

/** The figures a share shows: the visible track's, or the totals of an activity that recorded no position. */
export const figuresOf = (activity: Activity, track: VisibleTrack, shows: Shows): SharedFigures => {
  const samples = track.segments.flat()
  const distance = track.hasPositions ? track.distanceInMeter : activity.distanceInMeter
  const time = track.hasPositions ? track.timeInSeconds : activity.movingTimeInSeconds
  return {
    distanceInMeter: distance,
    timeInSeconds: time,
    elevationGainInMeter: track.hasPositions ? track.elevationGainInMeter : activity.elevationInMeter,
    averageSpeedInKmPerHour: time !== null && time > 0 && distance > 0 ? (distance / time) * 3.6 : null,
    averageHeartRate: !shows.heartRate ? null : track.hasPositions ? mean(samples.map((s) => s.heartrate)) : activity.averageHeartRate ?? null,
    averagePower: !shows.power ? null : track.hasPositions ? mean(samples.map((s) => s.watts)) : activity.averagePower ?? null,
    showsPace: PACE_SPORTS.has(activity.sportType)
  }
}

export class SharedActivity extends Effect.Service<SharedActivity>()("services/sharing/SharedActivity", {
  effect: Effect.gen(function*() {
    const db = yield* ReadConnection
    const reads = yield* ActivityReads
    const privacy = yield* PrivacyZones

    const samplesOf = (activityId: string): TrackSamples => {
      const rows = db.rows(STREAMS, [activityId])
      const data = rows[0]?.[0] as Uint8Array | null | undefined
      if (data == null) return {}
      const stored = storedStreams(data)
      const read = <A>(name: StreamName) => {
        const stream = stored.streams.get(name)
        return stream === undefined ? undefined : (parseStream(stream) as Array<A>)
      }
      return {
        latlng: read<LatLng | null>("latlng"),
        time: read<number | null>("time"),
        distance: read<number | null>("distance"),
        altitude: read<number | null>("altitude"),
        heartrate: read<number | null>("heartrate"),
        watts: read<number | null>("watts")
      }
    }

    /** The visible track of an activity under the zones and settings of the moment. */
    const trackOf = Effect.fn("SharedActivity.track")(function*(activityId: string) {
      const zones = yield* privacy.list()
      const { hiddenEndsInMeter } = yield* privacy.settings()
      return visibleTrack(samplesOf(activityId), zones, hiddenEndsInMeter)
    })

    /** What a share showing `shows` holds of the activity; null for an unknown activity. */
    const view = Effect.fn("SharedActivity.view")(function*(activityId: string, shows: Shows) {
      const activity = reads.findById(activityId)
      if (activity === null) return null
      const track = yield* trackOf(activityId)
      const samples = track.segments.map((segment) =>
        segment.map((s) => ({ ...s, heartrate: shows.heartRate ? s.heartrate : null, watts: shows.power ? s.watts : null }))
      )
      const shown: VisibleTrack = { ...track, segments: samples }
      return {
        activityId,
        name: activity.name,
        sportType: activity.sportType,
        date: activity.dateUnknown ? "Date unknown" : activity.startDateLocal.slice(0, 10),
        description: shows.description && activity.description !== "" ? activity.description : null,
        figures: figuresOf(activity, shown, shows),
        track: shown,
        shows,
        // only the types whose metadata photoWithoutMetadata removes
        photos: shows.photos
          ? db.rows(IMAGES, [activityId]).map(([fileName]) => ({ fileName: fileName as string })).filter((p) => /\.(jpe?g|png)$/i.test(p.fileName))
          : []
      } satisfies SharedView
    })

    return { view, trackOf } as const
  })
}) {}
