import { encodeFit, type FitMessage, fitSeconds, Mesg } from "../services/import/parsers/fitFixtures.ts"

/**
 * FIT activities of known blocks of power and heart rate (one record a second, no position: an
 * indoor session), built with the Garmin FIT SDK, so that their training figures can be worked
 * out by hand.
 */

export interface Blocks {
  /** UTC start */
  readonly start: Date
  /** FIT sport: "cycling" (a Ride), "running" (a Run), "swimming" */
  readonly sport?: string
  /** [seconds, watts] blocks, in order */
  readonly power?: ReadonlyArray<readonly [number, number]>
  /** [seconds, bpm] blocks, in order */
  readonly heartRate?: ReadonlyArray<readonly [number, number]>
  /** metres per second, steady, with a distance per record (none when absent) */
  readonly speed?: number
  /** rise over distance, from 100 m: an altitude per record */
  readonly grade?: number
  /** the session's average heart rate, as the device writes it */
  readonly avgHeartRate?: number
}

const expand = (blocks: ReadonlyArray<readonly [number, number]> | undefined): Array<number> =>
  (blocks ?? []).flatMap(([seconds, value]) => Array.from({ length: seconds }, () => value))

/** The recording's length in seconds: the longest of its block lists. */
export const blocksSeconds = (blocks: Blocks): number => Math.max(expand(blocks.power).length, expand(blocks.heartRate).length)

export const blocksFit = (blocks: Blocks): Uint8Array => {
  const power = expand(blocks.power)
  const heartRate = expand(blocks.heartRate)
  const n = blocksSeconds(blocks)
  const at = (s: number) => new Date(blocks.start.getTime() + s * 1000)
  const records: Array<FitMessage> = []
  for (let s = 0; s < n; s++) {
    const distance = blocks.speed === undefined ? undefined : s * blocks.speed
    records.push([Mesg["RECORD"]!, {
      timestamp: at(s),
      ...(power[s] === undefined ? {} : { power: power[s] }),
      ...(heartRate[s] === undefined ? {} : { heartRate: heartRate[s] }),
      ...(distance === undefined ? {} : { distance, speed: blocks.speed }),
      ...(distance === undefined || blocks.grade === undefined ? {} : { altitude: 100 + distance * blocks.grade })
    }])
  }
  const end = at(n - 1)
  const seconds = n
  const totalDistance = blocks.speed === undefined ? undefined : (n - 1) * blocks.speed
  return encodeFit([
    [Mesg["FILE_ID"]!, { type: "activity", manufacturer: "garmin", product: 3121, serialNumber: 1234, timeCreated: blocks.start }],
    ...records,
    [Mesg["LAP"]!, { timestamp: end, startTime: blocks.start, totalElapsedTime: seconds, totalTimerTime: seconds, ...(totalDistance === undefined ? {} : { totalDistance }) }],
    [Mesg["SESSION"]!, {
      timestamp: end, startTime: blocks.start, sport: blocks.sport ?? "cycling", totalElapsedTime: seconds, totalTimerTime: seconds,
      ...(totalDistance === undefined ? {} : { totalDistance }),
      ...(blocks.avgHeartRate === undefined ? {} : { avgHeartRate: blocks.avgHeartRate })
    }],
    [Mesg["ACTIVITY"]!, { timestamp: end, localTimestamp: fitSeconds(end), numSessions: 1 }]
  ])
}
