import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { supervise } from "../../src/services/platform/supervise.ts"
import { LogsLive } from "../../src/services/platform/Logs.ts"
import { scopedRoot } from "../support/ImportHarness.ts"
import { healthDaemon, logsDirOf, probe, probeUntil } from "./healthDaemon.ts"

const FILES_MODE_FIBERS = ["GearMaintenance", "HttpServer", "ImportWorker", "LogRetention", "SegmentUpkeep", "TrainingRecompute", "WatchFolder"]

describe("GET /healthz and GET /status", () => {
  it.scopedLive("answer without a key: 200 with every check ok and every supervised fiber running, nothing secret in the body", () =>
    Effect.gen(function*() {
      const root = yield* scopedRoot()
      yield* Effect.gen(function*() {
        const health = yield* probeUntil("/healthz", (a) => FILES_MODE_FIBERS.every((name) => a.json?.fibers?.[name] !== undefined))
        assert.strictEqual(health.status, 200)
        assert.strictEqual(health.headers["cache-control"], "no-store")
        assert.strictEqual(health.json.status, "ok")
        assert.deepStrictEqual(health.json.checks, {
          database: { ok: true },
          storage: { ok: true },
          watchFolder: { ok: true },
          parseWorker: { ok: true }
        })
        assert.deepStrictEqual(health.json.importQueue, { queued: 0 })
        assert.deepStrictEqual(Object.keys(health.json.fibers).sort(), FILES_MODE_FIBERS)
        for (const fiber of Object.values<any>(health.json.fibers)) {
          assert.strictEqual(fiber.state, "running")
          assert.strictEqual(fiber.restarts, 0)
          assert.strictEqual(fiber.failing, false)
        }
        assert.notInclude(health.text, root.apiKey)
        assert.notInclude(health.text, root.storageDir)
        // the probe leaves nothing behind in the watch folder
        assert.deepStrictEqual(fs.readdirSync(root.watchDir).filter((n) => n.startsWith(".healthz")), [])

        const status = yield* probe("/status")
        assert.strictEqual(status.status, 200)
        assert.deepStrictEqual(status.json, { status: "ok" })
      }).pipe(Effect.provide(healthDaemon(root)))
    }))

  it.scopedLive("a fiber that keeps failing turns /healthz to 503 with its restarts, backoff and last error (secrets blanked); /status stays 200", () =>
    Effect.gen(function*() {
      const root = yield* scopedRoot()
      // the daemon's fibers log through its LogsLive; this one gets its own, over the same folder
      const broken = Layer.scopedDiscard(supervise("Broken", Effect.fail(new Error(`could not call home with ${root.apiKey}`)))).pipe(
        Layer.provide(LogsLive({ logsDir: logsDirOf(root), format: "json", level: "fatal" }))
      )
      yield* Effect.gen(function*() {
        const health = yield* probeUntil("/healthz", (a) => a.status === 503)
        assert.strictEqual(health.status, 503)
        assert.strictEqual(health.json.status, "failing")
        const fiber = health.json.fibers.Broken
        assert.strictEqual(fiber.failing, true)
        assert.include(["restarting", "running"], fiber.state)
        assert.isAtLeast(fiber.consecutiveFailures, 3)
        assert.isAtLeast(fiber.restarts, 2)
        assert.strictEqual(fiber.lastError, "Error: could not call home with [redacted]")
        assert.notInclude(health.text, root.apiKey)
        // the other fibers and the checks are unaffected
        assert.strictEqual(health.json.fibers.ImportWorker.state, "running")
        assert.isTrue(health.json.checks.database.ok)

        assert.strictEqual((yield* probe("/status")).status, 200)

        const daemonLog = fs.readdirSync(logsDirOf(root)).filter((n) => n.startsWith("daemon-"))
          .map((n) => fs.readFileSync(path.join(logsDirOf(root), n), "utf8")).join("")
        const restarts = daemonLog.split("\n").filter((l) => l.includes("Broken stopped unexpectedly")).map((l) => JSON.parse(l))
        assert.isAtLeast(restarts.length, 3)
        assert.strictEqual(restarts[0].annotations.fiber, "Broken")
        assert.include(restarts[0].message, "restarting in")
      }).pipe(Effect.provide(healthDaemon(root, { extra: broken })))
    }))

  it.scopedLive("a watch folder that no longer takes files turns /healthz to 503 naming the check", () =>
    Effect.gen(function*() {
      const root = yield* scopedRoot()
      yield* Effect.gen(function*() {
        assert.strictEqual((yield* probeUntil("/healthz", (a) => a.status === 200)).status, 200)
        const uploads = path.join(root.watchDir, ".uploads")
        fs.rmSync(uploads, { recursive: true, force: true })
        fs.writeFileSync(uploads, "not a folder")
        // the checks are evaluated at most once a second: the next evaluation sees the folder gone
        const health = yield* probeUntil("/healthz", (a) => a.status !== 200)
        assert.strictEqual(health.status, 503)
        assert.strictEqual(health.json.checks.watchFolder.ok, false)
        assert.match(health.json.checks.watchFolder.error, /^Error: the \.uploads folder does not take a file: it is not a folder$/)
        assert.isTrue(health.json.checks.storage.ok)
      }).pipe(Effect.provide(healthDaemon(root)))
    }))

  it.scopedLive("in externalApi mode the webhook drain and the scheduled import are listed too", () =>
    Effect.gen(function*() {
      const root = yield* scopedRoot({
        IMPORT_MODE: "externalApi",
        STRAVA_CLIENT_ID: "1234",
        STRAVA_CLIENT_SECRET: "client-secret-value",
        STRAVA_REFRESH_TOKEN: "refresh-token-value",
        STRAVA_BASE_URL: "http://127.0.0.1:9",
        WEBHOOKS_ENABLED: "true",
        WEBHOOKS_VERIFY_TOKEN: "verify-token-value"
      })
      yield* Effect.gen(function*() {
        const health = yield* probeUntil("/healthz", (a) => a.json?.fibers?.StravaWebhookDrain !== undefined && a.json?.fibers?.StravaScheduledImport !== undefined)
        assert.deepStrictEqual(Object.keys(health.json.fibers).sort(), [...FILES_MODE_FIBERS, "StravaScheduledImport", "StravaWebhookDrain"].sort())
        for (const secret of ["client-secret-value", "refresh-token-value", "verify-token-value", root.apiKey]) {
          assert.notInclude(health.text, secret)
        }
      }).pipe(Effect.provide(healthDaemon(root)))
    }))
})
