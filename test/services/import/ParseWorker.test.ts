import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Either, Logger, LogLevel } from "effect"
import * as childProcess from "node:child_process"
import * as fs from "node:fs"
import { ParseWorker, ParseLimits } from "../../../src/services/import/ParseWorker.ts"
import { threadCpuMillis } from "../../../src/services/import/threadCpuTime.ts"
import { dayStart, fitActivity, scopedRoot, servicesLayer } from "../../support/ImportHarness.ts"
import { loggedMessages } from "../../support/loggedMessages.ts"

const DEFAULTS = { timeout: Duration.seconds(10), timeoutPerMiB: Duration.millis(500), heapMb: 512, recycleAfterIdle: Duration.seconds(10) }
/** The processor time of the threads this process started since `before` (the parse thread's). */
const newThreadsCpu = (before: ReadonlySet<string>) =>
  fs.readdirSync("/proc/self/task").filter((t) => !before.has(t)).reduce((sum, tid) => sum + (threadCpuMillis(Number(tid)) ?? 0), 0)

/**
 * The processor time `parse` cost: the parse thread's own (the thread started since `before`),
 * and that of every thread of the process (the parse thread, the garbage collector's helpers,
 * the daemon's side of the exchange).
 */
const cpuOf = <A, E, R>(before: ReadonlySet<string>, parse: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const start = newThreadsCpu(before)
    const startAll = process.cpuUsage()
    yield* parse
    const all = process.cpuUsage(startAll)
    return { parseThread: newThreadsCpu(before) - start, allThreads: (all.user + all.system) / 1000 }
  })

/**
 * Four busy loops pinned to the first core, each spinning once this succeeds, and every thread
 * this process started since `before` (the parse thread) pinned there with them, until the
 * scope closes: the parse thread (nice 10) then gets a few percent of that core, whatever the
 * rest of the machine does.
 */
const crowdedCore = (before: ReadonlySet<string>) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const children = await Promise.all(Array.from({ length: 4 }, () =>
        new Promise<childProcess.ChildProcess>((resolve) => {
          const child = childProcess.spawn("taskset", ["-c", "0", process.execPath, "-e", "require('fs').writeSync(1, 'spinning\\n');for(;;){}"], {
            stdio: ["ignore", "pipe", "ignore"]
          })
          child.stdout!.once("data", () => resolve(child))
        })))
      for (const tid of fs.readdirSync("/proc/self/task").filter((t) => !before.has(t))) childProcess.execFileSync("taskset", ["-p", "-c", "0", tid], { stdio: "ignore" })
      return children
    }),
    (children) => Effect.sync(() => children.forEach((c) => c.kill("SIGKILL")))
  )

const hasTaskset = process.platform === "linux" && childProcess.spawnSync("taskset", ["-V"]).status === 0

/**
 * The rides each encoded once for the file (a day-long FIT takes most of a second to encode),
 * a fresh copy per parse: the parse moves the bytes it is given to the worker.
 */
const encoded = new Map<number, Uint8Array>()
const ride = (day: number, seconds: number) => {
  let bytes = encoded.get(seconds)
  if (bytes === undefined) {
    bytes = fitActivity({ start: dayStart(day), seconds })
    encoded.set(seconds, bytes)
  }
  return bytes.slice()
}
const smallRide = () => ride(1, 600)
const longRide = (hours: number) => ride(2, hours * 3600)

