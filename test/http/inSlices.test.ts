import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { inSlices, slicedScheduler } from "../../src/http/inSlices.ts"

/** Holds the thread for at least `ms` of wall time. */
const busy = (ms: number) => {
  const until = performance.now() + ms
  while (performance.now() < until) {
    // a task that takes its time
  }
}

describe("inSlices", () => {
  it.live("runs every task in order, later than it was given, and gives the loop its turn after a slice's time rather than after every task", () =>
    Effect.gen(function*() {
      const run = inSlices(5)
      const ran: Array<number> = []
      let ranWhenTheLoopGotItsTurn: number | undefined
      const { given } = yield* Effect.async<{ given: number }>((resume) => {
        for (let i = 0; i < 50; i++) {
          run(() => {
            ran.push(i)
            // what the loop queues while the first slice runs
            if (i === 0) setImmediate(() => (ranWhenTheLoopGotItsTurn = ran.length))
            busy(1)
            if (i === 49) resume(Effect.succeed({ given }))
          })
        }
        const given = ran.length
      })
      expect(given).toBe(0)
      expect(ran).toEqual(Array.from({ length: 50 }, (_, i) => i))
      // tasks of 1 ms in slices of 5 ms: six at most before the loop's turn (fewer on a busy machine)
      expect(ranWhenTheLoopGotItsTurn).toBeGreaterThanOrEqual(1)
      expect(ranWhenTheLoopGotItsTurn).toBeLessThanOrEqual(6)
    }))
})

describe("slicedScheduler", () => {
  it.live("runs fibers' steps in slices: the loop gets its turn after a slice's time, not once every ready fiber is done", () =>
    Effect.gen(function*() {
      let steps = 0
      let stepsWhenTheLoopGotItsTurn: number | undefined
      // fifty fibers of ten 1 ms steps each, always ready: the default scheduler would run them
      // all, from microtask to microtask, before the immediate queued below
      const fiber = (i: number) =>
        Effect.gen(function*() {
          for (let step = 0; step < 10; step++) {
            if (i === 0 && step === 0) setImmediate(() => (stepsWhenTheLoopGotItsTurn ??= steps))
            busy(1)
            steps++
            yield* Effect.yieldNow()
          }
        })
      yield* Effect.all(Array.from({ length: 50 }, (_, i) => fiber(i)), { concurrency: "unbounded", discard: true }).pipe(
        Effect.withScheduler(slicedScheduler(5))
      )
      expect(steps).toBe(500)
      // steps of 1 ms in slices of 5 ms: a few slices' worth at most before the loop's turn
      expect(stepsWhenTheLoopGotItsTurn).toBeGreaterThanOrEqual(1)
      expect(stepsWhenTheLoopGotItsTurn).toBeLessThan(50)
    }))
})
