import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Option } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { RateLimited } from "../../../src/connectors/kit/RateLimit.ts"
import { MAX_FILE_ATTEMPTS, WahooSync } from "../../../src/connectors/wahoo/WahooSync.ts"
import type { WahooClient } from "../../../src/connectors/wahoo/WahooClient.ts"
import type { FakeWahoo, FakeWahooOptions } from "../../fakes/FakeWahoo.ts"
import { connectClient, daysAgo, type Dirs, envFor, eventually, listDir, readHistory, scopedDirs, scopedFake, servicesLayer } from "./harness.ts"

const withSync = <A, E>(
  body: (fake: FakeWahoo, dirs: Dirs) => Effect.Effect<A, E, WahooSync | WahooClient>,
  options: { readonly fake?: FakeWahooOptions; readonly env?: Record<string, string> } = {}
) =>
  Effect.gen(function*() {
    const fake = yield* scopedFake(options.fake)
    const dirs = yield* scopedDirs
    return yield* Effect.gen(function*() {
      yield* connectClient
      return yield* body(fake, dirs)
    }).pipe(Effect.provide(servicesLayer(envFor(fake, dirs, options.env))))
  })

const runSync = (window: "1_day" | "1_week" | "1_month" | "1_year" | "all_time" = "1_week") =>
  Effect.flatMap(WahooSync, (sync) => Effect.map(sync.run(window), Option.getOrThrow))

const bytesOf = (text: string) => new TextEncoder().encode(text)

