import { assert, describe, it } from "@effect/vitest"
import { Effect, Option, Redacted } from "effect"
import * as fs from "node:fs"
import { drainWebhookEvents } from "../../../src/connectors/strava/StravaWebhookDrain.ts"
import { ActivityRepo } from "../../../src/services/activities/ActivityRepo.ts"
import { StravaImport } from "../../../src/connectors/strava/StravaImport.ts"
import { StravaWebhookEventRepo } from "../../../src/connectors/strava/StravaWebhookEventRepo.ts"
import { channel, get, post, runCli, VERIFY_TOKEN, withHarness } from "./harness.ts"

const validationUrl = (callbackUrl: string, token: string, challenge = "challenge-123") =>
  `${callbackUrl}?hub.mode=subscribe&hub.challenge=${challenge}&hub.verify_token=${encodeURIComponent(token)}`

describe("GET /external/webhook (validation)", () => {
  it.live("answers 200 with the challenge for the right token, 403 with an error line otherwise", () =>
    withHarness((h) =>
      Effect.gen(function*() {
        const ok = yield* get(validationUrl(h.callbackUrl, VERIFY_TOKEN))
        assert.strictEqual(ok.status, 200)
        assert.deepStrictEqual(JSON.parse(ok.text), { "hub.challenge": "challenge-123" })
        // the platform's own check accepts it
        const check = yield* Effect.promise(() => h.fake.validateCallback(h.callbackUrl, VERIFY_TOKEN))
        assert.isTrue(check.ok)

        const bad = yield* get(validationUrl(h.callbackUrl, "wrong-token"))
        assert.strictEqual(bad.status, 403)
        const missing = yield* get(`${h.callbackUrl}?hub.mode=subscribe&hub.challenge=x`)
        assert.strictEqual(missing.status, 403)

        const lines = channel(h.logs, "webhooks")
        assert.isTrue(lines.some((l) => l.level === "INFO" && l.message === "validation request received"))
        assert.isTrue(lines.some((l) => l.level === "INFO" && l.message === "request validated"))
        assert.strictEqual(lines.filter((l) => l.level === "ERROR" && l.message === "invalid verify token").length, 2)
        // the secret itself is never logged
        assert.isFalse(JSON.stringify(h.logs).includes(VERIFY_TOKEN))
      })
    ))

  it.live("answers 404 when webhooks are disabled", () =>
    withHarness((h) =>
      Effect.gen(function*() {
        const res = yield* get(validationUrl(h.callbackUrl, VERIFY_TOKEN))
        assert.strictEqual(res.status, 404)
        assert.strictEqual(JSON.parse(res.text).error, "not_found")
        const event = yield* post(h.callbackUrl, JSON.stringify({ object_type: "activity", aspect_type: "create", object_id: 1 }))
        assert.strictEqual(event.status, 404)
      }), { env: { WEBHOOKS_ENABLED: "false" } }))

  it.live("answers 404 in files mode", () =>
    withHarness((h) =>
      Effect.gen(function*() {
        const res = yield* get(validationUrl(h.callbackUrl, VERIFY_TOKEN))
        assert.strictEqual(res.status, 404)
      }), { env: { IMPORT_MODE: "files" } }))

  it.live("is outside bearer auth even when an API key is configured", () =>
    withHarness((h) =>
      Effect.gen(function*() {
        const res = yield* get(validationUrl(h.callbackUrl, VERIFY_TOKEN))
        assert.strictEqual(res.status, 200)
      }), { env: { SERVICE_API_KEY: `wmk_${"a".repeat(64)}` } }))
})

