import * as NodeSdk from "@effect/opentelemetry/NodeSdk"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Fiber, HashMap, Layer, Logger, Option, Redacted, TestClock } from "effect"
import * as fs from "node:fs"
import * as http from "node:http"
import * as os from "node:os"
import * as path from "node:path"
import type { AddressInfo } from "node:net"
import { AppConfig, type AppConfigShape, DEFAULT_EXPORT_METADATA_LIMITS } from "../../../src/services/platform/AppConfig.ts"
import { RATE_LIMIT_WAIT_MARGIN, StravaClient, type StravaError } from "../../../src/connectors/strava/StravaClient.ts"
import { middayClock } from "../../support/middayClock.ts"
import { MAX_JSON_BYTES } from "../../../src/connectors/kit/Cloud.ts"
import { type FakeStrava, type FakeStravaOptions, RawText, startFakeStrava, TINY_JPEG } from "../../fakes/FakeStrava.ts"

interface LogLine {
  readonly message: string
  readonly level: string
  readonly channel: string | undefined
  readonly annotations: string
}

const configFor = (fake: FakeStrava, storageDir: string, overrides: Partial<AppConfigShape> = {}): AppConfigShape => ({
  port: 0,
  host: "127.0.0.1",
  appUrl: "http://127.0.0.1:8080",
  storageDir,
  watchDir: path.join(storageDir, "..", "watch"),
  watchSettle: Duration.seconds(3),
  watchPolling: false,
  watchPollingInterval: Duration.seconds(5),
  apiKey: Option.none(),
  importMode: "externalApi",
  unitSystem: "metric",
  timeZone: "UTC",
  demoMode: false,
  uploadMaxFileSize: 20 * 1024 * 1024,
  postMaxSize: 48 * 1024 * 1024,
  archiveEntryMaxSize: 64 * 1024 * 1024,
  archiveMaxSize: 4096 * 1024 * 1024,
  importParseWorkers: 1,
  exportMetadataLimits: DEFAULT_EXPORT_METADATA_LIMITS,
  logLevel: "info",
  logFormat: "text",
  otlpEndpoint: Option.none(),
  metricsPublic: false,
  stravaClientId: Option.some(fake.state.clientId),
  stravaClientSecret: Option.some(Redacted.make(fake.state.clientSecret)),
  stravaRefreshToken: Option.some(Redacted.make(fake.state.refreshToken)),
  stravaBaseUrl: fake.url,
  externalImportCron: "30 2 * * *",
  webhooksEnabled: false,
  webhooksVerifyToken: Option.none(),
  webhooksCheckIntervalMinutes: 5,
  mapTileUrl: "https://tile.openstreetmap.org/{z}/{x}/{y}.png",
  mapTilesFile: Option.none(),
  mapTileCacheMb: 500,
  ...overrides
})

const acquireFake = (options?: FakeStravaOptions) =>
  Effect.acquireRelease(Effect.promise(() => startFakeStrava(options)), (fake) => Effect.promise(() => fake.close()))

/** A fresh STORAGE_DIR, removed with the test's scope. */
const acquireStorageDir = Effect.acquireRelease(
  Effect.sync(() => path.join(fs.mkdtempSync(path.join(os.tmpdir(), "waymark-strava-client-")), "storage")),
  (dir) => Effect.sync(() => fs.rmSync(path.dirname(dir), { recursive: true, force: true }))
)

/** The client alone, over undici, with a given configuration. */
const clientLayer = (config: AppConfigShape) =>
  StravaClient.Default.pipe(
    Layer.provide(Layer.succeed(AppConfig, AppConfig.make(config))),
    Layer.provide(NodeHttpClient.layerUndici)
  )

/** Runs `body` against a fresh fake and a fresh client, collecting every log line. */
const withStrava = <A, E>(
  body: (ctx: { readonly fake: FakeStrava; readonly logs: Array<LogLine>; readonly client: StravaClient }) => Effect.Effect<A, E>,
  options: { readonly fake?: FakeStravaOptions; readonly config?: (fake: FakeStrava) => Partial<AppConfigShape> } = {}
) =>
  Effect.gen(function*() {
    const fake = yield* acquireFake(options.fake)
    const storageDir = yield* acquireStorageDir
    const logs: Array<LogLine> = []
    const collector = Logger.make(({ annotations, logLevel, message }) => {
      const text = Array.isArray(message) ? message.map(String).join(" ") : String(message)
      const channel = Option.getOrUndefined(HashMap.get(annotations, "channel"))
      logs.push({
        message: text,
        level: logLevel.label,
        channel: channel === undefined ? undefined : String(channel),
        annotations: JSON.stringify([...HashMap.toEntries(annotations)])
      })
    })
    const layer = clientLayer(configFor(fake, storageDir, options.config?.(fake) ?? {}))
    return yield* Effect.gen(function*() {
      const client = yield* StravaClient
      return yield* body({ fake, logs, client })
    }).pipe(Effect.provide(Layer.merge(layer, Logger.replace(Logger.defaultLogger, collector))))
  })

