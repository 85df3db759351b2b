import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Logger } from "effect"
import { ParseWorker, ParseLimits } from "../../../src/services/import/ParseWorker.ts"
import { dayStart, fitActivity, scopedRoot, servicesLayer } from "../../support/ImportHarness.ts"

const DEFAULTS = { timeout: Duration.seconds(10), heapMb: 512 }
const smallRide = () => fitActivity({ start: dayStart(1), seconds: 600 })
const longRide = (hours: number) => fitActivity({ start: dayStart(2), seconds: hours * 3600 })

describe("ParseWorker (the parse worker)", () => {
  it.scopedLive("a file over the time limit fails with a message saying so and the replacement is logged; a fresh worker parses the next file", () =>
    Effect.gen(function*() {
      const root = yield* scopedRoot()
      const logged: Array<string> = []
      const collect = Logger.make(({ message }) => {
        logged.push((Array.isArray(message) ? message : [message]).join(" "))
      })
      yield* Effect.gen(function*() {
        const files = yield* ParseWorker
        const slow = yield* files.parse(longRide(10), "fit", "ten-hours.fit").pipe(
          Effect.provideService(ParseLimits, { ...DEFAULTS, timeout: Duration.millis(1) }),
          Effect.flip
        )
        expect(slow.message).toBe(`"ten-hours.fit" took more than 1ms to parse and was abandoned.`)
        expect(logged).toEqual([`parse worker replaced: ${slow.message}`])
        const next = yield* files.parse(smallRide(), "fit", "next.fit").pipe(Effect.provideService(ParseLimits, DEFAULTS))
        expect(next).toHaveLength(1)
        expect(next[0]!.movingTimeInSeconds).toBe(600)
        expect(logged).toHaveLength(1)
      }).pipe(Effect.provide(servicesLayer(root)), Effect.provide(Logger.replace(Logger.defaultLogger, collect)))
    }), { timeout: 60_000 })

  it.scopedLive("a file that exhausts the worker's heap fails as too large; a fresh worker parses the next file", () =>
    Effect.gen(function*() {
      const root = yield* scopedRoot()
      yield* Effect.gen(function*() {
        const files = yield* ParseWorker
        const huge = yield* files.parse(longRide(24), "fit", "day-long.fit").pipe(Effect.flip)
        expect(huge.message).toBe(`"day-long.fit" is too large or too complex to import (the parser ran out of memory).`)
        const next = yield* files.parse(smallRide(), "fit", "next.fit").pipe(Effect.provideService(ParseLimits, DEFAULTS))
        expect(next).toHaveLength(1)
      }).pipe(
        Effect.provide(servicesLayer(root)),
        // the worker the service starts with gets the small heap
        Effect.provideService(ParseLimits, { ...DEFAULTS, heapMb: 48 })
      )
    }), { timeout: 60_000 })
})
