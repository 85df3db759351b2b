import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Command } from "@effect/cli"
import { ConfigProvider, Effect, HashMap, Layer, Logger, Option } from "effect"
import { createServer } from "node:http"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { makeStravaCommands } from "../../../src/connectors/strava/StravaCommands.ts"
import { StravaModeLive, StravaServicesLive } from "../../../src/connectors/strava/StravaMode.ts"
import { ApiLive } from "../../../src/http/ApiLive.ts"
import { HotReads } from "../../../src/http/HotReads.ts"
import { ApiAuthorization } from "../../../src/http/AuthorizationLive.ts"
import { DashboardSessions } from "../../../src/http/dashboard/DashboardSessions.ts"
import { PublicRoutes } from "../../../src/http/PublicRoutes.ts"
import { WEBHOOK_PATH, StravaWebhookRoutes } from "../../../src/connectors/strava/StravaWebhookRoutes.ts"
import { ServicesLive } from "../../../src/runtime/Services.ts"
import { AppConfig } from "../../../src/services/platform/AppConfig.ts"
import { type FakeStrava, type FakeStravaOptions, startFakeStrava } from "../../fakes/FakeStrava.ts"
import { freePort } from "../../support/freePort.ts"

/**
 * One externalApi-mode service for a test: a fake Strava, a temporary STORAGE_DIR, the real
 * ServicesLive + StravaImport + StravaWebhookEventRepo, and the HTTP app (public routes + the
 * webhook route) listening on a free loopback port, which is also APP_URL. Every log line is
 * collected in `logs`. Real clock only (it.live).
 */

export interface LogLine {
  readonly message: string
  readonly level: string
  readonly channel: string | undefined
  readonly annotations: Record<string, unknown>
}

export interface Harness {
  readonly fake: FakeStrava
  readonly appUrl: string
  readonly callbackUrl: string
  readonly storageDir: string
  readonly imagesDir: string
  readonly logs: Array<LogLine>
  readonly env: Readonly<Record<string, string>>
}

export interface HarnessOptions {
  readonly env?: Readonly<Record<string, string>>
  readonly fake?: FakeStravaOptions
  /** also start StravaModeLive (the scheduled import and the webhook drain) */
  readonly fibers?: boolean
}

export const VERIFY_TOKEN = "test-verify-token-0123"

const collector = (logs: Array<LogLine>) =>
  Logger.make(({ annotations, logLevel, message }) => {
    const text = (Array.isArray(message) ? message : [message]).map((m) => (typeof m === "string" ? m : JSON.stringify(m))).join(" ")
    const channel = Option.getOrUndefined(HashMap.get(annotations, "channel"))
    logs.push({
      message: text,
      level: logLevel.label,
      channel: channel === undefined ? undefined : String(channel),
      annotations: Object.fromEntries(HashMap.toEntries(annotations))
    })
  })

const makeLayer = (port: number, fibers = false) => {
  const http = HttpApiBuilder.serve().pipe(
    Layer.provide([PublicRoutes.live, StravaWebhookRoutes.live]),
    Layer.provide(ApiLive),
    Layer.provide([ApiAuthorization.Default, HotReads.Default]),
    Layer.provide(DashboardSessions.Default),
    Layer.provide(NodeHttpServer.layer(createServer, { port, host: "127.0.0.1" }))
  )
  return Layer.mergeAll(http, StravaServicesLive, fibers ? StravaModeLive : Layer.empty).pipe(Layer.provideMerge(ServicesLive))
}

export type HarnessServices = Layer.Layer.Success<ReturnType<typeof makeLayer>>

export const withHarness = <A, E>(
  body: (h: Harness) => Effect.Effect<A, E, HarnessServices>,
  options: HarnessOptions = {}
) =>
  Effect.scoped(Effect.gen(function*() {
    const fake = yield* Effect.acquireRelease(
      Effect.promise(() => startFakeStrava(options.fake)),
      (f) => Effect.promise(() => f.close())
    )
    const root = yield* Effect.acquireRelease(
      Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "waymark-external-"))),
      (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
    )
    const port = yield* freePort
    const appUrl = `http://127.0.0.1:${port}`
    const storageDir = path.join(root, "storage")
    const env: Record<string, string> = {
      STORAGE_DIR: storageDir,
      WATCH_DIR: path.join(root, "watch"),
      APP_URL: appUrl,
      TZ: "UTC",
      LOG_LEVEL: "fatal",
      IMPORT_MODE: "externalApi",
      STRAVA_CLIENT_ID: fake.state.clientId,
      STRAVA_CLIENT_SECRET: fake.state.clientSecret,
      STRAVA_REFRESH_TOKEN: fake.state.refreshToken,
      STRAVA_BASE_URL: fake.url,
      WEBHOOKS_ENABLED: "true",
      WEBHOOKS_VERIFY_TOKEN: VERIFY_TOKEN,
      ...options.env
    }
    const logs: Array<LogLine> = []
    const loggerLive = Logger.replace(Logger.defaultLogger, collector(logs))
    const layer = makeLayer(port, options.fibers).pipe(
      Layer.provide(loggerLive),
      Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))))
    )
    const harness: Harness = {
      fake,
      appUrl,
      callbackUrl: `${appUrl}${WEBHOOK_PATH}`,
      storageDir,
      imagesDir: path.join(storageDir, "files", "activities"),
      logs,
      env
    }
    return yield* body(harness).pipe(Effect.provide(Layer.merge(layer, loggerLive)))
  }))

/** Messages of a channel. */
export const channel = (logs: ReadonlyArray<LogLine>, name: string) => logs.filter((l) => l.channel === name)

/**
 * Runs one CLI command line (e.g. ["app:external:webhooks-view"]) with the harness services;
 * `config` overrides AppConfig fields for the command only.
 */
export const runCli = (args: ReadonlyArray<string>, config: Partial<AppConfig> = {}) =>
  Effect.gen(function*() {
    const context = yield* Effect.context<HarnessServices>()
    const base = yield* AppConfig
    const layer = Layer.succeedContext(context).pipe(
      Layer.merge(Layer.succeed(AppConfig, AppConfig.make({ ...base, ...config })))
    )
    const root = Command.make("waymark").pipe(Command.withSubcommands(makeStravaCommands(layer)))
    const cli = Command.run(root, { name: "waymark", version: "test" })
    return yield* cli(["node", "waymark", ...args]).pipe(Effect.provide(NodeContext.layer), Effect.either)
  })

export const get = (url: string) =>
  Effect.promise(async () => {
    const res = await fetch(url)
    return { status: res.status, text: await res.text() }
  })

export const post = (url: string, body: string) =>
  Effect.promise(async () => {
    const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body })
    return { status: res.status, text: await res.text() }
  })