describe("ParseWorker (the parse worker)", () => {
  it.scopedLive("a file over its time budget fails with a message saying so and the replacement is logged; a fresh worker parses the next file", () =>
    Effect.gen(function*() {
      const root = yield* scopedRoot()
      const { logged, layer: collectLogs } = loggedMessages()
      yield* Effect.gen(function*() {
        const files = yield* ParseWorker
        const slow = yield* files.parse(longRide(24), "fit", "day-long.fit").pipe(
          Effect.provideService(ParseLimits, { ...DEFAULTS, timeout: Duration.millis(1), timeoutPerMiB: Duration.zero }),
          Effect.flip
        )
        expect(slow.message).toBe(`"day-long.fit" took more than 1ms of processor time to parse and was abandoned.`)
        expect(logged).toEqual([`parse worker replaced: ${slow.message}`])
        const next = yield* files.parse(smallRide(), "fit", "next.fit").pipe(Effect.provideService(ParseLimits, DEFAULTS))
        expect(next).toHaveLength(1)
        expect(next[0]!.movingTimeInSeconds).toBe(600)
        expect(logged).toHaveLength(1)
      }).pipe(Effect.provide(servicesLayer(root)), Effect.provide(collectLogs))
    }), { timeout: 120_000 })

  it.scopedLive.skipIf(!hasTaskset)(
    "the budget is the parse thread's processor time, not the clock's: on a crowded core a file parses slower and succeeds, and one over its processor time fails",
    () =>
      Effect.gen(function*() {
        const root = yield* scopedRoot()
        const bytes = longRide(24)
        const before = new Set(fs.readdirSync("/proc/self/task"))
        yield* Effect.gen(function*() {
          const files = yield* ParseWorker
          // what the file costs the parse thread on this machine, warm
          yield* files.parse(bytes.slice(), "fit", "warm-up.fit")
          const cpu = yield* cpuOf(before, files.parse(bytes.slice(), "fit", "measured.fit"))
          expect(cpu.parseThread).toBeGreaterThan(0)
          // room for what a crowded thread does itself that helpers do on a free core (the
          // collector's work): three times what every thread spent
          const budget = Duration.millis(Math.max(300, Math.round(3 * cpu.allThreads)))
          const limits = { ...DEFAULTS, timeout: budget, timeoutPerMiB: Duration.zero }
          // the core crowded for that parse only: its four loops burn a core as long as they spin
          const [took, loaded] = yield* Effect.scoped(Effect.zipRight(
            crowdedCore(before),
            Effect.timed(files.parse(bytes.slice(), "fit", "loaded.fit").pipe(Effect.provideService(ParseLimits, limits)))
          ))
          expect(loaded.length).toBe(1)
          expect(Duration.toMillis(took), `the crowded parse took ${Duration.format(took)} by the clock, budget ${Duration.format(budget)}`).toBeGreaterThan(Duration.toMillis(budget))
          // a fifth of what it needs (the core free again): refused
          const fifth = Duration.millis(Math.max(10, Math.round(cpu.parseThread / 5)))
          const refused = yield* Effect.either(files.parse(bytes.slice(), "fit", "fifth.fit").pipe(
            Effect.provideService(ParseLimits, { ...DEFAULTS, timeout: fifth, timeoutPerMiB: Duration.zero })
          ))
          expect(Either.isLeft(refused) ? refused.left.message : "parsed").toBe(`"fifth.fit" took more than ${Duration.format(fifth)} of processor time to parse and was abandoned.`)
        }).pipe(Effect.provide(servicesLayer(root)), Effect.scoped)
      }),
    { timeout: 120_000 }
  )

  it.scopedLive.skipIf(process.platform !== "linux")("the parse thread runs at a lower priority (nice 10) than the daemon's event loop, and is back at it after a file a person waits for", () =>
    Effect.gen(function*() {
      const root = yield* scopedRoot()
      const niceOf = (tid: string) => Number(fs.readFileSync(`/proc/self/task/${tid}/stat`, "utf8").split(") ")[1]!.split(" ")[16])
      const before = new Set(fs.readdirSync("/proc/self/task"))
      yield* Effect.gen(function*() {
        const files = yield* ParseWorker
        expect(yield* files.parse(smallRide(), "fit", "ride.fit")).toHaveLength(1)
        const started = fs.readdirSync("/proc/self/task").filter((tid) => !before.has(tid))
        // the parse thread, and none of the others, is niced
        expect(started.map(niceOf).filter((nice) => nice === 10)).toHaveLength(1)
        expect(niceOf(String(process.pid))).toBe(0)
        // a change of sport asks for the daemon's priority while it is parsed (where allowed), then yields again
        expect(yield* files.parse(smallRide(), "fit", "sport-changed.fit", "Run", undefined, true)).toHaveLength(1)
        expect(started.map(niceOf).filter((nice) => nice === 10)).toHaveLength(1)
      }).pipe(Effect.provide(servicesLayer(root)))
    }), { timeout: 120_000 })

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
    }), { timeout: 120_000 })

  it.scopedLive("a worker idle after parsing is replaced by a fresh one (its grown heap given back), which parses the next file; an unused worker is kept", () =>
    Effect.gen(function*() {
      const root = yield* scopedRoot()
      const recycled: Array<number> = []
      const collect = Logger.make(({ message }) => {
        // when, not only what: the recycling must wait for the idle time
        if ((Array.isArray(message) ? message : [message]).join(" ") === "parse worker recycled after idle") recycled.push(Date.now())
      })
      yield* Effect.gen(function*() {
        const files = yield* ParseWorker
        // never used yet: nothing to give back
        yield* Effect.sleep(Duration.millis(1200))
        expect(recycled).toEqual([])
        const parsedAt = Date.now()
        expect(yield* files.parse(longRide(3), "fit", "three-hours.fit")).toHaveLength(1)
        // polled every 300 ms: a loaded machine may take a while to terminate the old worker
        yield* Effect.sleep(Duration.millis(100)).pipe(Effect.repeat({ until: () => recycled.length > 0 }), Effect.timeout(Duration.seconds(90)))
        expect(recycled).toHaveLength(1)
        expect(recycled[0]! - parsedAt).toBeGreaterThanOrEqual(300)
        // the fresh worker has parsed nothing: it stays
        yield* Effect.sleep(Duration.millis(1000))
        expect(recycled).toHaveLength(1)
        const next = yield* files.parse(smallRide(), "fit", "next.fit")
        expect(next).toHaveLength(1)
        expect(next[0]!.movingTimeInSeconds).toBe(600)
      }).pipe(
        Effect.provide(servicesLayer(root)),
        Effect.provideService(ParseLimits, { ...DEFAULTS, recycleAfterIdle: Duration.millis(300) }),
        Effect.provide(Logger.replace(Logger.defaultLogger, collect)),
        Logger.withMinimumLogLevel(LogLevel.Debug)
      )
    }), { timeout: 120_000 })
})

