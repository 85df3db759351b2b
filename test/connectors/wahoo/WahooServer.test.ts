import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as net from "node:net"
import * as tls from "node:tls"
import * as path from "node:path"
import { X509Certificate } from "node:crypto"
import {
  authorizeAt,
  connectThroughDashboard,
  daysAgo,
  eventually,
  httpsRequest,
  listDir,
  listeningEnv,
  readTokens,
  type Running,
  scopedDirs,
  scopedFake,
  withConnector
} from "./harness.ts"
import type { FakeWahooOptions } from "../../fakes/FakeWahoo.ts"

/** The checks of every connector's /healthz. */
const HEALTH_CHECKS = ["authorization", "lastSuccessfulSync", "syncDueBy", "syncRecent"]

const STATUS_KEYS = [
  "authenticated",
  "cron_expr",
  "is_syncing",
  "last_sync_time",
  "next_sync_time",
  "last_result",
  "total_downloaded",
  "last_sync_history"
]

const withRunning = <A, E, R>(
  body: (running: Running) => Effect.Effect<A, E, R>,
  options: { readonly fake?: FakeWahooOptions; readonly env?: Record<string, string> } = {}
) =>
  Effect.gen(function*() {
    const fake = yield* scopedFake(options.fake)
    const dirs = yield* scopedDirs
    const env = yield* listeningEnv(fake, dirs, options.env)
    return yield* withConnector({ fake, dirs, env }, body)
  })

const status = (running: Running) => Effect.map(httpsRequest(`${running.base}/api/status`, { ca: running.ca }), (a) => a.json)

const postSync = (running: Running, body?: string, headers: Record<string, string> = { "content-type": "application/json" }) =>
  httpsRequest(`${running.base}/api/sync`, { ca: running.ca, method: "POST", headers, ...(body !== undefined ? { body } : {}) })

const syncDone = (running: Running) =>
  eventually("the sync to end", Effect.map(status(running), (s) => (s.is_syncing || s.last_sync_time === null ? undefined : s)))