describe("POST /external/webhook (events)", () => {
  it.live("stores one pending event per activity, ignores other objects, answers 400 to a body that is not an event", () =>
    withHarness((h) =>
      Effect.gen(function*() {
        const first = yield* Effect.promise(() => h.fake.sendWebhookEvent(h.callbackUrl, { aspect_type: "create", object_id: 42 }))
        assert.strictEqual(first.status, 200)
        const second = yield* Effect.promise(() =>
          h.fake.sendWebhookEvent(h.callbackUrl, { aspect_type: "update", object_id: 42, updates: { title: "x" } })
        )
        assert.strictEqual(second.status, 200)
        yield* Effect.promise(() => h.fake.sendWebhookEvent(h.callbackUrl, { aspect_type: "delete", object_id: 43 }))
        yield* Effect.promise(() =>
          h.fake.sendWebhookEvent(h.callbackUrl, { aspect_type: "update", object_id: 7, object_type: "athlete" })
        )
        const bad = yield* post(h.callbackUrl, "{not json")
        assert.strictEqual(bad.status, 400)
        assert.deepStrictEqual(JSON.parse(bad.text), { error: "bad_request", message: "The body is not valid JSON." })
        const weird = yield* post(h.callbackUrl, JSON.stringify({ object_type: "activity", aspect_type: "archive", object_id: 5 }))
        assert.strictEqual(weird.status, 200)

        const repo = yield* StravaWebhookEventRepo
        assert.strictEqual(yield* repo.pending(), 2)
        const events = yield* repo.grab()
        assert.deepStrictEqual(events.map((e) => [e.objectId, e.aspectType]), [["42", "create"], ["43", "delete"]])
        // the stored payload keeps the event's known members only
        assert.deepStrictEqual(Object.keys(JSON.parse(events[0]!.payload)).sort(), ["aspect_type", "event_time", "object_id", "object_type", "owner_id", "subscription_id"])
        assert.strictEqual(JSON.parse(events[0]!.payload).object_id, 42)
        assert.strictEqual(yield* repo.pending(), 0)

        const lines = channel(h.logs, "webhooks")
        assert.strictEqual(lines.filter((l) => l.message === "event received").length, 5)
        // an event is logged by its summary, never its body
        const received = lines.find((l) => l.message === "event received")!.annotations
        assert.strictEqual(received.object_id, 42)
        assert.strictEqual(received.aspect_type, "create")
        assert.isUndefined(received.payload)
        assert.isUndefined(received.updates)
        assert.isTrue(lines.some((l) => l.level === "ERROR" && l.message.includes("not valid JSON")))
      })
    ))

  it.live("answers fast while an import holds the lock", () =>
    withHarness((h) =>
      Effect.gen(function*() {
        const strava = yield* StravaImport
        const started = Date.now()
        const res = yield* strava.withLock(
          Effect.promise(() => h.fake.sendWebhookEvent(h.callbackUrl, { aspect_type: "create", object_id: 9 }))
        )
        assert.strictEqual(res.status, 200)
        assert.isBelow(Date.now() - started, 1000)
        // the drain does not run while the lock is taken
        const busy = yield* strava.withLock(drainWebhookEvents)
        assert.strictEqual(busy._tag, "Busy")
        assert.strictEqual(yield* (yield* StravaWebhookEventRepo).pending(), 1)
      })
    ))
})

