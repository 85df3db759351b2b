import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import { fitActivity } from "../../support/ImportHarness.ts"
import { freePort } from "../../support/freePort.ts"
import type { FakePolar } from "../../fakes/FakePolar.ts"
import {
  type Dirs,
  envFor,
  listWatch,
  pollerOf,
  readLedger,
  runEntry,
  scopedDirs,
  scopedFake,
  spawnEntry,
  startConnector,
  waitFor
} from "./harness.ts"

const HOUR = 3_600_000
const track = (hours: number) => ({ start: new Date(Date.now() - hours * HOUR), seconds: 300 })
const exercise = (id: string, hours: number) => ({ id, startTime: track(hours).start.toISOString(), files: { fit: fitActivity(track(hours)) } })

const STATUS_KEYS = [
  "healthy",
  "startedAt",
  "cycles",
  "lastSuccessfulSync",
  "nextRunAt",
  "backoffSeconds",
  "authorization",
  "authorizeUrl",
  "authorizationError",
  "polarUser",
  "lastError",
  "lastCycle",
  "backlog",
  "exercises",
  "webhook",
  "rateLimit"
]

const getJson = (url: string) =>
  Effect.promise(async (): Promise<any> => {
    try {
      const response = await fetch(url)
      return response.status === 200 ? await response.json() : undefined
    } catch {
      return undefined
    }
  })

/** The connector's environment on a port of its own, with PUBLIC_URL there so that the fake redirects back to it. */
const reachable = (fake: FakePolar, dirs: Dirs, extra: Record<string, string> = {}) =>
  Effect.map(freePort, (port) =>
    envFor(fake, dirs, { HTTP_ADDR: `127.0.0.1:${port}`, PUBLIC_URL: `http://127.0.0.1:${port}`, ...extra }))

