import * as Cron from "effect/Cron"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import type { GearComponent } from "../schema/GearComponentModels.ts"
import { GearComponents, type OverdueComponent } from "../services/gear/GearComponents.ts"
import { AppConfig } from "../services/platform/AppConfig.ts"
import { inChannel } from "../services/platform/Logs.ts"
import { supervise } from "../services/platform/supervise.ts"

/**
 * Once a day, at 04:00 where the service runs (TZ), the `daemon` log names the components of the
 * gear in use that are overdue for a service (a warning), or says that none is (info).
 */

export const GEAR_MAINTENANCE_CRON = "0 4 * * *"

const amount = (n: number) => Math.round(n).toLocaleString("en-US")

/** How far past each of its intervals a component is: "1,204 km, 3 h and 12 days over". */
const overdueBy = (c: GearComponent): string => {
  const over: Array<string> = []
  if (c.dueInMeter !== null && c.dueInMeter < 0) over.push(`${amount(-c.dueInMeter / 1000)} km`)
  if (c.dueInSeconds !== null && c.dueInSeconds < 0) over.push(`${amount(-c.dueInSeconds / 3600)} h`)
  if (c.dueInDays !== null && c.dueInDays < 0) over.push(`${amount(-c.dueInDays)} days`)
  return `${over.length > 1 ? `${over.slice(0, -1).join(", ")} and ${over.at(-1)}` : over[0]} over`
}

/** The day's notice: each overdue component with its gear and how far over it is. */
export const overdueNotice = (overdue: ReadonlyArray<OverdueComponent>): string =>
  overdue.length === 0
    ? "gear maintenance: no component is overdue"
    : `gear maintenance: ${overdue.length} component${overdue.length === 1 ? " is" : "s are"} overdue: ${
      overdue.map(({ component, gearName }) => `"${component.name}" of "${gearName}" (${overdueBy(component)})`).join("; ")
    }`

export const GearMaintenanceLive = Layer.scopedDiscard(Effect.gen(function*() {
  const config = yield* AppConfig
  const components = yield* GearComponents
  const cron = Cron.unsafeParse(GEAR_MAINTENANCE_CRON, config.timeZone)
  const report = Effect.gen(function*() {
    const overdue = yield* components.overdue()
    const notice = overdueNotice(overdue)
    yield* (overdue.length === 0 ? Effect.logInfo(notice) : Effect.logWarning(notice)).pipe(
      Effect.annotateLogs({ overdueComponents: overdue.map((o) => o.component.id) })
    )
  }).pipe(inChannel("daemon"))
  yield* supervise("GearMaintenance", report.pipe(Effect.schedule(Schedule.cron(cron))))
}))