describe("ParseWorker with two workers (IMPORT_PARSE_WORKERS=2)", () => {
  it.scopedLive("a small file is parsed beside a long one, not behind it", () =>
    Effect.gen(function*() {
      const root = yield* scopedRoot({ IMPORT_PARSE_WORKERS: "2" })
      yield* Effect.gen(function*() {
        const files = yield* ParseWorker
        expect(files.size).toBe(2)
        const finished: Array<string> = []
        const parse = (bytes: Uint8Array, name: string) => Effect.tap(files.parse(bytes, "fit", name), () => Effect.sync(() => finished.push(name)))
        // both workers started first, so that only the parses race
        yield* Effect.all([parse(smallRide(), "warm-1.fit"), parse(smallRide(), "warm-2.fit")], { concurrency: 2 })
        finished.length = 0
        yield* Effect.all([parse(longRide(24), "day-long.fit"), Effect.delay(parse(smallRide(), "small.fit"), Duration.millis(50))], { concurrency: 2 })
        expect(finished).toEqual(["small.fit", "day-long.fit"])
      }).pipe(Effect.provide(servicesLayer(root)))
    }), { timeout: 120_000 })

  it.scopedLive("with one worker the small file waits for the long one", () =>
    Effect.gen(function*() {
      const root = yield* scopedRoot({ IMPORT_PARSE_WORKERS: "1" })
      yield* Effect.gen(function*() {
        const files = yield* ParseWorker
        const finished: Array<string> = []
        const parse = (bytes: Uint8Array, name: string) => Effect.tap(files.parse(bytes, "fit", name), () => Effect.sync(() => finished.push(name)))
        yield* parse(smallRide(), "warm.fit")
        finished.length = 0
        yield* Effect.all([parse(longRide(24), "day-long.fit"), Effect.delay(parse(smallRide(), "small.fit"), Duration.millis(50))], { concurrency: 2 })
        expect(finished).toEqual(["day-long.fit", "small.fit"])
      }).pipe(Effect.provide(servicesLayer(root)))
    }), { timeout: 120_000 })
})
