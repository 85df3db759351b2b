import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Redacted } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { PolarLedger } from "../../../src/connectors/polar/Ledger.ts"
import { PolarAuthorization } from "../../../src/connectors/polar/PolarAuthorization.ts"
import { PolarSync } from "../../../src/connectors/polar/PolarSync.ts"
import { PolarTokens } from "../../../src/connectors/polar/PolarTokens.ts"
import { fitActivity, gpxActivity, tcxActivity } from "../../support/ImportHarness.ts"
import { type Dirs, envFor, listWatch, readLedger, scopedDirs, scopedFake, servicesFor } from "./harness.ts"

const HOUR = 3_600_000
const ago = (hours: number) => new Date(Date.now() - hours * HOUR).toISOString()
const track = (hours: number) => ({ start: new Date(Date.now() - hours * HOUR), seconds: 300 })

/** Authorizes the services against the fake as the callback would (a code from Polar's authorize step). */
const authorize = Effect.gen(function*() {
  const authorization = yield* PolarAuthorization
  const { url } = yield* authorization.begin
  const polar = yield* Effect.promise(() => fetch(url, { redirect: "manual" }))
  const code = new URL(polar.headers.get("location")!).searchParams.get("code")!
  return yield* authorization.complete(code)
})

const cycle = (dryRun = false) => Effect.flatMap(PolarSync, (sync) => sync.cycle({ dryRun }))

const setup = (extra: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const fake = yield* scopedFake({ registeredRedirectUri: "http://placeholder/callback" })
    const dirs: Dirs = yield* scopedDirs
    return { fake, dirs, layer: servicesFor(envFor(fake, dirs, extra)) }
  })

