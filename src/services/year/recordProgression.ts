import { effortName } from "../../schema/EffortDistances.ts"
import type { SportType } from "../../schema/SportType.ts"
import type { PersonalRecord } from "../../schema/StatsModels.ts"
import { DISCIPLINES } from "../stats/Stats.ts"

/**
 * Every record the activities set, in the order they set them: walking the runs and the rides
 * from the first, a best effort over one of the records' standard distances is a new record
 * when it is faster than every one before it over that distance and in that discipline (the
 * first one included). The last record of each distance is the one /stats/records answers.
 */

export interface ProgressionActivity {
  readonly id: string
  readonly sportType: SportType
  readonly startDateLocal: string
}

/** A stored best effort: distance in metres, time and start offset in seconds. */
export interface StoredEffort {
  readonly distance: number
  readonly time: number
  readonly offset: number
}

const disciplineOf = new Map<string, typeof DISCIPLINES[number]>(DISCIPLINES.flatMap((d) => [...d.sports].map((s) => [s, d] as const)))

/** `activities` in the order they started; `efforts` of each activity by its id. */
export const recordProgression = (
  activities: ReadonlyArray<ProgressionActivity>,
  efforts: ReadonlyMap<string, ReadonlyArray<StoredEffort>>
): Array<PersonalRecord> => {
  const best = new Map<string, number>()
  const records: Array<PersonalRecord> = []
  for (const activity of activities) {
    const discipline = disciplineOf.get(activity.sportType)
    const own = efforts.get(activity.id)
    if (discipline === undefined || own === undefined) continue
    for (const distance of discipline.distances) {
      const effort = own.find((e) => e.distance === distance)
      if (effort === undefined) continue
      const key = `${discipline.discipline} ${distance}`
      const before = best.get(key)
      if (before !== undefined && effort.time >= before) continue
      best.set(key, effort.time)
      records.push({
        discipline: discipline.discipline,
        name: effortName(distance),
        distanceInMeter: distance,
        elapsedTimeInSeconds: effort.time,
        activityId: activity.id,
        sportType: activity.sportType,
        startDateLocal: activity.startDateLocal,
        startOffsetInSeconds: effort.offset
      })
    }
  }
  return records
}
