import { describe, expect, layer } from "@effect/vitest"
import Database from "better-sqlite3"
import { Context, Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { WEBHOOK_MAX_BODY, WEBHOOK_PATH } from "../../../src/connectors/strava/StravaWebhookRoutes.ts"
import { WEBHOOK_MAX_PENDING } from "../../../src/connectors/strava/StravaWebhookEventRepo.ts"
import { generateApiKey } from "../../../src/services/platform/ApiKey.ts"
import { type ChildDaemon, startChildDaemon } from "../../support/ChildDaemon.ts"
import { freePort } from "../../support/freePort.ts"
import { chunked, exchange, head } from "../../http/rawHttp.ts"

/**
 * The limits of `/external/webhook` (no key needed, so anyone can post to it), against the
 * real daemon process in Strava mode over raw sockets: bodies over 16 KB, deep nesting and
 * garbage are refused in the API's error shape, payloads are not logged, the store is bounded.
 */

interface Daemon extends ChildDaemon {
  readonly storageDir: string
}
class StravaDaemon extends Context.Tag("test/WebhookLimitsDaemon")<StravaDaemon, Daemon>() {}

const DaemonLive = Layer.scoped(
  StravaDaemon,
  Effect.gen(function*() {
    const root = yield* Effect.acquireRelease(
      Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "waymark-webhook-"))),
      (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
    )
    const storageDir = path.join(root, "storage")
    fs.mkdirSync(storageDir)
    fs.mkdirSync(path.join(root, "watch"))
    const apiKey = generateApiKey()
    const daemon = yield* startChildDaemon({
      env: {
        STORAGE_DIR: storageDir,
        WATCH_DIR: path.join(root, "watch"),
        SERVICE_API_KEY: apiKey,
        TZ: "UTC",
        LOG_LEVEL: "info",
        IMPORT_MODE: "externalApi",
        // nothing listens there: no test here reaches the platform
        STRAVA_BASE_URL: `http://127.0.0.1:${yield* freePort}`,
        STRAVA_CLIENT_ID: "1234",
        STRAVA_CLIENT_SECRET: "client-secret-for-webhook-limits",
        STRAVA_REFRESH_TOKEN: "refresh-token-for-webhook-limits",
        WEBHOOKS_ENABLED: "true",
        WEBHOOKS_VERIFY_TOKEN: "verify-token-for-webhook-limits",
        WEBHOOKS_CHECK_INTERVAL_MINUTES: "60"
      },
      apiKey
    })
    return { ...daemon, storageDir }
  })
)

const MB = 1024 * 1024

const jsonHead = (headers: Record<string, string | number>) =>
  head("POST", WEBHOOK_PATH, { "content-type": "application/json", ...headers })

const postEvent = (daemon: Daemon, body: string | Buffer, contentType = "application/json") =>
  Effect.promise(async () => {
    const res = await fetch(daemon.baseUrl + WEBHOOK_PATH, { method: "POST", headers: { "content-type": contentType }, body })
    const text = await res.text()
    let json: any
    try {
      json = JSON.parse(text)
    } catch {
      json = undefined
    }
    return { status: res.status, text, json }
  })

const pendingEvents = (daemon: Daemon) =>
  Effect.sync(() => {
    const db = new Database(path.join(daemon.storageDir, "database", "waymark.sqlite"), { readonly: true, fileMustExist: true })
    try {
      return db.prepare("SELECT object_id AS id, payload FROM webhook_events").all() as Array<{ id: string; payload: string }>
    } finally {
      db.close()
    }
  })

const logText = (daemon: Daemon) => {
  const dir = path.join(daemon.storageDir, "files", "logs")
  const files = fs.existsSync(dir) ? fs.readdirSync(dir).map((n) => fs.readFileSync(path.join(dir, n), "utf8")) : []
  return files.join("\n") + daemon.output()
}

const webhookLines = (daemon: Daemon): Array<Record<string, any>> => {
  const dir = path.join(daemon.storageDir, "files", "logs")
  return fs.readdirSync(dir)
    .filter((n) => n.startsWith("webhooks-"))
    .flatMap((n) => fs.readFileSync(path.join(dir, n), "utf8").split("\n").filter((l) => l !== ""))
    .map((l) => JSON.parse(l))
}

const expectRefused = (answer: { status: number; json: any }, status: number, code: string) => {
  expect({ status: answer.status, error: answer.json?.error }).toEqual({ status, error: code })
  expect(Object.keys(answer.json).sort()).toEqual(["error", "message"])
}

/** `n` arrays opened inside each other, closed or not. */
const nested = (n: number, closed: boolean) => "[".repeat(n) + (closed ? "]".repeat(n) : "")