describe("StravaWebhookDrain", () => {
  it.live("an update and a delete arriving by webhook are applied by the drain", () =>
    withHarness((h) =>
      Effect.gen(function*() {
        const kept = h.fake.addActivity({}, { photos: 1 })
        const removed = h.fake.addActivity({}, { photos: 1 })
        const strava = yield* StravaImport
        const repo = yield* ActivityRepo
        yield* strava.run({ full: true })
        assert.strictEqual(fs.readdirSync(h.imagesDir).filter((f) => f.endsWith(".jpg")).length, 2)

        h.fake.updateActivity(kept.id, { name: "Evening Ride", sport_type: "GravelRide" })
        h.fake.removeActivity(removed.id)
        const created = h.fake.addActivity({}, { photos: 0 })
        for (const event of [
          { aspect_type: "update", object_id: kept.id },
          { aspect_type: "delete", object_id: removed.id },
          { aspect_type: "create", object_id: created.id }
        ] as const) {
          const res = yield* Effect.promise(() => h.fake.sendWebhookEvent(h.callbackUrl, event))
          assert.strictEqual(res.status, 200)
        }
        const result = yield* drainWebhookEvents
        assert.strictEqual(result._tag, "Processed")
        if (result._tag === "Processed") {
          assert.strictEqual(result.deleted, 1)
          assert.strictEqual(result.report?.updated, 1)
          assert.strictEqual(result.report?.imported, 1)
        }
        const updated = yield* repo.findById(`activity-${kept.id}`)
        assert.strictEqual(updated!.name, "Evening Ride")
        assert.strictEqual(updated!.sportType, "GravelRide")
        assert.strictEqual(updated!.images.length, 1)
        assert.isNull(yield* repo.findById(`activity-${removed.id}`))
        assert.isNotNull(yield* repo.findById(`activity-${created.id}`))
        assert.strictEqual(fs.readdirSync(h.imagesDir).filter((f) => f.endsWith(".jpg")).length, 1)
        assert.strictEqual(yield* (yield* StravaWebhookEventRepo).pending(), 0)
        assert.strictEqual((yield* drainWebhookEvents)._tag, "Idle")
      })
    ))

  it.live("while Strava access is blocked, events stay queued; a rate limit queues them again", () =>
    withHarness((h) =>
      Effect.gen(function*() {
        const activity = h.fake.addActivity({}, { photos: 0 })
        const strava = yield* StravaImport
        const events = yield* StravaWebhookEventRepo
        yield* Effect.promise(() => h.fake.sendWebhookEvent(h.callbackUrl, { aspect_type: "create", object_id: activity.id }))

        h.fake.setFailure("unauthorized")
        const refused = yield* drainWebhookEvents
        assert.strictEqual(refused._tag === "Processed" ? refused.report?.outcome : null, "blocked")
        assert.strictEqual(yield* events.pending(), 1)
        const blocked = yield* drainWebhookEvents
        assert.strictEqual(blocked._tag, "Blocked")
        assert.strictEqual(yield* events.pending(), 1)

        h.fake.setFailure("none")
        yield* strava.run({ full: true })
        assert.strictEqual((yield* strava.status)._tag, "Ready")
        h.fake.rateLimitNext(1)
        const limited = yield* drainWebhookEvents
        assert.strictEqual(limited._tag === "Processed" ? limited.report?.outcome : null, "rateLimited")
        assert.strictEqual(yield* events.pending(), 1)
        assert.isTrue(channel(h.logs, "daemon").some((l) => l.message.includes("queued again")))
      })
    ), 40_000)
})