const stravaLines = (logs: ReadonlyArray<LogLine>) => logs.filter((l) => l.channel === "strava-api").map((l) => l.message)

const failure = <A>(effect: Effect.Effect<A, StravaError>) =>
  Effect.flip(effect)

/** A local server standing in for Waymark's /external/webhook validation endpoint. */
const startCallbackServer = (
  handler: (url: URL, res: http.ServerResponse) => void
) =>
  Effect.acquireRelease(
    Effect.promise(() =>
      new Promise<{ url: string; server: http.Server }>((resolve) => {
        const server = http.createServer((req, res) => handler(new URL(req.url ?? "/", "http://x"), res))
        server.listen(0, "127.0.0.1", () =>
          resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/external/webhook`, server }))
      })
    ),
    ({ server }) =>
      Effect.promise(() =>
        new Promise<void>((resolve) => {
          server.closeAllConnections()
          server.close(() => resolve())
        })
      )
  )

const echoChallenge = (verifyToken: string) => (url: URL, res: http.ServerResponse) => {
  if (url.searchParams.get("hub.verify_token") !== verifyToken) {
    res.writeHead(403, { "content-type": "application/json" })
    return res.end(JSON.stringify("Invalid verify token"))
  }
  res.writeHead(200, { "content-type": "application/json" })
  res.end(JSON.stringify({ "hub.challenge": url.searchParams.get("hub.challenge") }))
}

/** A port that was just free: nothing listens there. */
const closedPort = Effect.promise(() =>
  new Promise<number>((resolve) => {
    const server = http.createServer()
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as AddressInfo).port
      server.close(() => resolve(port))
    })
  })
)

describe("StravaClient", () => {
  describe("OAuth", () => {
    it.scopedLive("each call is a Strava.call span naming the cloud, the endpoint (its path, never a query) and the status", () =>
      Effect.gen(function*() {
        const exporter = new InMemorySpanExporter()
        // read before the SDK shuts down, which empties the exporter
        const finished = yield* withStrava(({ client }) => client.getAthlete()).pipe(
          Effect.zipRight(Effect.sync(() => exporter.getFinishedSpans())),
          Effect.provide(NodeSdk.layer(() => ({ resource: { serviceName: "test" }, spanProcessor: new SimpleSpanProcessor(exporter) })))
        )
        const calls = finished.filter((span) => span.name === "Strava.call")
        assert.deepStrictEqual(calls.map((span) => [span.attributes.cloud, span.attributes.endpoint, span.attributes["http.response.status_code"]]), [
          ["strava", "POST /oauth/token", 200],
          ["strava", "GET /api/v3/athlete", 200]
        ])
      }))

    it.scopedLive("grants one access token and reuses it for several calls", () =>
      withStrava(({ client, fake }) =>
        Effect.gen(function*() {
          fake.addActivity()
          yield* client.getAthlete()
          yield* client.listActivities(1)
          yield* client.getGear("b1234567")
          assert.strictEqual(fake.tokenGrants, 1)
          const bearers = new Set(fake.apiRequests.map((r) => r.authorization))
          assert.strictEqual(bearers.size, 1)
          assert.match([...bearers][0]!, /^Bearer fake-access-/)
          const oauth = fake.requests.filter((r) => r.path === "/oauth/token")
          assert.strictEqual(oauth.length, 1)
          assert.strictEqual(oauth[0]!.method, "POST")
        })
      ))

    it.scoped("refreshes after expires_at (minus the margin) with the rotated refresh token", () =>
      withStrava(({ client, fake }) =>
        Effect.gen(function*() {
          yield* TestClock.setTime(Date.now())
          yield* client.getAthlete()
          yield* client.getAthlete()
          assert.strictEqual(fake.tokenGrants, 1)
          // 6 h tokens: 5 h 56 min later the margin of 5 min is crossed.
          yield* TestClock.adjust(Duration.sum(Duration.hours(5), Duration.minutes(56)))
          yield* client.getAthlete()
          // The fake accepts only the latest (rotated) refresh token, so a second grant proves rotation was kept.
          assert.strictEqual(fake.tokenGrants, 2)
          const bearers = fake.apiRequests.map((r) => r.authorization)
          assert.strictEqual(bearers[0], bearers[1])
          assert.notStrictEqual(bearers[1], bearers[2])
        })
      ))

    it.scopedLive("fails NotConfigured naming the missing variables, without calling Strava", () =>
      withStrava(({ client, fake }) =>
        Effect.gen(function*() {
          const error = yield* failure(client.getAthlete())
          assert.strictEqual(error.reason, "NotConfigured")
          assert.include(error.message, "STRAVA_CLIENT_SECRET")
          assert.include(error.message, "STRAVA_REFRESH_TOKEN")
          assert.notInclude(error.message, "STRAVA_CLIENT_ID")
          const sub = yield* failure(client.listSubscriptions())
          assert.strictEqual(sub.reason, "NotConfigured")
          assert.strictEqual(fake.requests.length, 0)
        }), { config: () => ({ stravaClientSecret: Option.none(), stravaRefreshToken: Option.none() }) }))

    it.scopedLive("a refused refresh token fails Unauthorized", () =>
      withStrava(({ client }) =>
        Effect.gen(function*() {
          const error = yield* failure(client.getAthlete())
          assert.strictEqual(error.reason, "Unauthorized")
          assert.include(error.message, "refresh_token invalid")
          assert.include(error.message, "STRAVA_REFRESH_TOKEN")
        }), { config: () => ({ stravaRefreshToken: Option.some(Redacted.make("wrong")) }) }))
  })

  describe("tokens across restarts", () => {
    const INITIAL_REFRESH = "initial-refresh-token-0123456789"
    /**
     * One client process: builds the client on `storageDir`, runs `body`, and stops. Its
     * STRAVA_REFRESH_TOKEN is the fake's initial one unless overridden (not the fake's current one).
     */
    const run = <A, E>(fake: FakeStrava, storageDir: string, body: (client: StravaClient) => Effect.Effect<A, E>, overrides: Partial<AppConfigShape> = {}) =>
      Effect.flatMap(StravaClient, body).pipe(
        Effect.provide(clientLayer(configFor(fake, storageDir, { stravaRefreshToken: Option.some(Redacted.make(INITIAL_REFRESH)), ...overrides })))
      )

    const tokenFile = (storageDir: string) => path.join(storageDir, "tokens", "strava.json")

    it.scopedLive("a refresh token rotated by Strava is saved at once (0600, no configured token in clear) and used after a restart", () =>
      Effect.gen(function*() {
        // 60 s access tokens: inside the 5 min margin, so every start needs a refresh
        const fake = yield* acquireFake({ tokenLifetimeSeconds: 60, refreshToken: INITIAL_REFRESH })
        const storageDir = yield* acquireStorageDir
        const configured = fake.state.refreshToken
        yield* run(fake, storageDir, (client) => client.getAthlete())
        const rotated = fake.state.refreshToken
        assert.notStrictEqual(rotated, configured)
        const file = tokenFile(storageDir)
        assert.strictEqual(fs.statSync(file).mode & 0o777, 0o600)
        const stored = fs.readFileSync(file, "utf8")
        assert.include(stored, rotated)
        assert.notInclude(stored, configured)

        // restart: STRAVA_REFRESH_TOKEN still holds the original token, which the fake now refuses
        const athlete = yield* run(fake, storageDir, (client) => client.getAthlete())
        assert.strictEqual(athlete.id, fake.state.athlete.id)
        assert.strictEqual(fake.tokenGrants, 2)
        const grants = fake.requests.filter((r) => r.path === "/oauth/token")
        assert.strictEqual(grants.length, 2)
        assert.include(fs.readFileSync(file, "utf8"), fake.state.refreshToken)
      }))

    it.scopedLive("without the token file a restart falls back to STRAVA_REFRESH_TOKEN, which a rotation has spent", () =>
      Effect.gen(function*() {
        const fake = yield* acquireFake({ tokenLifetimeSeconds: 60, refreshToken: INITIAL_REFRESH })
        const storageDir = yield* acquireStorageDir
        yield* run(fake, storageDir, (client) => client.getAthlete())
        fs.rmSync(tokenFile(storageDir))
        const error = yield* Effect.flip(run(fake, storageDir, (client) => client.getAthlete()))
        assert.strictEqual(error._tag === "StravaError" ? error.reason : error._tag, "Unauthorized")
      }))

    it.scopedLive("a restart reuses a stored access token that is still valid", () =>
      Effect.gen(function*() {
        const fake = yield* acquireFake({ refreshToken: INITIAL_REFRESH })
        const storageDir = yield* acquireStorageDir
        yield* run(fake, storageDir, (client) => client.getAthlete())
        yield* run(fake, storageDir, (client) => client.getAthlete())
        assert.strictEqual(fake.tokenGrants, 1)
        const bearers = new Set(fake.apiRequests.map((r) => r.authorization))
        assert.strictEqual(bearers.size, 1)
      }))

    it.scopedLive("a new STRAVA_REFRESH_TOKEN (a fresh authorization) wins over the stored tokens", () =>
      Effect.gen(function*() {
        const fake = yield* acquireFake({ refreshToken: INITIAL_REFRESH })
        const storageDir = yield* acquireStorageDir
        yield* run(fake, storageDir, (client) => client.getAthlete())
        const fresh = fake.reauthorize()
        yield* run(fake, storageDir, (client) => client.getAthlete(), { stravaRefreshToken: Option.some(Redacted.make(fresh)) })
        assert.strictEqual(fake.tokenGrants, 2)
        const [first, second] = fake.apiRequests.map((r) => r.authorization)
        assert.notStrictEqual(first, second, "the access token of the old authorization is not reused")
        // and the chain of the new authorization is the one kept for the next restart
        yield* run(fake, storageDir, (client) => client.getAthlete(), { stravaRefreshToken: Option.some(Redacted.make(fresh)) })
        assert.strictEqual(fake.tokenGrants, 2)
      }))

    it.scopedLive("a damaged token file stops the start in externalApi mode, naming the file", () =>
      Effect.gen(function*() {
        const fake = yield* acquireFake()
        const storageDir = yield* acquireStorageDir
        fs.mkdirSync(path.join(storageDir, "tokens"), { recursive: true })
        fs.writeFileSync(tokenFile(storageDir), "{ not json")
        const error = yield* Effect.flip(run(fake, storageDir, (client) => client.getAthlete()))
        assert.strictEqual(error._tag, "JsonFileError")
        assert.include(error.message, tokenFile(storageDir))
        assert.strictEqual(fs.readFileSync(tokenFile(storageDir), "utf8"), "{ not json", "never silently reset")
        assert.strictEqual(fake.requests.length, 0)
      }))

    it.scopedLive("in files mode the token file is not touched until Strava is used", () =>
      Effect.gen(function*() {
        const fake = yield* acquireFake()
        const storageDir = yield* acquireStorageDir
        const subscriptions = yield* run(fake, storageDir, (client) => client.listSubscriptions(), { importMode: "files" })
        assert.deepStrictEqual(subscriptions, [])
        assert.isFalse(fs.existsSync(path.join(storageDir, "tokens")))
      }))
  })

  describe("reads", () => {
    it.scopedLive("pages through 450 activities, newest first, until an empty page", () =>
      withStrava(({ client, fake }) =>
        Effect.gen(function*() {
          const added = fake.addActivities(450)
          const all = yield* client.listAllActivities()
          assert.strictEqual(all.length, 450)
          assert.deepStrictEqual(all.map((a) => a.id), added.map((a) => a.id))
          const pages = fake.apiRequests.filter((r) => r.path === "/api/v3/athlete/activities")
          assert.deepStrictEqual(pages.map((r) => [r.query.page, r.query.per_page]), [
            ["1", "200"],
            ["2", "200"],
            ["3", "200"],
            ["4", "200"]
          ])
          const page3 = yield* client.listActivities(3, 100)
          assert.strictEqual(page3.length, 100)
          assert.strictEqual(page3[0]!.id, added[200]!.id)
        })
      ))

    it.scopedLive("decodes detail, streams, photos, photo bytes and gear", () =>
      withStrava(({ client, fake }) =>
        Effect.gen(function*() {
          const { id } = fake.addActivity({ name: "Test ride" })
          const detail = yield* client.getActivity(id)
          assert.strictEqual(detail.id, id)
          assert.strictEqual(detail.name, "Test ride")
          assert.strictEqual(detail.sport_type, "Ride")
          assert.strictEqual(detail.moving_time, 1800)
          assert.strictEqual(detail.gear_id, "b1234567")
          assert.strictEqual(detail.device_name, "Garmin Edge 540")
          assert.strictEqual(detail.laps?.length, 1)
          assert.isAbove(detail.splits_metric?.length ?? 0, 10)
          assert.isAbove(detail.splits_standard?.length ?? 0, 5)
          assert.isAbove(detail.distance ?? 0, 10_000)
          assert.isDefined(detail.average_heartrate)
          assert.isDefined(detail.average_watts)
          assert.isDefined(detail.calories)
          assert.isDefined(detail.map?.polyline)
          assert.isDefined(detail.map?.summary_polyline)
          assert.strictEqual(detail.start_latlng?.length, 2)
          assert.strictEqual(detail.total_photo_count, 1)
          assert.match(detail.start_date_local, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)

          const streams = yield* client.getStreams(id)
          assert.strictEqual(streams.time?.data.length, 1801)
          assert.deepStrictEqual(streams.latlng?.data[0]?.length, 2)
          for (const key of ["distance", "altitude", "velocity_smooth", "heartrate", "cadence", "watts", "temp", "moving", "grade_smooth"] as const) {
            assert.strictEqual(streams[key]?.data.length, 1801, key)
          }
          const streamRequest = fake.apiRequests.find((r) => r.path.endsWith("/streams"))!
          assert.deepStrictEqual(streamRequest.query, {
            keys: "time,distance,latlng,altitude,velocity_smooth,heartrate,cadence,watts,temp,moving,grade_smooth",
            key_by_type: "true"
          })

          const photos = yield* client.getPhotos(id)
          assert.strictEqual(photos.length, 1)
          const photoUrl = photos[0]!.urls?.["5000"]
          assert.isDefined(photoUrl)
          assert.strictEqual(fake.apiRequests.find((r) => r.path.endsWith("/photos"))!.query.size, "5000")
          const bytes = yield* client.downloadPhoto(photoUrl!)
          assert.deepStrictEqual(Buffer.from(bytes), TINY_JPEG)
          const download = fake.requests.find((r) => r.path.startsWith("/photos/"))!
          assert.isUndefined(download.authorization, "no bearer token is sent with a photo download")

          const gear = yield* client.getGear("b1234567")
          assert.strictEqual(gear.name, "Canyon Endurace")
          assert.strictEqual(gear.retired, false)
        })
      ))

    it.scopedLive("an unknown activity fails ApiError 404 with Strava's message", () =>
      withStrava(({ client }) =>
        Effect.gen(function*() {
          const error = yield* failure(client.getActivity(1))
          assert.strictEqual(error.reason, "ApiError")
          assert.strictEqual(error.status, 404)
          assert.include(error.message, "Record Not Found (Activity: id invalid)")
        })
      ))

    it.scopedLive("a payload of the wrong shape fails InvalidResponse", () =>
      withStrava(({ client, fake }) =>
        Effect.gen(function*() {
          fake.failNext(1, 200, { unexpected: true })
          const error = yield* failure(client.getAthlete())
          assert.strictEqual(error.reason, "InvalidResponse")
          assert.include(error.message, "/api/v3/athlete")
        })
      ))
  })

  describe("push subscriptions", () => {
    it.scopedLive("creates, lists and deletes a subscription after the callback validation", () =>
      Effect.gen(function*() {
        const callback = yield* startCallbackServer(echoChallenge("verify-me"))
        yield* withStrava(({ client, fake }) =>
          Effect.gen(function*() {
            const created = yield* client.createSubscription(callback.url, Redacted.make("verify-me"))
            const listed = yield* client.listSubscriptions()
            assert.deepStrictEqual(listed.map((s) => [s.id, s.callback_url]), [[created.id, callback.url]])

            const again = yield* failure(client.createSubscription(callback.url, "verify-me"))
            assert.strictEqual(again.reason, "ApiError")
            assert.strictEqual(again.status, 400)
            assert.include(again.message, "callback url already exists")

            yield* client.deleteSubscription(created.id)
            assert.deepStrictEqual(yield* client.listSubscriptions(), [])
            const missing = yield* failure(client.deleteSubscription(created.id))
            assert.strictEqual(missing.status, 404)
            // Client credentials travel in the query (GET/DELETE) and never as a bearer token.
            const del = fake.apiRequests.find((r) => r.method === "DELETE")!
            assert.strictEqual(del.query.client_id, fake.state.clientId)
            assert.strictEqual(fake.tokenGrants, 0)
          })
        )
      }))

    it.scopedLive("fails with \"callback url not verifiable\" when the callback answers 500", () =>
      Effect.gen(function*() {
        const callback = yield* startCallbackServer((_, res) => {
          res.writeHead(500)
          res.end()
        })
        yield* withStrava(({ client, fake }) =>
          Effect.gen(function*() {
            const error = yield* failure(client.createSubscription(callback.url, "verify-me"))
            assert.strictEqual(error.reason, "ApiError")
            assert.strictEqual(error.status, 400)
            assert.include(error.message, "callback url not verifiable")
            assert.strictEqual(fake.state.subscriptions.size, 0)
          })
        )
      }))

    it.scopedLive("fails with \"callback url not verifiable\" when nothing listens on the callback", () =>
      Effect.gen(function*() {
        const port = yield* closedPort
        yield* withStrava(({ client }) =>
          Effect.gen(function*() {
            const error = yield* failure(client.createSubscription(`http://127.0.0.1:${port}/external/webhook`, "t"))
            assert.include(error.message, "callback url not verifiable")
          })
        )
      }))

    it.scopedLive("fails \"not verifiable\" when the callback rejects the verify token", () =>
      Effect.gen(function*() {
        const callback = yield* startCallbackServer(echoChallenge("expected"))
        yield* withStrava(({ client }) =>
          Effect.gen(function*() {
            const error = yield* failure(client.createSubscription(callback.url, "other"))
            assert.include(error.message, "callback url not verifiable")
          })
        )
      }))
  })

  describe("logging", () => {
    it.scopedLive("writes one strava-api INFO line per call in the reference format", () =>
      withStrava(({ client, fake, logs }) =>
        Effect.gen(function*() {
          yield* client.getAthlete()
          yield* client.listSubscriptions()
          fake.rateLimitNext(1)
          yield* Effect.either(client.getAthlete())
          const lines = logs.filter((l) => l.channel === "strava-api")
          assert.deepStrictEqual(lines.map((l) => l.message), [
            "POST - /oauth/token - x-ratelimit-limit:  - x-ratelimit-usage:  - x-readratelimit-limit:  - x-readratelimit-usage: ",
            "GET - /api/v3/athlete - x-ratelimit-limit: 200,2000 - x-ratelimit-usage: 1,1 - x-readratelimit-limit: 100,1000 - x-readratelimit-usage: 1,1",
            "GET - /api/v3/push_subscriptions - x-ratelimit-limit: 200,2000 - x-ratelimit-usage: 2,2 - x-readratelimit-limit: 100,1000 - x-readratelimit-usage: 2,2",
            "GET - /api/v3/athlete - x-ratelimit-limit: 200,2000 - x-ratelimit-usage: 200,3 - x-readratelimit-limit: 100,1000 - x-readratelimit-usage: 100,3"
          ])
          assert.isTrue(lines.every((l) => l.level === "INFO"))
        })
      ))

    it.scopedLive("never logs the access token, the refresh tokens or the client secret", () =>
      Effect.gen(function*() {
        const callback = yield* startCallbackServer(echoChallenge("verify-secret-token"))
        yield* withStrava(({ client, fake, logs }) =>
          Effect.gen(function*() {
            const initialRefresh = fake.state.refreshToken
            const { id } = fake.addActivity()
            yield* client.getActivity(id)
            yield* client.getStreams(id)
            const sub = yield* client.createSubscription(callback.url, "verify-secret-token")
            yield* client.listSubscriptions()
            yield* client.deleteSubscription(sub.id)
            fake.setFailure("unauthorized")
            const unauthorized = yield* failure(client.getAthlete())
            fake.setFailure("none")
            yield* client.getAthlete()
            assert.strictEqual(fake.tokenGrants, 2, "the 401 dropped the cached token")
            const secrets = [
              initialRefresh,
              fake.state.refreshToken,
              fake.state.clientSecret,
              "verify-secret-token",
              ...fake.state.accessTokens.keys()
            ]
            assert.isAbove(logs.length, 8)
            const everything = [...logs.map((l) => `${l.message} ${l.annotations}`), unauthorized.message].join("\n")
            for (const secret of secrets) assert.notInclude(everything, secret)
          })
        )
      }))
  })

  describe("rate limits", () => {
    it.scoped("waits until the next quarter hour when the 15-minute read budget is spent", () =>
      withStrava(({ client, fake, logs }) =>
        Effect.gen(function*() {
          const quarter = 15 * 60 * 1000
          const start = Math.floor(Date.now() / quarter) * quarter + 7 * 60 * 1000 + 30 * 1000 // hh:07:30 (or :22:30 ...)
          const boundary = start - 7.5 * 60 * 1000 + quarter
          const resumeAt = boundary + Duration.toMillis(RATE_LIMIT_WAIT_MARGIN)
          yield* TestClock.setTime(start)
          fake.setUsage({ read15: 98, overall15: 98 })
          yield* client.getAthlete() // read usage becomes 99 = limit - 1: spent
          const sent = fake.apiRequests.length

          const fiber = yield* Effect.fork(client.getGear("b1234567"))
          const waitLogged = () => stravaLines(logs).find((l) => l.startsWith("Strava 15-minute rate limit reached"))
          for (let i = 0; i < 1000 && waitLogged() === undefined; i++) yield* Effect.yieldNow()
          const waitLine = waitLogged()
          assert.isDefined(waitLine, "the wait is logged in strava-api")
          assert.include(waitLine!, new Date(resumeAt).toISOString())

          yield* TestClock.adjust(boundary - 1000 - start)
          yield* Effect.promise(() => new Promise((r) => setTimeout(r, 100)))
          assert.isTrue(Option.isNone(yield* Fiber.poll(fiber)), "still waiting one second before the boundary")
          assert.strictEqual(fake.apiRequests.length, sent, "nothing sent while waiting")

          fake.resetWindow("15min")
          yield* TestClock.adjust(resumeAt - (boundary - 1000))
          const gear = yield* Fiber.join(fiber)
          assert.strictEqual(gear.id, "b1234567")
          assert.strictEqual(fake.apiRequests.length, sent + 1)
        })
      ))

    it.scopedLive("does not wait when the budget is not spent", () =>
      withStrava(({ client, fake, logs }) =>
        Effect.gen(function*() {
          fake.setUsage({ read15: 97 })
          yield* client.getAthlete() // 98: one request left before "limit - 1"
          yield* client.getAthlete().pipe(Effect.timeout("5 seconds"))
          assert.isFalse(stravaLines(logs).some((l) => l.includes("rate limit reached")))
        })
      ))

    it.scopedLive("fails RateLimited (daily) without calling once the daily budget is spent", () =>
      withStrava(({ client, fake }) =>
        Effect.gen(function*() {
          fake.setUsage({ readDaily: 998, overallDaily: 998 })
          yield* client.getAthlete()
          const sent = fake.apiRequests.length
          const error = yield* failure(client.getAthlete())
          assert.strictEqual(error.reason, "RateLimited")
          assert.strictEqual(error.window, "daily")
          assert.strictEqual(fake.apiRequests.length, sent)
        })
      ).pipe(Effect.withClock(middayClock())))

    it.scopedLive("a 429 in the 15-minute window fails RateLimited (15min)", () =>
      withStrava(({ client, fake }) =>
        Effect.gen(function*() {
          fake.rateLimitNext(1, "15min")
          const error = yield* failure(client.getAthlete())
          assert.strictEqual(error.reason, "RateLimited")
          assert.strictEqual(error.status, 429)
          assert.strictEqual(error.window, "15min")
        })
      ))

    it.scopedLive("a 429 in the daily window fails RateLimited (daily), and so does the next call, unsent", () =>
      withStrava(({ client, fake }) =>
        Effect.gen(function*() {
          fake.rateLimitNext(1, "daily")
          const error = yield* failure(client.getActivity(1))
          assert.strictEqual(error.reason, "RateLimited")
          assert.strictEqual(error.status, 429)
          assert.strictEqual(error.window, "daily")
          const sent = fake.apiRequests.length
          const next = yield* failure(client.getAthlete())
          assert.strictEqual(next.window, "daily")
          assert.strictEqual(fake.apiRequests.length, sent)
        })
        // at midday: minutes before midnight UTC the daily window is waited out, not failed
      ).pipe(Effect.withClock(middayClock())))
  })

  describe("errors", () => {
    it.scopedLive("401 fails Unauthorized naming the activity:read_all scope", () =>
      withStrava(({ client, fake }) =>
        Effect.gen(function*() {
          fake.setFailure("unauthorized")
          const error = yield* failure(client.listActivities(1))
          assert.strictEqual(error.reason, "Unauthorized")
          assert.strictEqual(error.status, 401)
          assert.include(error.message, "activity:read_all")
        })
      ).pipe(Effect.withClock(middayClock())))

    it.scopedLive("403 Inactive fails Inactive", () =>
      withStrava(({ client, fake }) =>
        Effect.gen(function*() {
          fake.setFailure("inactive")
          const error = yield* failure(client.getAthlete())
          assert.strictEqual(error.reason, "Inactive")
          assert.strictEqual(error.status, 403)
          const sub = yield* failure(client.listSubscriptions())
          assert.strictEqual(sub.reason, "Inactive")
        })
      ))

    it.scopedLive("a 403 without Inactive is a plain ApiError", () =>
      withStrava(({ client, fake }) =>
        Effect.gen(function*() {
          fake.failNext(1, 403, { message: "Forbidden", errors: [{ resource: "Activity", field: "id", code: "forbidden" }] })
          const error = yield* failure(client.getAthlete())
          assert.strictEqual(error.reason, "ApiError")
          assert.strictEqual(error.status, 403)
        })
      ))

    it.scopedLive("retries a 5xx on reads, then gives up with ApiError", () =>
      withStrava(({ client, fake }) =>
        Effect.gen(function*() {
          fake.failNext(1, 502)
          const athlete = yield* client.getAthlete()
          assert.strictEqual(athlete.id, fake.state.athlete.id)
          assert.strictEqual(fake.apiRequests.filter((r) => r.path === "/api/v3/athlete").length, 2)
          fake.failNext(3, 503)
          const error = yield* failure(client.getAthlete())
          assert.strictEqual(error.reason, "ApiError")
          assert.strictEqual(error.status, 503)
          assert.strictEqual(fake.apiRequests.filter((r) => r.path === "/api/v3/athlete").length, 5)
        })
      ))

    it.scopedLive("an answer of the wrong shape nested 100,000 deep fails InvalidResponse in one short line naming the field, never the value", () =>
      withStrava(({ client, fake }) =>
        Effect.gen(function*() {
          fake.failNext(1, 200, new RawText(`{"id":${"[".repeat(100_000)}${"]".repeat(100_000)}}`))
          const error = yield* failure(client.getAthlete())
          assert.strictEqual(error.reason, "InvalidResponse")
          assert.strictEqual(error.message, "Strava's answer to GET /api/v3/athlete is not what was expected: id: expected number, got an array of 1 item")
        })
      ))

    it.scopedLive("an answer larger than the JSON limit fails InvalidResponse naming the limit", () =>
      withStrava(({ client, fake }) =>
        Effect.gen(function*() {
          fake.failNext(1, 200, new RawText(JSON.stringify({ ...fake.state.athlete, bio: "x".repeat(MAX_JSON_BYTES) })))
          const error = yield* failure(client.getAthlete())
          assert.strictEqual(error.reason, "InvalidResponse")
          assert.strictEqual(error.message, `GET /api/v3/athlete: the answer is larger than ${MAX_JSON_BYTES} bytes`)
        })
      ))

    it.scopedLive("an error answer's own message is cut short in the error", () =>
      withStrava(({ client, fake }) =>
        Effect.gen(function*() {
          fake.failNext(1, 404, { message: "m".repeat(1_000_000), errors: [{ resource: "Activity", field: "id", code: "invalid" }] })
          const error = yield* failure(client.getActivity(1))
          assert.strictEqual(error.reason, "ApiError")
          assert.isBelow(error.message.length, 400)
          assert.include(error.message, "Strava answered 404 to GET /api/v3/activities/1: ")
        })
      ))

    it.scopedLive("an unreachable Strava fails Transport", () =>
      Effect.gen(function*() {
        const port = yield* closedPort
        yield* withStrava(({ client }) =>
          Effect.gen(function*() {
            const error = yield* failure(client.getAthlete())
            assert.strictEqual(error.reason, "Transport")
            assert.include(error.message, "/oauth/token")
          }), { config: () => ({ stravaBaseUrl: `http://127.0.0.1:${port}` }) })
      }))
  })
})
