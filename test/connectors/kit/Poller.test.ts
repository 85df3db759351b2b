import { describe, expect, it } from "@effect/vitest"
import { Clock, DateTime, Deferred, Duration, Effect, Fiber, Logger, LogLevel, Metric, Option, Ref, Schedule, TestClock } from "effect"
import { every, makePoller } from "../../../src/connectors/kit/Poller.ts"
import { RateLimited } from "../../../src/connectors/kit/RateLimit.ts"
import { connectorCycles, connectorErrors } from "../../../src/services/platform/Metrics.ts"

const MIN = 60_000

type Step = "ok" | "limit" | "fail" | { readonly limitFor: number }

/** A cycle that records when it started and ends as the script says (then "ok"). */
const scripted = (script: ReadonlyArray<Step>) =>
  Effect.gen(function*() {
    const starts = yield* Ref.make<Array<number>>([])
    const cycle = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const n = (yield* Ref.getAndUpdate(starts, (a) => [...a, now])).length
      const step = script[n] ?? "ok"
      if (step === "limit") return yield* new RateLimited({ message: "15min window spent" })
      if (step === "fail") return yield* Effect.fail(new Error("cloud answered 500"))
      if (typeof step === "object") {
        return yield* new RateLimited({ message: "429", retryAfter: Duration.millis(step.limitFor) })
      }
    })
    return { starts: Ref.get(starts), cycle }
  })

/** Lets forked fibers run up to their next sleep. */
const settle = Effect.repeatN(Effect.yieldNow(), 20)