describe("WahooSync against the fake Wahoo", () => {
  it.scopedLive("downloads the workouts of the window as <date>_workout_<id>.fit, records them, and a second sync downloads nothing", () =>
    withSync((fake, dirs) =>
      Effect.gen(function*() {
        const recent = [1, 3, 6].map((d, i) => fake.addWorkout({ id: 100 + i, starts: daysAgo(d), file: bytesOf(`ride ${i}`) }))
        fake.addWorkout({ id: 200, starts: daysAgo(10) })
        const result = yield* runSync("1_week")
        const names = recent.map((w) => `${w.starts.slice(0, 10)}_workout_${w.id}.fit`)
        expect(result).toMatchObject({ status: "success", new_downloads: 3, skipped: 0, time_window: "1_week" })
        expect(listDir(dirs.watchDir)).toEqual([...names].sort())
        for (const [i, name] of names.entries()) {
          expect(fs.readFileSync(path.join(dirs.watchDir, name), "utf8")).toBe(`ride ${i}`)
          expect(fs.statSync(path.join(dirs.watchDir, name)).mode & 0o777).toBe(0o644)
        }
        expect(fake.downloads.get(200)).toBeUndefined()
        const history = readHistory(dirs)
        expect(history.version).toBe(1)
        expect(Object.keys(history.downloaded).sort()).toEqual(["100", "101", "102"])
        expect(history.downloaded["100"]).toMatchObject({ id: "100", filename: names[0], starts: new Date(recent[0]!.starts).toISOString() })
        expect(history.last_sync).toBe(result.timestamp)

        const listingsBefore = fake.requestsTo("/v1/workouts").length
        const again = yield* runSync("1_week")
        expect(again).toMatchObject({ status: "success", new_downloads: 0, skipped: 3, message: "No new workouts" })
        expect(fake.requestsTo("/v1/workouts").length - listingsBefore).toBe(1)
        expect([...fake.downloads.values()]).toEqual([1, 1, 1])
      })
    ))

  it.scopedLive("pages newest first, then stops paging at a page that reaches a downloaded workout", () =>
    withSync((fake) =>
      Effect.gen(function*() {
        for (let i = 0; i < 60; i++) fake.addWorkout({ id: 1000 + i, starts: new Date(Date.now() - (i + 1) * 3_600_000) })
        const first = yield* runSync("1_year")
        expect(first.new_downloads).toBe(60)
        expect(fake.requestsTo("/v1/workouts").map((r) => r.query["page"])).toEqual(["1", "2"])
        const newest = fake.addWorkout({ id: 5000, starts: new Date(Date.now() - 60_000) })
        const before = fake.requestsTo("/v1/workouts").length
        const second = yield* runSync("1_year")
        expect(second).toMatchObject({ new_downloads: 1, downloaded: [`${newest.starts.slice(0, 10)}_workout_5000.fit`] })
        expect(fake.requestsTo("/v1/workouts").slice(before).map((r) => r.query["page"])).toEqual(["1"])
      })
    ))

  it.scopedLive("a workout uploaded late (sorted below a downloaded one) on the same page is still downloaded", () =>
    withSync((fake) =>
      Effect.gen(function*() {
        fake.addWorkout({ id: 1, starts: daysAgo(1) })
        yield* runSync("1_week")
        fake.addWorkout({ id: 2, starts: daysAgo(3) })
        const result = yield* runSync("1_week")
        expect(result).toMatchObject({ new_downloads: 1, skipped: 1 })
      })
    ))

  it.scopedLive("a wider window after a narrow one goes past the downloaded workouts to the older ones", () =>
    withSync((fake) =>
      Effect.gen(function*() {
        for (let i = 0; i < 55; i++) fake.addWorkout({ id: 1 + i, starts: new Date(Date.now() - (i + 1) * 60_000) })
        fake.addWorkout({ id: 900, starts: daysAgo(40) })
        expect((yield* runSync("1_day")).new_downloads).toBe(55)
        const wider = yield* runSync("1_year")
        expect(wider).toMatchObject({ new_downloads: 1, downloaded: [expect.stringMatching(/_workout_900\.fit$/)] })
      })
    ))

  it.scopedLive("a failed download is reported, the others land, and the next sync fetches it even past downloaded ones", () =>
    withSync((fake) =>
      Effect.gen(function*() {
        for (let i = 0; i < 55; i++) fake.addWorkout({ id: 1 + i, starts: new Date(Date.now() - (i + 1) * 60_000) })
        fake.breakFile(53, true)
        const first = yield* runSync("1_week")
        expect(first.status).toBe("partial_success")
        expect(first.new_downloads).toBe(54)
        expect(first.errors).toEqual([expect.stringMatching(/_workout_53\.fit: the file server answered 500/)])
        fake.breakFile(53, false)
        const second = yield* runSync("1_week")
        expect(second).toMatchObject({ status: "success", new_downloads: 1 })
      })
    ))

  it.scopedLive("a workout without a file is reported, asked about again, given up after a few syncs, and fetched if its file comes", () =>
    withSync((fake, dirs) =>
      Effect.gen(function*() {
        fake.addWorkout({ id: 7, starts: daysAgo(1), file: null })
        for (let attempt = 1; attempt <= MAX_FILE_ATTEMPTS; attempt++) {
          const result = yield* runSync("1_week")
          expect(result).toMatchObject({ status: "success", new_downloads: 0, without_file: 1 })
          expect(result.errors[0]).toContain(attempt < MAX_FILE_ATTEMPTS ? "no file for this workout yet" : "no longer asked for")
          expect(readHistory(dirs).without_file["7"].attempts).toBe(attempt)
        }
        const quiet = yield* runSync("1_week")
        expect(quiet).toMatchObject({ without_file: 1, errors: [] })
        expect(readHistory(dirs).without_file["7"].attempts).toBe(MAX_FILE_ATTEMPTS)
        fake.setFile(7, bytesOf("late file"))
        const late = yield* runSync("1_week")
        expect(late.new_downloads).toBe(1)
        expect(readHistory(dirs).without_file["7"]).toBeUndefined()
      })
    ))

  it.scopedLive("without VERIFY_FILES_ON_DISK a file the daemon imported (removed) is not downloaded again", () =>
    withSync((fake, dirs) =>
      Effect.gen(function*() {
        fake.addWorkout({ id: 1, starts: daysAgo(1) })
        yield* runSync()
        for (const name of listDir(dirs.watchDir)) fs.rmSync(path.join(dirs.watchDir, name))
        expect((yield* runSync()).new_downloads).toBe(0)
        expect(listDir(dirs.watchDir)).toEqual([])
      })
    ))

  it.scopedLive("with VERIFY_FILES_ON_DISK=true a removed file is downloaded again", () =>
    withSync((fake, dirs) =>
      Effect.gen(function*() {
        fake.addWorkout({ id: 1, starts: daysAgo(1) })
        yield* runSync()
        for (const name of listDir(dirs.watchDir)) fs.rmSync(path.join(dirs.watchDir, name))
        expect((yield* runSync()).new_downloads).toBe(1)
        expect(listDir(dirs.watchDir)).toHaveLength(1)
      }), { env: { VERIFY_FILES_ON_DISK: "true" } }))

  it.scopedLive("writes through .<name>.tmp and renames: no partial .fit is ever visible", () =>
    withSync((fake, dirs) =>
      Effect.gen(function*() {
        fake.addWorkout({ id: 1, starts: daysAgo(1), file: new Uint8Array(256 * 1024).fill(7) })
        const seen = new Set<string>()
        const watcher = fs.watch(dirs.watchDir, (_, name) => name && seen.add(name))
        yield* runSync()
        watcher.close()
        const [name] = listDir(dirs.watchDir)
        expect(seen).toContain(`.${name}.tmp`)
        expect(fs.statSync(path.join(dirs.watchDir, name!)).size).toBe(256 * 1024)
      })
    ))

  it.scopedLive("one sync at a time: a second run while one is running answers None", () =>
    withSync((fake) =>
      Effect.gen(function*() {
        fake.addWorkout({ id: 1, starts: daysAgo(1) })
        const sync = yield* WahooSync
        const first = yield* Effect.fork(sync.run("1_week"))
        // the first run is in its download (each file answered 600 ms late)
        yield* eventually("the first run", Effect.map(sync.isSyncing, (syncing) => (syncing ? true : undefined)))
        expect(yield* sync.run("1_week")).toEqual(Option.none())
        expect(Option.isSome(yield* Fiber.join(first))).toBe(true)
      }), { fake: { fileDelayMs: 600 } }))

  it.scopedLive("a rate limit ends the sync as RateLimited with the downloads so far kept, and the result says so", () =>
    withSync((fake, dirs) =>
      Effect.gen(function*() {
        for (let i = 0; i < 51; i++) fake.addWorkout({ id: 1 + i, starts: new Date(Date.now() - (i + 1) * 60_000) })
        // page 1 answers; page 2 is refused twice (the retry included)
        const sync = yield* WahooSync
        const fiber = yield* Effect.fork(sync.run("1_week"))
        yield* eventually("the first listing", Effect.sync(() => fake.requestsTo("/v1/workouts").length === 1 ? true : undefined))
        fake.rateLimitNext(2, 1)
        const exit = yield* Fiber.await(fiber)
        expect(Exit.isFailure(exit) && exit.cause._tag === "Fail" && exit.cause.error instanceof RateLimited).toBe(true)
        const history = readHistory(dirs)
        expect(Object.keys(history.downloaded)).toHaveLength(50)
        expect(history.last_result).toMatchObject({ status: "error", message: expect.stringContaining("429") })
        expect(history.coverage).toBeNull()
      }), { fake: { fileDelayMs: 5 } }))
})
