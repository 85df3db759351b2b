import { effortName } from "../../schema/EffortDistances.ts"
import type { SportType } from "../../schema/SportType.ts"
import type { PersonalRecord } from "../../schema/StatsModels.ts"
import { DISCIPLINES } from "../stats/Stats.ts"

/**
 * Every record the activities set, in the order they set them: walking the runs and the rides
 * from the first (and on, as activities are added after the last), a best effort over one of the records' standard distances is a new record
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

interface Discipline {
  readonly discipline: PersonalRecord["discipline"]
  /** the place of each of its records' distances in `best` */
  readonly at: ReadonlyMap<number, number>
}

const disciplineOf = new Map<string, Discipline>(DISCIPLINES.flatMap((d) => {
  const discipline = { discipline: d.discipline, at: new Map(d.distances.map((distance, i) => [distance as number, i])) }
  return [...d.sports].map((s) => [s, discipline] as const)
}))

const NONE: ReadonlyArray<PersonalRecord> = []

/**
 * The walk: `add` takes the next activity (in the order they started) with its efforts and gives
 * the records it set; `records` every record so far, in the order they were set.
 */
export const makeRecordProgression = () => {
  // the record so far of each discipline's distances
  const best = new Map<Discipline, Array<number>>()
  const records: Array<PersonalRecord> = []
  const add = (activity: ProgressionActivity, own: ReadonlyArray<StoredEffort> | undefined): ReadonlyArray<PersonalRecord> => {
    const discipline = disciplineOf.get(activity.sportType)
    if (discipline === undefined || own === undefined || own.length === 0) return NONE
    let times = best.get(discipline)
    if (times === undefined) best.set(discipline, times = Array.from(discipline.at.keys(), () => Infinity))
    const set: Array<PersonalRecord> = []
    for (const effort of own) {
      const at = discipline.at.get(effort.distance)
      if (at === undefined || effort.time >= times[at]!) continue
      times[at] = effort.time
      set.push({
        discipline: discipline.discipline,
        name: effortName(effort.distance),
        distanceInMeter: effort.distance,
        elapsedTimeInSeconds: effort.time,
        activityId: activity.id,
        sportType: activity.sportType,
        startDateLocal: activity.startDateLocal,
        startOffsetInSeconds: effort.offset
      })
    }
    records.push(...set)
    return set
  }
  return { add, records: (): ReadonlyArray<PersonalRecord> => records }
}
