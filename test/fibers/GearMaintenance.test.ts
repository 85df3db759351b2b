import { expect, it } from "@effect/vitest"
import { Effect, HashMap, Layer, Logger, Option, TestClock, TestContext } from "effect"
import { GearMaintenanceLive } from "../../src/fibers/GearMaintenance.ts"
import { GearRepo } from "../../src/services/activities/GearRepo.ts"
import { GearComponents } from "../../src/services/gear/GearComponents.ts"
import { scopedRoot, servicesLayer } from "../support/ImportHarness.ts"

/**
 * The daily notice of overdue components, on a test clock (which starts at 1970-01-01T00:00Z;
 * the daemon's TZ is UTC): nothing before 04:00, then one line in the `daemon` channel each day
 * naming the overdue components of the gear in use.
 */

interface Line {
  readonly level: string
  readonly message: string
  readonly channel: string | undefined
}

const collect = (lines: Array<Line>) =>
  Logger.replace(
    Logger.defaultLogger,
    Logger.make(({ annotations, logLevel, message }) => {
      const channel = Option.getOrUndefined(HashMap.get(annotations, "channel")) as string | undefined
      lines.push({ level: logLevel.label, message: String(Array.isArray(message) ? message[0] : message), channel })
    })
  )

/** Lets the forked notice run once the clock moved (a bounded number of turns of the scheduler). */
const settle = (lines: Array<Line>, count: number) =>
  Effect.gen(function*() {
    for (let turn = 0; turn < 1000 && lines.filter((l) => l.channel === "daemon" && l.message.startsWith("gear maintenance")).length < count; turn++) {
      yield* Effect.yieldNow()
    }
    return lines.filter((l) => l.channel === "daemon" && l.message.startsWith("gear maintenance"))
  })

it.scopedLive("names the overdue components of the gear in use in the daemon log once a day at 04:00", () => {
  const lines: Array<Line> = []
  return Effect.gen(function*() {
    const gear = yield* GearRepo
    const components = yield* GearComponents
    yield* gear.upsert({ id: "gear-road", name: "Road bike", type: "custom", isRetired: false })
    yield* gear.upsert({ id: "gear-old", name: "Old bike", type: "custom", isRetired: true })
    const chain = yield* components.create("gear-road", { name: "Chain", installedOn: "1969-12-01", intervalInMeter: null, intervalInSeconds: null, intervalInDays: 10 })
    yield* components.create("gear-road", { name: "Tyres", installedOn: "1969-12-01", intervalInMeter: 5_000_000, intervalInSeconds: null, intervalInDays: null })
    yield* components.create("gear-old", { name: "Old chain", installedOn: "1969-01-01", intervalInMeter: null, intervalInSeconds: null, intervalInDays: 10 })

    // the notice runs on the test clock; the storage was opened on the real one
    yield* Effect.gen(function*() {
      yield* Layer.build(GearMaintenanceLive)
      yield* TestClock.adjust("3 hours")
      expect(yield* settle(lines, 1)).toEqual([])

      yield* TestClock.adjust("1 hour")
      const first = yield* settle(lines, 1)
      expect(first).toEqual([{ level: "WARN", channel: "daemon", message: 'gear maintenance: 1 component is overdue: "Chain" of "Road bike" (21 days over)' }])

      yield* TestClock.adjust("24 hours")
      expect((yield* settle(lines, 2))[1]!.message).toBe('gear maintenance: 1 component is overdue: "Chain" of "Road bike" (22 days over)')

      // serviced: the next day's notice says that nothing is overdue
      yield* components.addService(chain, "1970-01-02", null)
      yield* TestClock.adjust("24 hours")
      expect((yield* settle(lines, 3))[2]).toEqual({ level: "INFO", channel: "daemon", message: "gear maintenance: no component is overdue" })
    }).pipe(Effect.provide(TestContext.TestContext))
  }).pipe(Effect.provide(Layer.merge(Layer.unwrapScoped(Effect.map(scopedRoot(), servicesLayer)), collect(lines))))
})