describe("Polar connector process", () => {
  it.scopedLive("`help` prints the usage only, exit code 0; an unknown subcommand is a usage error, exit code 2", () =>
    Effect.gen(function*() {
      const help = yield* runEntry(["help"], {})
      expect(help.code, help.output).toBe(0)
      expect(help.output).toContain("sync-once")
      expect(help.output).not.toMatch(/ERROR|CommandMismatch|_tag/)
      const wrong = yield* runEntry(["synch"], {})
      expect(wrong.code, wrong.output).toBe(2)
      expect(wrong.output).toContain("Usage: polar <command> [options], one of: login, sync-once, status, webhook")
    }))

  it.scopedLive("a busy port is named with HTTP_ADDR, before any cycle runs; exit code 1", () =>
    Effect.gen(function*() {
      const fake = yield* scopedFake()
      const dirs = yield* scopedDirs
      const port = yield* freePort
      const holder = net.createServer()
      yield* Effect.acquireRelease(
        Effect.async<void>((resume) => void holder.listen(port, "127.0.0.1", () => resume(Effect.void))),
        () => Effect.sync(() => void holder.close())
      )
      const busy = yield* runEntry([], envFor(fake, dirs, { HTTP_ADDR: `127.0.0.1:${port}` }))
      expect(busy.code, busy.output).toBe(1)
      expect(busy.output).toContain(`Port ${port} is already in use (127.0.0.1:${port}, EADDRINUSE): stop the program that uses it, or set HTTP_ADDR to a free host:port`)
      expect(busy.output).not.toContain("cycle failed")
      expect(busy.output).not.toContain("An error has occurred")
    }))

  // one run for every problem (a program started per case cost as much as the case)
  it.scopedLive("reports every configuration problem at once, a configured WATCH_DIR, STATE_DIR or POLAR_TOKENS under a missing folder among them, creates nothing and exits with code 1", () =>
    Effect.gen(function*() {
      const dirs = yield* scopedDirs
      const missing = path.join(dirs.root, "no-such-volume")
      const result = yield* runEntry([], {
        WATCH_DIR: path.join(missing, "watch"),
        STATE_DIR: path.join(missing, "state"),
        POLAR_TOKENS: path.join(missing, "tokens"),
        POLAR_CLIENT_ID: "a",
        PROVIDER_A_CLIENT_ID: "b",
        FALLBACK_FORMAT: "zip",
        MAX_ATTEMPTS: "zero",
        WEBHOOK_URL: "http://example.org/hook",
        SINCE: "yesterday-ish"
      })
      expect(result.code).toBe(1)
      expect(result.output).toContain("invalid configuration (9 problems)")
      for (const name of ["PROVIDER_A_CLIENT_ID", "POLAR_CLIENT_ID", "PROVIDER_A_CLIENT_SECRET", "FALLBACK_FORMAT", "MAX_ATTEMPTS", "WEBHOOK_URL", "SINCE"]) {
        expect(result.output, name).toContain(name)
      }
      for (const name of ["WATCH_DIR", "STATE_DIR", "POLAR_TOKENS"]) {
        expect(result.output).toContain(`${name} must be a folder whose parent exists (${missing} does not)`)
      }
      expect(fs.existsSync(missing)).toBe(false)
    }))

  it.scopedLive("takes the client id under its Polar name and the secret from a _FILE; sync-once without authorization says what to do", () =>
    Effect.gen(function*() {
      const fake = yield* scopedFake()
      const dirs = yield* scopedDirs
      const env = envFor(fake, dirs)
      const secretFile = path.join(dirs.root, "secret")
      fs.writeFileSync(secretFile, `${fake.clientSecret}\n`)
      const { PROVIDER_A_CLIENT_ID: _id, PROVIDER_A_CLIENT_SECRET: _secret, ...rest } = env
      const result = yield* runEntry(["sync-once"], {
        ...rest,
        POLAR_CLIENT_ID: fake.clientId,
        PROVIDER_A_CLIENT_SECRET_FILE: secretFile,
        PUBLIC_URL: "https://polar.example.org"
      })
      expect(result.code).toBe(1)
      expect(result.output).toContain("authorization required: open https://polar.example.org/authorize")
    }))

  it.scopedLive("serves /status with every key, /healthz 200 once authorized and synced, /metrics with its cycles, 404 elsewhere; `status` prints it from the running process", () =>
    Effect.gen(function*() {
      const fake = yield* scopedFake()
      const dirs = yield* scopedDirs
      const connector = yield* startConnector(yield* reachable(fake, dirs, { POLL_INTERVAL: "3600" }))
      expect((yield* Effect.promise(() => fake.browserAuthorize(`${connector.baseUrl}/authorize`))).status).toBe(200)
      yield* waitFor("a completed cycle", Effect.map(connector.status, (s) => (s.lastSuccessfulSync !== null ? s : undefined)))
      const status = yield* connector.status
      expect(Object.keys(status).sort()).toEqual([...STATUS_KEYS].sort())
      expect(status).toMatchObject({ healthy: true, authorization: "ok", backoffSeconds: 0, lastError: null, backlog: 0 })
      expect(Object.keys(status.lastCycle).sort()).toEqual(["backlog", "delivered", "failed", "listed", "skipped", "withoutFile"])
      expect(Object.keys(status.exercises).sort()).toEqual(["delivered", "failed", "no-file", "pending", "skipped"])
      expect(Object.keys(status.rateLimit).sort()).toEqual(["longLimit", "longUsage", "resetSeconds", "shortLimit", "shortUsage"])
      expect(status.rateLimit.shortLimit).toBe(520)
      expect(Date.parse(status.nextRunAt) - Date.now()).toBeGreaterThan(50 * 60_000)
      expect((yield* connector.get("/healthz")).status).toBe(200)
      const metrics = yield* connector.get("/metrics")
      expect(metrics.status).toBe(200)
      expect(metrics.text).toMatch(/^waymark_connector_cycles_total\{connector="polar",result="completed"\} [1-9]/m)
      expect(metrics.text).toMatch(/^process_resident_memory_bytes \d+/m)
      for (const url of ["/nope", "/status/x", "/webhook"]) expect((yield* connector.get(url)).status, url).toBe(404)

      const printed = yield* runEntry(["status"], connector.env)
      expect(printed.code, printed.output).toBe(0)
      const body = JSON.parse(printed.output.slice(printed.output.indexOf("{")))
      expect(body).toMatchObject({ authorization: "ok", polarUser: String(fake.userId) })
    }))

  it.scopedLive("a rate limit ends the cycle and backs off: /status shows backoffSeconds, nextRunAt and the RateLimit-* figures", () =>
    Effect.gen(function*() {
      const fake = yield* scopedFake()
      const dirs = yield* scopedDirs
      const connector = yield* startConnector(yield* reachable(fake, dirs, { POLL_INTERVAL: "60", POLL_JITTER_PCT: "0", MAX_BACKOFF_SECONDS: "90" }))
      expect((yield* Effect.promise(() => fake.browserAuthorize(`${connector.baseUrl}/authorize`))).status).toBe(200)
      yield* waitFor("a completed cycle", Effect.map(connector.status, (s) => (s.lastSuccessfulSync !== null ? true : undefined)))
      fake.addExercise(exercise("RL1", 2))
      fake.setUsage(300, 4000)
      fake.failNext("/v3/exercises", 429)
      yield* pollerOf(connector).trigger
      const status = yield* waitFor("the backoff", Effect.map(connector.status, (s) => (s.backoffSeconds > 0 ? s : undefined)))
      // twice the interval, capped by MAX_BACKOFF_SECONDS
      expect(status.backoffSeconds).toBe(90)
      expect(Date.parse(status.nextRunAt) - Date.now()).toBeGreaterThan(80_000)
      expect(status.lastError).toMatch(/rate|429/i)
      expect(status.rateLimit).toMatchObject({ shortUsage: 300, shortLimit: 520, longUsage: 4000, longLimit: 5100 })
      expect(listWatch(dirs)).toEqual([])
    }))

  it.scopedLive("sync-once delivers and prints its counts; --dry-run writes nothing; MAX_CYCLES ends the process", () =>
    Effect.gen(function*() {
      const fake = yield* scopedFake()
      const dirs = yield* scopedDirs
      const env = yield* reachable(fake, dirs)
      // authorize through a running process, then stop it
      yield* Effect.scoped(Effect.gen(function*() {
        const connector = yield* startConnector(env)
        expect((yield* Effect.promise(() => fake.browserAuthorize(`${connector.baseUrl}/authorize`))).status).toBe(200)
        yield* waitFor("a completed cycle", Effect.map(connector.status, (s) => (s.lastSuccessfulSync !== null ? true : undefined)))
      }))
      fake.addExercise(exercise("S1", 3))
      const dry = yield* runEntry(["sync-once", "--dry-run"], env)
      expect(dry.code, dry.output).toBe(0)
      expect(dry.output).toContain("would download exercise S1")
      expect(listWatch(dirs)).toEqual([])
      expect(readLedger(dirs).exercises.S1).toBeUndefined()

      const once = yield* runEntry(["sync-once"], env)
      expect(once.code, once.output).toBe(0)
      expect(JSON.parse(once.output.slice(once.output.indexOf("{\n")))).toMatchObject({ listed: 1, delivered: 1 })
      expect(listWatch(dirs)).toEqual(["S1.fit"])

      fake.addExercise(exercise("S2", 2))
      const bounded = yield* runEntry([], { ...env, MAX_CYCLES: "1" })
      expect(bounded.code, bounded.output).toBe(0)
      expect(listWatch(dirs)).toEqual(["S1.fit", "S2.fit"])
      expect(readLedger(dirs).exercises.S2.status).toBe("delivered")
    }), { timeout: 120_000 })

  it.scopedLive("SIGTERM ends the process within seconds, leaving the ledger whole", () =>
    Effect.gen(function*() {
      const fake = yield* scopedFake()
      const dirs = yield* scopedDirs
      const port = yield* freePort
      const env = envFor(fake, dirs, { HTTP_ADDR: `127.0.0.1:${port}`, PUBLIC_URL: `http://127.0.0.1:${port}`, DOWNLOAD_DELAY_SECONDS: "1" })
      const child = yield* spawnEntry([], env)
      yield* waitFor("the running process", getJson(`http://127.0.0.1:${port}/status`), "60 seconds")
      // uploaded "after" the authorization, so that its first cycle lists them
      const later = new Date(Date.now() + 60_000).toISOString()
      for (let i = 0; i < 5; i++) fake.addExercise({ ...exercise(`T${i}`, 5 - i), uploadTime: later })
      const answer = yield* Effect.promise(() => fake.browserAuthorize(`http://127.0.0.1:${port}/authorize`))
      expect(answer.status, answer.text).toBe(200)
      yield* waitFor("a first delivery", Effect.sync(() => (listWatch(dirs).length > 0 ? true : undefined)), "30 seconds")
      const sent = Date.now()
      child.process.kill("SIGTERM")
      const exit = yield* Effect.promise(() => child.exited)
      expect(Date.now() - sent).toBeLessThan(5_000)
      expect(exit.code, child.output()).toBe(0)
      expect(child.output()).toMatch(/the Polar connector v\S+ stopped cleanly on SIGTERM/)
      const ledger = readLedger(dirs)
      const delivered = Object.entries(ledger.exercises).filter(([, e]: [string, any]) => e.status === "delivered").map(([id]) => `${id}.fit`)
      expect(listWatch(dirs)).toEqual(delivered.sort())
    }), { timeout: 120_000 })

  it.scopedLive("SIGINT stops the running process as SIGTERM does: its stop line, exit code 0", () =>
    Effect.gen(function*() {
      const fake = yield* scopedFake()
      const dirs = yield* scopedDirs
      const port = yield* freePort
      const child = yield* spawnEntry([], envFor(fake, dirs, { HTTP_ADDR: `127.0.0.1:${port}` }))
      yield* waitFor("the running process", getJson(`http://127.0.0.1:${port}/status`), "60 seconds")
      child.process.kill("SIGINT")
      const exit = yield* Effect.promise(() => child.exited)
      expect(exit.code, child.output()).toBe(0)
      expect(child.output()).toMatch(/the Polar connector v\S+ stopped cleanly on SIGINT/)
    }), { timeout: 120_000 })

  // one running process for both: the login's own answers, then the running process taking it up
  it.scopedLive("`login` prints the authorize address and takes the whole address Polar redirected to from the terminal; the running process takes it up at its next cycle, without a restart; an address from another login is refused", () =>
    Effect.gen(function*() {
      const fake = yield* scopedFake({ registeredRedirectUri: "http://127.0.0.1:1/callback" })
      const dirs = yield* scopedDirs
      const connector = yield* startConnector(envFor(fake, dirs, { POLL_INTERVAL: "3600" }))
      expect((yield* connector.status).authorization).toBe("required")
      const child = yield* spawnEntry(["login"], connector.env)
      const printed = yield* waitFor("the authorize address", Effect.sync(() => child.output().match(/https?:\/\/\S+oauth2\/authorization\S*/)?.[0]), "60 seconds")
      const polar = yield* Effect.promise(() => fetch(printed, { redirect: "manual" }))
      const back = polar.headers.get("location")!
      expect(back).toContain("code=")
      child.process.stdin!.end(`${back}\n`)
      const exit = yield* Effect.promise(() => child.exited)
      expect(exit.code, child.output()).toBe(0)
      expect(child.output()).toContain(`Authorized as Polar user ${fake.userId}.`)
      expect(fake.registeredMembers()).toHaveLength(1)
      expect(JSON.parse(fs.readFileSync(path.join(dirs.tokensDir, "token.json"), "utf8"))).toMatchObject({ polarUser: String(fake.userId) })

      // the running process, started before the login, delivers with the new token
      fake.addExercise(exercise("L1", 1))
      yield* pollerOf(connector).trigger
      yield* waitFor("the delivery", Effect.sync(() => (listWatch(dirs).includes("L1.fit") ? true : undefined)))
      expect(yield* connector.status).toMatchObject({ authorization: "ok", polarUser: String(fake.userId) })

      // an address from another login is refused
      const other = yield* spawnEntry(["login"], connector.env)
      yield* waitFor("the second address", Effect.sync(() => (other.output().includes("oauth2/authorization") ? true : undefined)), "60 seconds")
      other.process.stdin!.end("http://127.0.0.1:1/callback?state=someone-else&code=abc\n")
      expect((yield* Effect.promise(() => other.exited)).code).toBe(1)
      expect(other.output()).toContain("another authorization's state")
    }), { timeout: 120_000 })
})