describe("Wahoo connector server (HTTPS, dashboard, OAuth, API)", () => {
  it.scopedLive("serves HTTPS with a self-signed certificate generated into STATE_DIR on the first start and reused after a restart", () =>
    Effect.gen(function*() {
      const fake = yield* scopedFake()
      const dirs = yield* scopedDirs
      const env = yield* listeningEnv(fake, dirs)
      const first = yield* withConnector({ fake, dirs, env }, (r) => httpsRequest(`${r.base}/api/status`, { ca: r.ca }))
      const certFile = path.join(dirs.stateDir, "cert.pem")
      const stored = new X509Certificate(fs.readFileSync(certFile))
      expect(first.status).toBe(200)
      expect(first.fingerprint).toBe(stored.fingerprint256)
      expect(stored.subjectAltName).toContain("IP Address:127.0.0.1")
      expect(fs.statSync(path.join(dirs.stateDir, "key.pem")).mode & 0o777).toBe(0o600)
      const second = yield* withConnector({ fake, dirs, env }, (r) => httpsRequest(`${r.base}/api/status`, { ca: r.ca }))
      expect(second.fingerprint).toBe(first.fingerprint)
    }))

  it.scopedLive("before connecting: the dashboard says so with a Connect button; /api/status has its keys and the next 02:00 UTC", () =>
    withRunning((running) =>
      Effect.gen(function*() {
        const page = yield* httpsRequest(`${running.base}/`, { ca: running.ca })
        expect(page.status).toBe(200)
        expect(page.headers["content-type"]).toContain("text/html")
        expect(page.text).toContain("Not connected")
        expect(page.text).toContain('href="/connect"')
        expect(page.text).toContain("Nothing downloaded yet.")
        const s = yield* status(running)
        expect(Object.keys(s)).toEqual(expect.arrayContaining(STATUS_KEYS))
        expect(s).toMatchObject({ authenticated: false, cron_expr: "0 2 * * *", is_syncing: false, last_sync_time: null, total_downloaded: 0 })
        const next = new Date(s.next_sync_time)
        expect(next.getUTCHours()).toBe(2)
        expect(next.getUTCMinutes()).toBe(0)
        expect(next.getTime() - Date.now()).toBeLessThanOrEqual(86_400_000)
        expect(next.getTime()).toBeGreaterThan(Date.now())
      })
    ))

  it.scopedLive("SYNC_CRON sets the next sync", () =>
    withRunning((running) =>
      Effect.gen(function*() {
        const s = yield* status(running)
        expect(s.cron_expr).toBe("*/15 * * * *")
        const next = new Date(s.next_sync_time)
        expect(next.getUTCMinutes() % 15).toBe(0)
        expect(next.getTime() - Date.now()).toBeLessThanOrEqual(15 * 60_000)
      }), { env: { SYNC_CRON: "*/15 * * * *" } }))

  it.scopedLive("connecting: a checked state, the code exchanged, tokens stored, a sync in the background, the downloads listed; a second sync gets nothing new", () =>
    withRunning((running) =>
      Effect.gen(function*() {
        const { fake, dirs } = running
        const ws = [1, 2, 4].map((d) => fake.addWorkout({ starts: daysAgo(d) }))
        fake.addWorkout({ starts: daysAgo(20) })
        const { start, back, done } = yield* connectThroughDashboard(running)
        expect(start.status).toBe(302)
        const authorize = new URL(String(start.headers["location"]))
        expect(authorize.searchParams.get("state")).toMatch(/^[0-9a-f]{48}$/)
        expect(back.searchParams.get("state")).toBe(authorize.searchParams.get("state"))
        expect(done.status).toBe(303)
        expect(readTokens(dirs).refreshToken).toBe(fake.refreshTokens.at(-1))
        const noticePage = yield* httpsRequest(`${running.base}${done.headers["location"]}`, { ca: running.ca })
        expect(noticePage.text).toContain("Connected to Wahoo. The first sync has started.")
        const s = yield* syncDone(running)
        expect(s).toMatchObject({ authenticated: true, total_downloaded: 3, last_result: { status: "success", new_downloads: 3 } })
        const names = ws.map((w) => `${w.starts.slice(0, 10)}_workout_${w.id}.fit`)
        expect(s.last_sync_history.map((d: any) => d.filename).sort()).toEqual([...names].sort())
        expect(listDir(dirs.watchDir)).toEqual([...names].sort())
        const page = yield* httpsRequest(`${running.base}/`, { ca: running.ca })
        expect(page.text).toContain("Connected to Wahoo")
        for (const name of names) expect(page.text).toContain(name)

        const again = yield* postSync(running, "{}")
        expect(again.status).toBe(202)
        expect(again.json).toMatchObject({ status: "started", time_window: "1_week" })
        const after = yield* eventually(
          "the second sync",
          Effect.map(status(running), (x) => (!x.is_syncing && x.last_sync_time !== s.last_sync_time ? x : undefined))
        )
        expect(after.last_result).toMatchObject({ status: "success", new_downloads: 0, skipped: 3 })
      })
    ))

  it.scopedLive("a callback whose state was not issued here is refused in plain words, without asking Wahoo", () =>
    withRunning((running) =>
      Effect.gen(function*() {
        const answer = yield* httpsRequest(`${running.base}/callback?code=abc&state=forged`, { ca: running.ca })
        expect(answer.status).toBe(303)
        const page = yield* httpsRequest(`${running.base}${answer.headers["location"]}`, { ca: running.ca })
        expect(page.text).toContain("does not belong to a connection started here")
        expect(running.fake.requestsTo("/oauth/token")).toHaveLength(0)
      })
    ))

  it.scopedLive("a refusal at Wahoo, and a code Wahoo will not exchange, are shown in plain words", () =>
    withRunning((running) =>
      Effect.gen(function*() {
        running.fake.denyNext()
        const denied = yield* connectThroughDashboard(running)
        const deniedPage = yield* httpsRequest(`${running.base}${denied.done.headers["location"]}`, { ca: running.ca })
        expect(deniedPage.text).toContain("The connection was not allowed at Wahoo.")

        const start = yield* httpsRequest(`${running.base}/connect`, { ca: running.ca })
        const back = yield* authorizeAt(String(start.headers["location"]))
        back.searchParams.set("code", "not-a-code")
        const refused = yield* httpsRequest(back.toString(), { ca: running.ca })
        const refusedPage = yield* httpsRequest(`${running.base}${refused.headers["location"]}`, { ca: running.ca })
        expect(refusedPage.text).toContain("The connection failed. Wahoo refused the authorization code: The provided authorization grant is invalid")
        expect((yield* status(running)).authenticated).toBe(false)
      })
    ))

  it.scopedLive("a state is single-use: replaying a callback is refused", () =>
    withRunning((running) =>
      Effect.gen(function*() {
        const { back } = yield* connectThroughDashboard(running)
        const replay = yield* httpsRequest(back.toString(), { ca: running.ca })
        const page = yield* httpsRequest(`${running.base}${replay.headers["location"]}`, { ca: running.ca })
        expect(page.text).toContain("does not belong to a connection started here")
        expect(running.fake.grants()).toBe(1)
      })
    ))

  it.scopedLive("POST /api/sync: 409 before connecting, 400 for a bad window or body (one nested too deeply named so), 413 naming the size limit, 202 with a window, 409 while one runs", () =>
    withRunning((running) =>
      Effect.gen(function*() {
        const before = yield* postSync(running)
        expect(before.status).toBe(409)
        expect(before.json.message).toContain("No Wahoo account is connected")
        running.fake.addWorkout({ starts: daysAgo(200) })
        yield* connectThroughDashboard(running)
        yield* syncDone(running)
        expect((yield* status(running)).total_downloaded).toBe(0)

        const bad = yield* postSync(running, JSON.stringify({ time_window: "2_weeks" }))
        expect(bad.status).toBe(400)
        expect(bad.json.message).toBe("time_window must be one of 1_day, 1_week, 1_month, 1_year, all_time.")
        expect((yield* postSync(running, "not json")).status).toBe(400)
        const deep = yield* postSync(running, `{"time_window":${"[".repeat(40)}${"]".repeat(40)}}`)
        expect(deep.status).toBe(400)
        expect(deep.json.message).toBe("The request body is nested too deeply: at most 32 levels of arrays and objects are accepted.")
        const big = yield* postSync(running, JSON.stringify({ pad: "x".repeat(10_000) }))
        expect(big.status).toBe(413)
        expect(big.json.message).toBe("The request body is over 4096 bytes.")

        const started = yield* postSync(running, JSON.stringify({ time_window: "1_year" }))
        expect(started.status).toBe(202)
        expect(started.json).toMatchObject({ status: "started", time_window: "1_year" })
        yield* eventually("the sync to run", Effect.map(status(running), (s) => (s.is_syncing ? true : undefined)))
        const busy = yield* postSync(running, undefined, {})
        expect(busy.status).toBe(409)
        expect(busy.json).toMatchObject({ status: "in_progress" })
        const s = yield* eventually("the download", Effect.map(status(running), (x) => (!x.is_syncing && x.total_downloaded === 1 ? x : undefined)))
        expect(s.last_result).toMatchObject({ time_window: "1_year", new_downloads: 1 })
        const form = yield* postSync(running, "time_window=all_time", { "content-type": "application/x-www-form-urlencoded" })
        expect(form.json).toMatchObject({ status: "started", time_window: "all_time" })
      }), { fake: { fileDelayMs: 700 } }))

  it.scopedLive("a rate limit at Wahoo defers the next sync (Retry-After honoured) and the dashboard says so", () =>
    withRunning((running) =>
      Effect.gen(function*() {
        yield* connectThroughDashboard(running)
        yield* syncDone(running)
        running.fake.rateLimitNext(1, 3600)
        expect((yield* postSync(running)).status).toBe(202)
        const s = yield* eventually("the backoff", Effect.map(status(running), (x) => (x.backoff_seconds > 0 ? x : undefined)))
        expect(s.backoff_seconds).toBeGreaterThanOrEqual(3500)
        expect(s.last_error).toContain("429")
        expect(s.last_result).toMatchObject({ status: "error" })
        expect(new Date(s.next_sync_time).getTime() - Date.now()).toBeGreaterThan(3_500_000)
        const deferred = yield* postSync(running)
        expect(deferred.status).toBe(202)
        expect(deferred.json).toMatchObject({ status: "deferred" })
        expect(deferred.json.message).toContain("Wahoo's request limit was reached")
        const page = yield* httpsRequest(`${running.base}/`, { ca: running.ca })
        expect(page.text).toContain("Wahoo's request limit was reached; the next sync waits")
      })
    ))

  it.scopedLive("a revoked authorization shows on the dashboard in plain words, and connecting again clears it", () =>
    withRunning((running) =>
      Effect.gen(function*() {
        yield* connectThroughDashboard(running)
        const first = yield* syncDone(running)
        running.fake.revoke()
        expect((yield* postSync(running)).status).toBe(202)
        const s = yield* eventually("the refusal", Effect.map(status(running), (x) =>
          !x.is_syncing && x.last_sync_time !== first.last_sync_time ? x : undefined))
        expect(s.authenticated).toBe(false)
        expect(s.auth_error).toContain("Wahoo refused the stored refresh token")
        const page = yield* httpsRequest(`${running.base}/`, { ca: running.ca })
        expect(page.text).toContain("Not connected")
        expect(page.text).toContain("Wahoo refused the stored refresh token")
        yield* connectThroughDashboard(running)
        const again = yield* status(running)
        expect(again).toMatchObject({ authenticated: true, auth_error: null })
      })
    ))

  it.scopedLive("garbage instead of TLS, and a request cut off mid-body, leave the server answering", () =>
    withRunning((running) =>
      Effect.gen(function*() {
        const port = Number(running.env["PORT"])
        yield* Effect.promise(() =>
          new Promise<void>((resolve) => {
            const socket = net.connect(port, "127.0.0.1", () => socket.end("GET / HTTP/1.1\r\nHost: x\r\n\r\n\x00\xff garbage"))
            socket.on("error", () => resolve())
            socket.on("close", () => resolve())
          })
        )
        yield* Effect.promise(() =>
          new Promise<void>((resolve) => {
            const socket = tls.connect({ port, host: "127.0.0.1", ca: running.ca }, () => {
              socket.write("POST /api/sync HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"time_")
              setTimeout(() => socket.destroy(), 100)
            })
            socket.on("error", () => resolve())
            socket.on("close", () => resolve())
          })
        )
        expect((yield* httpsRequest(`${running.base}/api/status`, { ca: running.ca })).status).toBe(200)
      })
    ))

  it.scopedLive("/healthz answers 503 with healthy: false and why until an account is connected, then 200 with a sync due within three intervals of SYNC_CRON, in the body every connector answers", () =>
    withRunning((running) =>
      Effect.gen(function*() {
        const before = yield* httpsRequest(`${running.base}/healthz`, { ca: running.ca })
        expect(before.status).toBe(503)
        expect(before.json).toMatchObject({ healthy: false, checks: { authorization: "required", lastSuccessfulSync: null, syncRecent: true } })
        expect(before.json.reason).toMatch(/Connect/)
        expect(Object.keys(before.json).sort()).toEqual(["checks", "healthy", "reason"])
        expect(Object.keys(before.json.checks).sort()).toEqual(HEALTH_CHECKS)

        yield* connectThroughDashboard(running)
        yield* syncDone(running)
        const after = yield* httpsRequest(`${running.base}/healthz`, { ca: running.ca })
        expect(after.status).toBe(200)
        expect(after.json).toMatchObject({ healthy: true, reason: null, checks: { authorization: "ok", syncRecent: true } })
        const last = Date.parse(after.json.checks.lastSuccessfulSync)
        expect(Date.now() - last).toBeLessThan(60_000)
        // SYNC_CRON is daily: three days from the last completed sync
        expect(Date.parse(after.json.checks.syncDueBy) - last).toBe(3 * 86_400_000)
      })
    ))

  it.scopedLive("/metrics answers the process's metrics in the Prometheus text format", () =>
    withRunning((running) =>
      Effect.map(httpsRequest(`${running.base}/metrics`, { ca: running.ca }), (answer) => {
        expect(answer.status).toBe(200)
        expect(answer.headers["content-type"]).toBe("text/plain; version=0.0.4; charset=utf-8")
        expect(answer.text).toMatch(/^nodejs_heap_size_used_bytes \d+/m)
      })
    ))

  it.scopedLive("an unknown path answers 404 JSON", () =>
    withRunning((running) =>
      Effect.map(httpsRequest(`${running.base}/nope`, { ca: running.ca }), (answer) => {
        expect(answer.status).toBe(404)
      })
    ))
})