describe("app:external:* commands", () => {
  it.live("webhooks-create subscribes through the platform's validation GET; view and delete", () =>
    withHarness((h) =>
      Effect.gen(function*() {
        const created = yield* runCli(["app:external:webhooks-create"])
        assert.strictEqual(created._tag, "Right", JSON.stringify(created))
        const subscriptions = [...h.fake.state.subscriptions.values()]
        assert.strictEqual(subscriptions.length, 1)
        assert.strictEqual(subscriptions[0]!.callback_url, h.callbackUrl)
        const out = () => channel(h.logs, "console-output").map((l) => l.message)
        assert.isTrue(out().some((m) => m.startsWith(`Webhook subscription created: id ${subscriptions[0]!.id}`)), out().join("\n"))
        assert.isTrue(channel(h.logs, "webhooks").some((l) => l.message === "request validated"))

        yield* runCli(["app:external:webhooks-view"])
        assert.isTrue(out().some((m) => m.includes(`ID: ${subscriptions[0]!.id}`) && m.includes(`Callback URL: ${h.callbackUrl}`)))

        const again = yield* runCli(["app:external:webhooks-create"])
        assert.strictEqual(again._tag, "Left")
        assert.isTrue(out().some((m) => m.includes("already exists")))

        const deleted = yield* runCli(["app:external:webhooks-delete", "--yes", String(subscriptions[0]!.id)])
        assert.strictEqual(deleted._tag, "Right", JSON.stringify(deleted))
        assert.strictEqual(h.fake.state.subscriptions.size, 0)
        assert.isTrue(out().includes(`Webhook subscription ${subscriptions[0]!.id} deleted`))

        yield* runCli(["app:external:webhooks-view"])
        assert.isTrue(out().includes("No webhook subscriptions found"))
      })
    ))

  it.live("webhooks-create reports 'callback url not verifiable' when the verify token differs", () =>
    withHarness((h) =>
      Effect.gen(function*() {
        const result = yield* runCli(["app:external:webhooks-create"], {
          webhooksVerifyToken: Option.some(Redacted.make("another-token"))
        })
        assert.strictEqual(result._tag, "Left")
        assert.strictEqual(h.fake.state.subscriptions.size, 0)
        const errors = channel(h.logs, "console-output").filter((l) => l.level === "ERROR").map((l) => l.message)
        assert.isTrue(errors.some((m) => m.includes("callback url not verifiable")), errors.join("\n"))
        assert.isTrue(channel(h.logs, "webhooks").some((l) => l.message === "invalid verify token"))
      })
    ))

  it.live("webhooks-create warns and exits when webhooks are disabled", () =>
    withHarness((h) =>
      Effect.gen(function*() {
        const result = yield* runCli(["app:external:webhooks-create"], { webhooksEnabled: false })
        assert.strictEqual(result._tag, "Right")
        assert.isTrue(channel(h.logs, "console-output").some((l) => l.level === "WARN" && l.message.startsWith("Webhooks are not enabled")))
        assert.strictEqual(h.fake.state.subscriptions.size, 0)
        assert.isFalse(h.fake.requests.some((r) => r.path.includes("push_subscriptions")))
      })
    ))

  it.live("app:external:import runs one full import", () =>
    withHarness((h) =>
      Effect.gen(function*() {
        const activity = h.fake.addActivity({}, { photos: 0 })
        const result = yield* runCli(["app:external:import"])
        assert.strictEqual(result._tag, "Right", JSON.stringify(result))
        assert.isNotNull(yield* (yield* ActivityRepo).findById(`activity-${activity.id}`))
        assert.isTrue(channel(h.logs, "console-output").some((l) => l.message.startsWith("Strava full import finished: 1 imported")))
        assert.isTrue(channel(h.logs, "daemon").some((l) => l.message.startsWith("imported activity")))
      })
    ))
})

describe("StravaModeLive", () => {
  it.live("starts the scheduled import and the webhook drain in externalApi mode", () =>
    withHarness((h) =>
      Effect.gen(function*() {
        const daemon = () => channel(h.logs, "daemon").map((l) => l.message)
        const started = () =>
          daemon().some((m) => m.startsWith('scheduled Strava import: "30 2 * * *"')) && daemon().includes("webhook events are processed every 5 minutes")
        yield* Effect.gen(function*() {
          while (!started()) yield* Effect.sleep("20 millis")
        }).pipe(Effect.timeoutFail({ duration: "15 seconds", onTimeout: () => new Error(`not both started:\n${daemon().join("\n")}`) }))
        // nothing imported before the cron fires
        assert.strictEqual(h.fake.apiRequests.length, 0)
      }), { fibers: true, env: { WEBHOOKS_CHECK_INTERVAL_MINUTES: "5" } }))

  it.live("does nothing in files mode", () =>
    withHarness((h) =>
      Effect.gen(function*() {
        yield* Effect.sleep("200 millis")
        const daemon = channel(h.logs, "daemon").map((l) => l.message)
        assert.isFalse(daemon.some((m) => m.includes("scheduled Strava import") || m.includes("webhook events are processed")))
      }), { fibers: true, env: { IMPORT_MODE: "files" } }))
})