describe("Poller", () => {
  it.scoped("counts its cycles by result, and those that ended in an error, under the connector's name", () =>
    Effect.gen(function*() {
      const { cycle } = yield* scripted(["ok", "fail", "limit"])
      const poller = yield* makePoller({ cloud: "counted", cycle, cadence: every(Duration.minutes(1), 0), backoff: { initial: "1 minute", max: "1 minute" }, maxCycles: 3 })
      yield* Effect.forkScoped(poller.run)
      for (let i = 0; i < 3; i++) yield* Effect.zipRight(settle, TestClock.adjust(Duration.minutes(1)))
      yield* poller.done
      const cycles = Metric.tagged(connectorCycles, "connector", "counted")
      const count = (result: string) => Effect.map(Metric.value(Metric.tagged(cycles, "result", result)), (s) => s.count)
      expect([yield* count("completed"), yield* count("failed"), yield* count("rateLimited")]).toEqual([1, 1, 1])
      expect((yield* Metric.value(Metric.tagged(connectorErrors, "connector", "counted"))).count).toBe(2)
    }))

  it.scoped("runs a cycle at once, then one per interval", () =>
    Effect.gen(function*() {
      const { cycle, starts } = yield* scripted([])
      const poller = yield* makePoller({ cloud: "test", cycle, cadence: every(Duration.minutes(10), 0), backoff: { initial: "20 minutes", max: "2 hours" } })
      yield* Effect.forkScoped(poller.run)
      yield* settle
      expect(yield* starts).toEqual([0])
      yield* TestClock.adjust(Duration.minutes(9))
      expect(yield* starts).toEqual([0])
      yield* TestClock.adjust(Duration.minutes(1))
      yield* settle
      yield* TestClock.adjust(Duration.minutes(10))
      yield* settle
      expect(yield* starts).toEqual([0, 10 * MIN, 20 * MIN])
      const status = yield* poller.status
      expect(status.phase).toBe("waiting")
      expect(status.cycles).toBe(3)
      expect(status.nextRunAt).toEqual(Option.some(DateTime.unsafeMake(30 * MIN)))
      expect(status.lastSuccessAt).toEqual(Option.some(DateTime.unsafeMake(20 * MIN)))
      expect(status.lastResult).toEqual(Option.some("completed"))
    }))

  it.scoped("with runAtStart false, the first cycle waits for the cadence", () =>
    Effect.gen(function*() {
      const { cycle, starts } = yield* scripted([])
      const poller = yield* makePoller({
        cloud: "test",
        cycle,
        cadence: every(Duration.minutes(5), 0),
        backoff: { initial: "10 minutes", max: "1 hour" },
        runAtStart: false
      })
      yield* Effect.forkScoped(poller.run)
      yield* settle
      expect(yield* starts).toEqual([])
      expect((yield* poller.status).phase).toBe("waiting")
      yield* TestClock.adjust(Duration.minutes(5))
      yield* settle
      expect(yield* starts).toEqual([5 * MIN])
    }))

  it.effect("jitter randomises each interval within plus or minus the percentage", () =>
    Effect.gen(function*() {
      const { cycle } = yield* scripted([])
      const poller = yield* makePoller({ cloud: "test", cycle, cadence: every(Duration.minutes(10), 20), backoff: { initial: "20 minutes", max: "2 hours" } })
      const fiber = yield* Effect.fork(poller.run)
      const delays: Array<number> = []
      for (let i = 0; i < 40; i++) {
        yield* settle
        const status = yield* poller.status
        const now = yield* Clock.currentTimeMillis
        const due = DateTime.toEpochMillis(Option.getOrThrow(status.nextRunAt))
        delays.push(due - now)
        yield* TestClock.adjust(due - now)
      }
      yield* Fiber.interrupt(fiber)
      for (const d of delays) {
        expect(d).toBeGreaterThanOrEqual(8 * MIN)
        expect(d).toBeLessThanOrEqual(12 * MIN)
      }
      expect(new Set(delays).size).toBeGreaterThan(10)
    }))

  it.scoped("after rate limits it backs off twice the interval, then doubling, capped, and resets after a success", () =>
    Effect.gen(function*() {
      const { cycle, starts } = yield* scripted(["limit", "limit", "limit", "limit", "ok", "limit"])
      const poller = yield* makePoller({ cloud: "test", cycle, cadence: every(Duration.minutes(10), 30), backoff: { initial: "20 minutes", max: "1 hour" } })
      yield* Effect.forkScoped(poller.run)
      yield* settle
      const backoffs: Array<number> = []
      for (let i = 0; i < 4; i++) {
        const status = yield* poller.status
        expect(status.phase).toBe("backingOff")
        backoffs.push(Duration.toMillis(status.backoff))
        yield* TestClock.adjust(status.backoff)
        yield* settle
      }
      // never jittered, even though the cadence is
      expect(backoffs).toEqual([20 * MIN, 40 * MIN, 60 * MIN, 60 * MIN])
      expect(yield* starts).toEqual([0, 20 * MIN, 60 * MIN, 120 * MIN, 180 * MIN])
      const afterSuccess = yield* poller.status
      expect(afterSuccess.phase).toBe("waiting")
      expect(Duration.toMillis(afterSuccess.backoff)).toBe(0)
      expect(afterSuccess.lastError).toEqual(Option.none())
      yield* TestClock.adjust(Duration.minutes(13))
      yield* settle
      const again = yield* poller.status
      expect(again.phase).toBe("backingOff")
      expect(Duration.toMillis(again.backoff)).toBe(20 * MIN)
      expect(again.lastError).toEqual(Option.some("15min window spent"))
      expect(again.lastResult).toEqual(Option.some("rateLimited"))
    }))

  it.scoped("a Retry-After longer than the backoff wins, even beyond the cap", () =>
    Effect.gen(function*() {
      const { cycle, starts } = yield* scripted([{ limitFor: 3 * 60 * MIN }])
      const poller = yield* makePoller({ cloud: "test", cycle, cadence: every(Duration.minutes(10), 0), backoff: { initial: "20 minutes", max: "1 hour" } })
      yield* Effect.forkScoped(poller.run)
      yield* settle
      expect(Duration.toMillis((yield* poller.status).backoff)).toBe(180 * MIN)
      yield* TestClock.adjust(Duration.minutes(179))
      yield* settle
      expect(yield* starts).toEqual([0])
      yield* TestClock.adjust(Duration.minutes(1))
      yield* settle
      expect(yield* starts).toEqual([0, 180 * MIN])
    }))

  it.scoped("a failed cycle is reported and the next one follows the normal cadence", () =>
    Effect.gen(function*() {
      const { cycle, starts } = yield* scripted(["fail"])
      const poller = yield* makePoller({ cloud: "test", cycle, cadence: every(Duration.minutes(10), 0), backoff: { initial: "20 minutes", max: "1 hour" } })
      yield* Effect.forkScoped(poller.run)
      yield* settle
      const status = yield* poller.status
      expect(status.lastResult).toEqual(Option.some("failed"))
      expect(status.lastError).toEqual(Option.some("cloud answered 500"))
      expect(status.lastSuccessAt).toEqual(Option.none())
      expect(Duration.toMillis(status.backoff)).toBe(0)
      yield* TestClock.adjust(Duration.minutes(10))
      yield* settle
      expect(yield* starts).toEqual([0, 10 * MIN])
      expect((yield* poller.status).lastError).toEqual(Option.none())
    }))

  it.scoped("a failure is logged at error level when it begins, not again while each cycle repeats it", () =>
    Effect.gen(function*() {
      const errors: Array<string> = []
      const collect = Logger.make(({ logLevel, message }) => {
        if (logLevel === LogLevel.Error) errors.push((Array.isArray(message) ? message : [message]).join(" "))
      })
      const { cycle } = yield* scripted(["fail", "fail", "fail", "limit", "fail"])
      const poller = yield* makePoller({ cloud: "test", cycle, cadence: every(Duration.minutes(1), 0), backoff: { initial: "1 minute", max: "1 minute" }, maxCycles: 5 })
      yield* Effect.forkScoped(poller.run.pipe(Effect.provide(Logger.replace(Logger.defaultLogger, collect))))
      for (let i = 0; i < 5; i++) yield* Effect.zipRight(settle, TestClock.adjust(Duration.minutes(1)))
      yield* poller.done
      // the three failures in a row are one error line; the one after a rate limit begins anew
      expect(errors).toEqual(["cycle failed: cloud answered 500", "cycle failed: cloud answered 500"])
    }))

  it.scoped("a defect in the cycle is a failed cycle, not the end of the loop", () =>
    Effect.gen(function*() {
      const count = yield* Ref.make(0)
      const cycle = Ref.updateAndGet(count, (n) => n + 1).pipe(
        Effect.flatMap((n) => n === 1 ? Effect.die(new Error("boom")) : Effect.void)
      )
      const poller = yield* makePoller({ cloud: "test", cycle, cadence: every(Duration.minutes(1), 0), backoff: { initial: "2 minutes", max: "1 hour" } })
      yield* Effect.forkScoped(poller.run)
      yield* settle
      expect((yield* poller.status).lastError).toEqual(Option.some("boom"))
      yield* TestClock.adjust(Duration.minutes(1))
      yield* settle
      expect(yield* Ref.get(count)).toBe(2)
    }))

  it.scoped("a trigger starts a cycle at once while waiting, queues one while running, waits out a backoff", () =>
    Effect.gen(function*() {
      const gate = yield* Ref.make<Option.Option<Deferred.Deferred<void>>>(Option.none())
      const { cycle: recorded, starts } = yield* scripted(["ok", "ok", "ok", "limit"])
      const cycle = recorded.pipe(Effect.zipLeft(Effect.flatMap(Ref.get(gate), Option.match({
        onNone: () => Effect.void,
        onSome: Deferred.await
      }))))
      const poller = yield* makePoller({ cloud: "test", cycle, cadence: every(Duration.hours(1), 0), backoff: { initial: "2 hours", max: "8 hours" } })
      yield* Effect.forkScoped(poller.run)
      yield* settle
      yield* TestClock.adjust(Duration.minutes(5))
      expect(yield* poller.trigger).toBe("started")
      yield* settle
      expect(yield* starts).toEqual([0, 5 * MIN])

      // hold the next cycle open, trigger twice while it runs: one more cycle, not two
      const release = yield* Deferred.make<void>()
      yield* Ref.set(gate, Option.some(release))
      yield* TestClock.adjust(Duration.minutes(5))
      expect(yield* poller.trigger).toBe("started")
      yield* settle
      expect((yield* poller.status).phase).toBe("running")
      expect(yield* poller.trigger).toBe("queued")
      expect(yield* poller.trigger).toBe("queued")
      yield* Ref.set(gate, Option.none())
      yield* Deferred.succeed(release, undefined)
      yield* settle
      expect(yield* starts).toEqual([0, 5 * MIN, 10 * MIN, 10 * MIN])
      expect((yield* poller.status).phase).toBe("backingOff")

      expect(yield* poller.trigger).toBe("deferred")
      yield* settle
      expect(yield* starts).toHaveLength(4)
      yield* TestClock.adjust(Duration.hours(2))
      yield* settle
      expect(yield* starts).toEqual([0, 5 * MIN, 10 * MIN, 10 * MIN, 130 * MIN])
    }))

  it.effect("with maxCycles the loop ends after that many cycles and reports stopped", () =>
    Effect.gen(function*() {
      const { cycle, starts } = yield* scripted([])
      const poller = yield* makePoller({
        cloud: "test",
        cycle,
        cadence: every(Duration.seconds(30), 0),
        backoff: { initial: "1 minute", max: "1 hour" },
        maxCycles: 3
      })
      const fiber = yield* Effect.fork(poller.run)
      yield* TestClock.adjust(Duration.minutes(5))
      yield* Fiber.join(fiber)
      yield* poller.done
      expect(yield* starts).toEqual([0, 30_000, 60_000])
      const status = yield* poller.status
      expect(status.phase).toBe("stopped")
      expect(status.nextRunAt).toEqual(Option.none())
      expect(yield* poller.trigger).toBe("stopped")
    }))

  it.scoped("a cron cadence runs at its times", () =>
    Effect.gen(function*() {
      const { cycle, starts } = yield* scripted([])
      const poller = yield* makePoller({
        cloud: "test",
        cycle,
        cadence: Schedule.cron("30 2 * * *", "UTC"),
        backoff: { initial: "1 hour", max: "6 hours" },
        runAtStart: false
      })
      yield* Effect.forkScoped(poller.run)
      yield* settle
      const due = Option.getOrThrow((yield* poller.status).nextRunAt)
      expect(DateTime.formatIso(due)).toBe("1970-01-01T02:30:00.000Z")
      yield* TestClock.adjust(Duration.hours(27))
      yield* settle
      expect(yield* starts).toEqual([Date.parse("1970-01-01T02:30:00Z"), Date.parse("1970-01-02T02:30:00Z")])
    }))
})
