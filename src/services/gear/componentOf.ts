import { type ComponentService, type ComponentStatus, DUE_SOON_SHARE, type GearComponent } from "../../schema/GearComponentModels.ts"
import { dateOf, dayNumber } from "../platform/LocalTime.ts"

/**
 * What a component answers: its use since the last service (or since it was installed) and
 * what is left of each of its intervals, negative when overdue.
 */

export interface ComponentRow {
  readonly id: string
  readonly gearId: string
  readonly name: string
  readonly installedOn: string
  readonly intervalInMeter: number | null
  readonly intervalInSeconds: number | null
  readonly intervalInDays: number | null
}

/** The sums of the activities that carry the gear, from a day on. */
export interface GearUse {
  readonly activities: number
  readonly distanceInMeter: number
  readonly movingTimeInSeconds: number
}

/** The day use is counted from: the last service, or the install date when none is later. */
export const useSince = (row: ComponentRow, services: ReadonlyArray<ComponentService>): string => {
  const last = services[0]?.on
  return last !== undefined && last > row.installedOn ? last : row.installedOn
}

const left = (interval: number | null, used: number) => (interval === null ? null : interval - used)

/** `services` newest first; `use` counted from `useSince`; `today` where the service runs. */
export const componentOf = (row: ComponentRow, services: ReadonlyArray<ComponentService>, use: GearUse, today: string): GearComponent => {
  const since = useSince(row, services)
  const days = dayNumber(today) - dayNumber(since)
  const dueInMeter = left(row.intervalInMeter, use.distanceInMeter)
  const dueInSeconds = left(row.intervalInSeconds, use.movingTimeInSeconds)
  const dueInDays = left(row.intervalInDays, days)
  const figures = [[dueInMeter, row.intervalInMeter], [dueInSeconds, row.intervalInSeconds], [dueInDays, row.intervalInDays]] as const
  const status: ComponentStatus = figures.some(([due]) => due !== null && due < 0)
    ? "overdue"
    : figures.some(([due, interval]) => due !== null && interval !== null && due <= interval * DUE_SOON_SHARE)
    ? "dueSoon"
    : "ok"
  return {
    id: row.id,
    gearId: row.gearId,
    name: row.name,
    installedOn: row.installedOn,
    intervalInMeter: row.intervalInMeter,
    intervalInSeconds: row.intervalInSeconds,
    intervalInDays: row.intervalInDays,
    lastServiceOn: services[0]?.on ?? null,
    services,
    use: { since, ...use, days },
    dueInMeter,
    dueInSeconds,
    dueInDays,
    dueOn: row.intervalInDays === null ? null : dateOf(dayNumber(since) + row.intervalInDays),
    status
  }
}