describe("Polar sync cycle", () => {
  it.scopedLive("delivers the FIT file, else the TCX (unzipped), records exercises without any file as no-file", () =>
    Effect.gen(function*() {
      const { dirs, fake, layer } = yield* setup()
      yield* Effect.gen(function*() {
        yield* authorize
        fake.addExercise({ id: "FIT1", startTime: ago(5), files: { fit: fitActivity(track(5)), tcx: tcxActivity(track(5)) } })
        fake.addExercise({ id: "TCX1", startTime: ago(4), files: { tcx: tcxActivity(track(4)), gpx: gpxActivity(track(4)) } })
        fake.addExercise({ id: "NONE1", startTime: ago(3), files: {} })
        const report = yield* cycle()
        expect(report).toEqual({ listed: 3, delivered: 2, failed: 0, skipped: 0, withoutFile: 1, backlog: 0 })
      }).pipe(Effect.provide(layer))
      expect(listWatch(dirs)).toEqual(["FIT1.fit", "TCX1.tcx"])
      expect(fs.readFileSync(path.join(dirs.watchDir, "TCX1.tcx"), "utf8")).toContain("<TrainingCenterDatabase")
      expect(fs.statSync(path.join(dirs.watchDir, "FIT1.fit")).mode & 0o777).toBe(0o644)
      const ledger = readLedger(dirs)
      expect(ledger.version).toBe(1)
      expect(ledger.exercises.FIT1).toMatchObject({ status: "delivered", attempts: 1, file: "FIT1.fit" })
      expect(ledger.exercises.TCX1).toMatchObject({ status: "delivered", file: "TCX1.tcx" })
      expect(ledger.exercises.NONE1).toMatchObject({ status: "no-file", attempts: 1 })
      expect(ledger.lastSuccessfulSync).not.toBeNull()
      // delivered and no-file are final: a second cycle downloads nothing
      const before = fake.requests.length
      yield* cycle().pipe(Effect.provide(layer))
      expect(fake.requests.slice(before).map((r) => r.path)).toEqual(["/v3/exercises"])
    }))

  it.scopedLive("FALLBACK_FORMAT=gpx takes the GPX; none leaves an exercise without FIT as no-file", () =>
    Effect.gen(function*() {
      const gpx = yield* setup({ FALLBACK_FORMAT: "gpx" })
      yield* Effect.gen(function*() {
        yield* authorize
        gpx.fake.addExercise({ id: "G1", startTime: ago(2), files: { tcx: tcxActivity(track(2)), gpx: gpxActivity(track(2)) } })
        yield* cycle()
      }).pipe(Effect.provide(gpx.layer))
      expect(listWatch(gpx.dirs)).toEqual(["G1.gpx"])

      const none = yield* setup({ FALLBACK_FORMAT: "none" })
      yield* Effect.gen(function*() {
        yield* authorize
        none.fake.addExercise({ id: "N1", startTime: ago(2), files: { tcx: tcxActivity(track(2)) } })
        expect((yield* cycle()).withoutFile).toBe(1)
      }).pipe(Effect.provide(none.layer))
      expect(listWatch(none.dirs)).toEqual([])
      expect(none.fake.requests.some((r) => r.path.endsWith("/tcx"))).toBe(false)
    }))

  it.scopedLive("downloads at most MAX_DOWNLOADS_PER_CYCLE, oldest first; the rest is the backlog of the next cycle", () =>
    Effect.gen(function*() {
      const { dirs, fake, layer } = yield* setup({ MAX_DOWNLOADS_PER_CYCLE: "2" })
      yield* Effect.gen(function*() {
        yield* authorize
        for (const [id, hours] of [["C", 1], ["A", 3], ["D", 0.5], ["B", 2]] as const) {
          fake.addExercise({ id, startTime: ago(hours), files: { fit: fitActivity(track(hours)) } })
        }
        expect(yield* cycle()).toMatchObject({ listed: 4, delivered: 2, backlog: 2 })
        expect(listWatch(dirs)).toEqual(["A.fit", "B.fit"])
        expect(yield* cycle()).toMatchObject({ delivered: 2, backlog: 0 })
        expect(listWatch(dirs)).toEqual(["A.fit", "B.fit", "C.fit", "D.fit"])
      }).pipe(Effect.provide(layer))
    }))

  it.scopedLive("waits DOWNLOAD_DELAY_SECONDS between downloads", () =>
    Effect.gen(function*() {
      const { fake, layer } = yield* setup({ DOWNLOAD_DELAY_SECONDS: "1" })
      yield* Effect.gen(function*() {
        yield* authorize
        fake.addExercise({ id: "P1", startTime: ago(2), files: { fit: fitActivity(track(2)) } })
        fake.addExercise({ id: "P2", startTime: ago(1), files: { fit: fitActivity(track(1)) } })
        expect((yield* cycle()).delivered).toBe(2)
      }).pipe(Effect.provide(layer))
      const [first, second] = fake.requests.filter((r) => r.path.endsWith("/fit")).map((r) => r.at)
      expect(second! - first!).toBeGreaterThanOrEqual(950)
    }))

  it.scopedLive("SINCE and SPORTS leave exercises `skipped`, for good", () =>
    Effect.gen(function*() {
      const { dirs, fake, layer } = yield* setup({ SINCE: "-2h", SPORTS: "cycling, walking" })
      yield* Effect.gen(function*() {
        yield* authorize
        fake.addExercise({ id: "OLD", startTime: ago(5), sport: "CYCLING", files: { fit: fitActivity(track(5)) } })
        fake.addExercise({ id: "RUN", startTime: ago(1), sport: "RUNNING", files: { fit: fitActivity(track(1)) } })
        fake.addExercise({ id: "RIDE", startTime: ago(1.5), sport: "OTHER", detailedSport: "CYCLING", files: { fit: fitActivity(track(1.5)) } })
        expect(yield* cycle()).toMatchObject({ listed: 3, delivered: 1, skipped: 2 })
      }).pipe(Effect.provide(layer))
      expect(listWatch(dirs)).toEqual(["RIDE.fit"])
      const ledger = readLedger(dirs)
      expect(ledger.exercises.OLD.status).toBe("skipped")
      expect(ledger.exercises.RUN.status).toBe("skipped")
      expect(ledger.since.setting).toBe("-2h")
      // resolved once: the instant stays as the ledger remembers it
      const resolved = ledger.since.resolved
      yield* cycle().pipe(Effect.provide(layer))
      expect(readLedger(dirs).since.resolved).toBe(resolved)
    }))

  it.scopedLive("a failed download counts an attempt and is retried until MAX_ATTEMPTS, then left alone", () =>
    Effect.gen(function*() {
      const { fake, layer } = yield* setup({ MAX_ATTEMPTS: "2" })
      yield* Effect.gen(function*() {
        yield* authorize
        fake.addExercise({ id: "BAD", startTime: ago(2), files: { fit: fitActivity(track(2)) } })
        fake.addExercise({ id: "GOOD", startTime: ago(1), files: { fit: fitActivity(track(1)) } })
        // 3 tries (with the client's two quick retries) per cycle
        fake.failNext("/v3/exercises/BAD/fit", 500, 6)
        expect(yield* cycle()).toMatchObject({ delivered: 1, failed: 1 })
        const ledger = yield* Effect.flatMap(PolarLedger, (l) => l.get)
        expect(ledger.exercises["BAD"]).toMatchObject({ status: "failed", attempts: 1 })
        expect(ledger.exercises["BAD"]!.error).toContain("500")
        expect(yield* cycle()).toMatchObject({ failed: 1 })
        expect((yield* Effect.flatMap(PolarLedger, (l) => l.get)).exercises["BAD"]).toMatchObject({ status: "failed", attempts: 2 })
        const before = fake.requests.length
        expect(yield* cycle()).toMatchObject({ failed: 0, delivered: 0, backlog: 0 })
        expect(fake.requests.slice(before).map((r) => r.path)).toEqual(["/v3/exercises"])
      }).pipe(Effect.provide(layer))
    }))

  it.scopedLive("ON_CONFLICT=skip never replaces a file in the watch folder; overwrite does", () =>
    Effect.gen(function*() {
      for (const onConflict of ["skip", "overwrite"] as const) {
        const { dirs, fake, layer } = yield* setup({ ON_CONFLICT: onConflict })
        fs.mkdirSync(dirs.watchDir, { recursive: true })
        fs.writeFileSync(path.join(dirs.watchDir, "X1.fit"), "already here")
        yield* Effect.gen(function*() {
          yield* authorize
          fake.addExercise({ id: "X1", startTime: ago(1), files: { fit: fitActivity(track(1)) } })
          expect((yield* cycle()).delivered).toBe(1)
        }).pipe(Effect.provide(layer))
        const content = fs.readFileSync(path.join(dirs.watchDir, "X1.fit"))
        if (onConflict === "skip") expect(content.toString()).toBe("already here")
        else expect(content.length).toBeGreaterThan(100)
        expect(readLedger(dirs).exercises.X1.status).toBe("delivered")
        expect(listWatch(dirs)).toEqual(["X1.fit"])
      }
    }))

  it.scopedLive("a dry run lists and writes nothing: no file, no ledger", () =>
    Effect.gen(function*() {
      const { dirs, fake, layer } = yield* setup()
      yield* Effect.gen(function*() {
        yield* authorize
        fake.addExercise({ id: "D1", startTime: ago(1), files: { fit: fitActivity(track(1)) } })
        expect(yield* cycle(true)).toMatchObject({ listed: 1, delivered: 0, backlog: 0 })
      }).pipe(Effect.provide(layer))
      expect(listWatch(dirs)).toEqual([])
      expect(fs.existsSync(path.join(dirs.stateDir, "ledger.json"))).toBe(false)
      expect(fake.requests.some((r) => r.path.endsWith("/fit"))).toBe(false)
    }))

  it.scopedLive("a 429 ends the cycle after the ledger is written; what was delivered stays delivered", () =>
    Effect.gen(function*() {
      const { dirs, fake, layer } = yield* setup()
      yield* Effect.gen(function*() {
        yield* authorize
        fake.addExercise({ id: "R1", startTime: ago(3), files: { fit: fitActivity(track(3)) } })
        fake.addExercise({ id: "R2", startTime: ago(2), files: { fit: fitActivity(track(2)) } })
        fake.addExercise({ id: "R3", startTime: ago(1), files: { fit: fitActivity(track(1)) } })
        fake.failNext("/v3/exercises/R2/fit", 429)
        const result = yield* Effect.either(cycle())
        expect(Either.isLeft(result) && result.left._tag).toBe("RateLimited")
        const last = yield* Effect.flatMap(PolarSync, (s) => s.lastCycle)
        expect(last._tag === "Some" && last.value).toMatchObject({ delivered: 1, backlog: 2 })
      }).pipe(Effect.provide(layer))
      expect(listWatch(dirs)).toEqual(["R1.fit"])
      const ledger = readLedger(dirs)
      expect(ledger.exercises.R1.status).toBe("delivered")
      expect(ledger.exercises.R2).toMatchObject({ status: "pending", attempts: 0 })
      expect(ledger.exercises.R3.status).toBe("pending")
    }))

  it.scopedLive("refuses to run without a token, and with a token Polar refused", () =>
    Effect.gen(function*() {
      const { fake, layer } = yield* setup()
      yield* Effect.gen(function*() {
        const missing = yield* Effect.either(cycle())
        expect(Either.isLeft(missing) && missing.left.message).toMatch(/authorization required/)
        const { token } = yield* PolarTokens
        yield* token.save({
          accessToken: Redacted.make("forged"),
          polarUser: "1",
          memberId: "waymark-1",
          authorizedAt: new Date().toISOString(),
          revoked: null
        })
        const refused = yield* Effect.either(cycle())
        expect(Either.isLeft(refused) && refused.left._tag).toBe("CloudError")
        expect((yield* Effect.flatMap(PolarAuthorization, (a) => a.view)).authorization).toBe("revoked")
        const calls = fake.requests.length
        const again = yield* Effect.either(cycle())
        expect(Either.isLeft(again) && again.left._tag).toBe("NotAuthorized")
        expect(fake.requests.length).toBe(calls)
      }).pipe(Effect.provide(layer))
    }))
})
