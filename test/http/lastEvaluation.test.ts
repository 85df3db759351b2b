import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Queue, TestClock } from "effect"
import { lastEvaluation } from "../../src/http/system/lastEvaluation.ts"

/** What the health probes are answered from: the checks' last evaluation, renewed in the background. */
describe("lastEvaluation", () => {
  it.scoped("waits for the first result; answers a fresh one without evaluating; an older one gets its renewal when it comes soon, else the older one while one renewal runs for every caller; waits again past its bound", () =>
    Effect.gen(function*() {
      // each evaluation takes its result from here: it lasts until the test gives one
      const results = yield* Queue.unbounded<number>()
      let evaluations = 0
      const evaluate = Effect.tap(Queue.take(results), () => Effect.sync(() => evaluations++))
      const last = yield* lastEvaluation(evaluate, { freshFor: "1 second", waitFor: "20 millis", answerFor: "1 minute" })

      const first = yield* Effect.fork(last)
      yield* Queue.offer(results, 1)
      expect(yield* Fiber.join(first)).toBe(1)
      yield* TestClock.adjust("500 millis")
      expect(yield* last).toBe(1)
      expect(evaluations).toBe(1)

      // older than a second, renewed within the wait: the new result
      yield* TestClock.adjust("2 seconds")
      const soon = yield* Effect.fork(last)
      yield* Queue.offer(results, 2)
      expect(yield* Fiber.join(soon)).toBe(2)
      expect(evaluations).toBe(2)

      // older than a second, renewal late: the older result after the wait, one renewal for all callers
      yield* TestClock.adjust("2 seconds")
      const late = [yield* Effect.fork(last), yield* Effect.fork(last)]
      yield* Effect.yieldNow()
      expect(yield* Queue.size(results)).toBe(-1)
      yield* TestClock.adjust("20 millis")
      for (const caller of late) expect(yield* Fiber.join(caller)).toBe(2)
      yield* Queue.offer(results, 3)
      let renewed = yield* last
      while (renewed !== 3) {
        yield* Effect.yieldNow()
        renewed = yield* last
      }
      expect(evaluations).toBe(3)

      // older than a minute: waited for, however long it takes
      yield* TestClock.adjust("2 minutes")
      const stale = yield* Effect.fork(last)
      yield* TestClock.adjust("1 second")
      expect(stale.unsafePoll()).toBeNull()
      yield* Queue.offer(results, 4)
      expect(yield* Fiber.join(stale)).toBe(4)
      expect(evaluations).toBe(4)
    }))
})