describe("POST /external/webhook limits", () => {
  layer(DaemonLive, { excludeTestServices: true, timeout: 120_000 })("the real daemon in Strava mode", (it) => {
    it.effect("a declared 100 MB body answers 413 at once, before a byte of it is read; nothing is stored", () =>
      Effect.gen(function*() {
        const daemon = yield* StravaDaemon
        const started = Date.now()
        const result = yield* Effect.promise(() => exchange(daemon.port, jsonHead({ "content-length": 100 * MB })))
        expect(Date.now() - started).toBeLessThan(2_000)
        expect(result.answer?.status).toBe(413)
        expect(JSON.parse(result.answer!.body)).toEqual({ error: "payload_too_large", message: expect.stringContaining("16 KB") })
        expect(result.answer?.headers["connection"]).toBe("close")
        expect(result.closedByServer).toBe(true)
        expect(yield* pendingEvents(daemon)).toEqual([])
      }))

    it.effect("a chunked 100 MB event is cut off after 16 KB with 413; it is neither stored nor logged", () =>
      Effect.gen(function*() {
        const daemon = yield* StravaDaemon
        // a real event's opening, then an endless string of a marker
        async function* body() {
          const opening = '{"object_type":"activity","aspect_type":"create","object_id":77,"updates":{"title":"'
          yield Buffer.from(`${opening.length.toString(16)}\r\n${opening}\r\n`)
          yield* chunked(100 * MB, 64 * 1024, "Q".charCodeAt(0), 1)
        }
        const started = Date.now()
        const result = yield* Effect.promise(() => exchange(daemon.port, jsonHead({ "transfer-encoding": "chunked" }), body()))
        expect(result.answer?.status).toBe(413)
        expect(result.answer?.headers["connection"]).toBe("close")
        expect(result.closedByServer).toBe(true)
        // answered after the first 16 KB (plus what was sent while the answer was on its way), not after 100 MB
        expect(result.bytesSentAtAnswer).toBeLessThan(24 * MB)
        expect(Date.now() - started).toBeLessThan(10_000)
        expect(yield* pendingEvents(daemon)).toEqual([])
        expect(logText(daemon)).not.toContain("Q".repeat(64))
        expect((yield* daemon.get("/api/v1/status")).status).toBe(200)
      }))

    it.effect("a body of exactly 16 KB is read; one byte more answers 413", () =>
      Effect.gen(function*() {
        const daemon = yield* StravaDaemon
        const event = (size: number) => {
          const base = JSON.stringify({ object_type: "athlete", aspect_type: "update", object_id: 5, updates: { pad: "" } })
          return base.replace('"pad":""', `"pad":"${"p".repeat(size - base.length)}"`)
        }
        expect(Buffer.byteLength(event(WEBHOOK_MAX_BODY))).toBe(WEBHOOK_MAX_BODY)
        expect((yield* postEvent(daemon, event(WEBHOOK_MAX_BODY))).status).toBe(200)
        expectRefused(yield* postEvent(daemon, event(WEBHOOK_MAX_BODY + 1)), 413, "payload_too_large")
      }))

    it.effect("10,000 levels of nesting answer 400 (or 413 when closed: 20 KB); 8,000 closed levels within 16 KB answer 400", () =>
      Effect.gen(function*() {
        const daemon = yield* StravaDaemon
        const deepOpen = yield* postEvent(daemon, nested(10_000, false))
        expectRefused(deepOpen, 400, "bad_request")
        expect(deepOpen.json.message).toContain("nested deeper")
        const deepClosed = yield* postEvent(daemon, nested(8_000, true))
        expectRefused(deepClosed, 400, "bad_request")
        expect(deepClosed.json.message).toContain("nested deeper")
        const deepObjects = yield* postEvent(daemon, '{"object_type":"activity","aspect_type":"create","object_id":1,"updates":' + '{"a":'.repeat(2_000) + "1" + "}".repeat(2_001))
        expectRefused(deepObjects, 400, "bad_request")
        expectRefused(yield* postEvent(daemon, nested(10_000, true)), 413, "payload_too_large")
        // a string holding brackets is not nesting
        expect((yield* postEvent(daemon, JSON.stringify({ object_type: "athlete", aspect_type: "update", object_id: 1, updates: { title: "[".repeat(5_000) } }))).status).toBe(200)
        expect(yield* pendingEvents(daemon)).toEqual([])
      }))

    it.effect("garbage and wrong content types answer 400 and 415 in the error shape, never 500", () =>
      Effect.gen(function*() {
        const daemon = yield* StravaDaemon
        const garbage: ReadonlyArray<string | Buffer> = [
          "",
          "{not json",
          "null",
          "42",
          '"a string"',
          "[]",
          "{}",
          '{"object_type":"activity"}',
          '{"object_type":1,"aspect_type":"create","object_id":1}',
          '{"object_type":"activity","aspect_type":"create","object_id":{"a":1}}',
          '{"object_type":"activity","aspect_type":"create","object_id":"12; DROP TABLE"}',
          '{"object_type":"activity","aspect_type":"create","object_id":1e308}',
          Buffer.from([0xff, 0xfe, 0x00, 0x7b, 0xc3, 0x28]),
          Buffer.from(Array.from({ length: 4000 }, (_, i) => (i * 7919) % 256))
        ]
        for (const body of garbage) {
          expectRefused(yield* postEvent(daemon, body), 400, "bad_request")
        }
        const event = JSON.stringify({ object_type: "activity", aspect_type: "create", object_id: 1 })
        for (const type of ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/xml"]) {
          expectRefused(yield* postEvent(daemon, event, type), 415, "unsupported_media_type")
        }
        expect(yield* pendingEvents(daemon)).toEqual([])
        expect((yield* daemon.get("/api/v1/status")).status).toBe(200)
      }))

    it.effect("an event is logged by a short summary; its body is never logged or stored", () =>
      Effect.gen(function*() {
        const daemon = yield* StravaDaemon
        const marker = "M4RK3R".repeat(1_000)
        const answer = yield* postEvent(daemon, JSON.stringify({
          object_type: "activity", aspect_type: "update", object_id: 123456, owner_id: 99, subscription_id: 7, event_time: 1_700_000_000,
          updates: { title: marker }
        }))
        expect(answer.status).toBe(200)
        const stored = yield* pendingEvents(daemon)
        expect(stored.map((e) => e.id)).toEqual(["123456"])
        expect(JSON.parse(stored[0]!.payload)).toEqual({
          object_type: "activity", aspect_type: "update", object_id: 123456, owner_id: 99, subscription_id: 7, event_time: 1_700_000_000
        })
        expect(logText(daemon)).not.toContain("M4RK3R")
        const received = webhookLines(daemon).filter((l) => l.message === "event received" && l.annotations.object_id === 123456)
        expect(received.map((l) => l.annotations)).toEqual([
          { object_type: "activity", aspect_type: "update", object_id: 123456, owner_id: 99, subscription_id: 7, event_time: 1_700_000_000 }
        ])
        // a long member is cut short in the summary
        yield* postEvent(daemon, JSON.stringify({ object_type: "x".repeat(5_000), aspect_type: "update", object_id: 1 }))
        expect(logText(daemon)).not.toContain("x".repeat(100))
      }))

    it.effect(`5,000 events of distinct activities keep at most ${WEBHOOK_MAX_PENDING} pending, with a logged warning`, () =>
      Effect.gen(function*() {
        const daemon = yield* StravaDaemon
        const databaseDir = path.join(daemon.storageDir, "database")
        const fileBytes = (name: string) => (fs.existsSync(path.join(databaseDir, name)) ? fs.statSync(path.join(databaseDir, name)).size : 0)
        const before = fileBytes("waymark.sqlite")
        const padding = "u".repeat(12 * 1024)
        const statuses = new Map<number, number>()
        let next = 0
        yield* Effect.promise(() =>
          Promise.all(Array.from({ length: 8 }, async () => {
            while (next < 5_000) {
              const id = 1_000_000 + next++
              const res = await fetch(daemon.baseUrl + WEBHOOK_PATH, {
                method: "POST",
                headers: { "content-type": "application/json" },
                body: JSON.stringify({ object_type: "activity", aspect_type: "create", object_id: id, updates: { title: padding } })
              })
              await res.arrayBuffer()
              statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1)
            }
          }))
        )
        expect(Object.fromEntries(statuses)).toEqual({ 200: 5_000 })
        const pending = yield* pendingEvents(daemon)
        expect(pending.length).toBe(WEBHOOK_MAX_PENDING)
        // the rows hold summaries: 5,000 bodies of 12 KB (60 MB) grew the database by little
        // (the write-ahead log is checkpointed at about 4 MB, whatever is written)
        expect(fileBytes("waymark.sqlite") - before).toBeLessThan(1 * MB)
        expect(fileBytes("waymark.sqlite-wal")).toBeLessThan(6 * MB)
        const warnings = webhookLines(daemon).filter((l) => l.level === "WARN" && l.message.startsWith("event dropped"))
        expect(warnings.length).toBeGreaterThan(0)
        expect(warnings.length).toBeLessThanOrEqual(Math.ceil((5_000 - WEBHOOK_MAX_PENDING) / 100) + 1)
        expect(warnings[0]!.message).toContain(`${WEBHOOK_MAX_PENDING} events are already waiting`)
        // an event for an activity already pending is still taken as a duplicate, not a drop
        expect((yield* postEvent(daemon, JSON.stringify({ object_type: "activity", aspect_type: "update", object_id: 1_000_000 }))).status).toBe(200)
        expect((yield* daemon.get("/api/v1/status")).status).toBe(200)
      }))
  })
})
