import * as HttpServer from "@effect/platform/HttpServer"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { ConfigProvider, Effect, Layer, type Scope } from "effect"
import * as fs from "node:fs"
import * as https from "node:https"
import * as os from "node:os"
import * as path from "node:path"
import { WahooClient } from "../../../src/connectors/wahoo/WahooClient.ts"
import { WahooConfig } from "../../../src/connectors/wahoo/WahooConfig.ts"
import { WahooConnectorLive, WahooServicesLive } from "../../../src/connectors/wahoo/WahooConnector.ts"
import { type FakeWahoo, startFakeWahoo, type FakeWahooOptions } from "../../fakes/FakeWahoo.ts"
import { freePort } from "../../support/freePort.ts"

/**
 * Helpers of the Wahoo connector tests: a fake Wahoo per test, temporary DATA_DIR folders,
 * the connector's layers over them (configured from a map, never from process.env), the
 * authorization done the way a browser does it, and HTTPS requests that trust only the
 * certificate the connector generated.
 */

export interface Dirs {
  readonly root: string
  readonly dataDir: string
  readonly stateDir: string
  readonly watchDir: string
}

export const makeDirs = (): Dirs => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "waymark-wahoo-"))
  const dataDir = path.join(root, "data")
  return { root, dataDir, stateDir: path.join(dataDir, "config"), watchDir: path.join(dataDir, "downloads") }
}

export const scopedDirs: Effect.Effect<Dirs, never, Scope.Scope> = Effect.acquireRelease(
  Effect.sync(makeDirs),
  (dirs) => Effect.sync(() => fs.rmSync(dirs.root, { recursive: true, force: true }))
)

export const scopedFake = (options: FakeWahooOptions = {}): Effect.Effect<FakeWahoo, never, Scope.Scope> =>
  Effect.acquireRelease(Effect.promise(() => startFakeWahoo(options)), (fake) => Effect.promise(() => fake.close()))

/** The connector's environment against `fake` over `dirs`. */
export const envFor = (fake: FakeWahoo, dirs: Dirs, extra: Readonly<Record<string, string>> = {}): Record<string, string> => ({
  PROVIDER_B_CLIENT_ID: fake.clientId,
  PROVIDER_B_CLIENT_SECRET: fake.clientSecret,
  PROVIDER_B_API_URL: fake.url,
  DATA_DIR: dirs.dataDir,
  PORT: "0",
  HOST: "127.0.0.1",
  LOG_LEVEL: "ERROR",
  ...extra
})

const configOf = (env: Readonly<Record<string, string>>) =>
  Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))

/** WahooConfig and WahooClient alone. */
export const clientLayer = (env: Readonly<Record<string, string>>) =>
  WahooClient.Default.pipe(
    Layer.provide(NodeHttpClient.layerUndici),
    Layer.provideMerge(WahooConfig.Default),
    Layer.provide(configOf(env))
  )

/** The connector's services (client, sync, scheduler) without the server. */
export const servicesLayer = (env: Readonly<Record<string, string>>) =>
  WahooServicesLive.pipe(Layer.provideMerge(WahooConfig.Default), Layer.provide(configOf(env)))

/** The whole connector (HTTPS server included), as `npm run wahoo` composes it. */
export const connectorLayer = (env: Readonly<Record<string, string>>) => WahooConnectorLive.pipe(Layer.provide(configOf(env)))

/** `https://127.0.0.1:<port>` of the connector's listener. */
export const baseUrlOf = Effect.map(HttpServer.HttpServer, (server) => {
  const address = server.address
  if (address._tag !== "TcpAddress") throw new Error("not a TCP listener")
  return `https://127.0.0.1:${address.port}`
})

/** Asks the fake's authorize page as a browser would (the holder approves at once); answers the redirect. */
export const authorizeAt = (authorizeUrl: string) =>
  Effect.promise(async () => {
    const response = await fetch(authorizeUrl, { redirect: "manual" })
    return new URL(response.headers.get("location") ?? "")
  })

/** Connects the client: authorize at the fake, exchange the code. */
export const connectClient = Effect.gen(function*() {
  const client = yield* WahooClient
  const back = yield* authorizeAt(client.authorizeUrl("test-state"))
  yield* client.exchangeCode(back.searchParams.get("code")!)
})

export interface HttpsAnswer {
  readonly status: number
  readonly headers: Readonly<Record<string, string | Array<string> | undefined>>
  readonly text: string
  readonly json: any
  /** SHA-256 fingerprint of the certificate the server presented. */
  readonly fingerprint: string
}

/** One HTTPS request that trusts only `ca` (the connector's own certificate). */
export const httpsRequest = (
  url: string,
  options: { readonly ca: string; readonly method?: string; readonly body?: string; readonly headers?: Record<string, string> }
) =>
  Effect.async<HttpsAnswer, Error>((resume) => {
    const request = https.request(url, {
      method: options.method ?? "GET",
      ca: options.ca,
      agent: false,
      headers: { ...(options.body !== undefined ? { "content-length": String(Buffer.byteLength(options.body)) } : {}), ...options.headers }
    }, (response) => {
      const socket = response.socket as import("node:tls").TLSSocket | null
      const fingerprint = socket?.getPeerX509Certificate?.()?.fingerprint256 ?? ""
      const chunks: Array<Buffer> = []
      response.on("data", (c: Buffer) => chunks.push(c))
      response.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8")
        let json: unknown
        try {
          json = JSON.parse(text)
        } catch {
          json = undefined
        }
        resume(Effect.succeed({
          status: response.statusCode ?? 0,
          headers: response.headers,
          text,
          json,
          fingerprint
        }))
      })
      response.on("error", (e) => resume(Effect.fail(e)))
    })
    request.on("error", (e) => resume(Effect.fail(e)))
    request.end(options.body)
  })

/** Polls `probe` until it answers something other than undefined; dies after `timeoutMs`. */
export const eventually = <A, E, R>(what: string, probe: Effect.Effect<A | undefined, E, R>, timeoutMs = 15_000) =>
  Effect.gen(function*() {
    const deadline = Date.now() + timeoutMs
    while (true) {
      const value = yield* probe
      if (value !== undefined) return value
      if (Date.now() > deadline) return yield* Effect.dieMessage(`timed out waiting for ${what}`)
      yield* Effect.sleep("50 millis")
    }
  })

export const daysAgo = (days: number, hour = 8) => {
  const d = new Date(Date.now() - days * 86_400_000)
  d.setUTCHours(hour, 0, 0, 0)
  return d
}

export const readHistory = (dirs: Dirs): any => JSON.parse(fs.readFileSync(path.join(dirs.stateDir, "sync_history.json"), "utf8"))
export const readTokens = (dirs: Dirs): any => JSON.parse(fs.readFileSync(path.join(dirs.stateDir, "tokens.json"), "utf8"))
export const listDir = (dir: string): Array<string> => (fs.existsSync(dir) ? fs.readdirSync(dir).sort() : [])

export interface Running {
  readonly fake: FakeWahoo
  readonly dirs: Dirs
  /** `https://127.0.0.1:<port>` */
  readonly base: string
  /** The connector's certificate (PEM), to trust in requests. */
  readonly ca: string
  readonly env: Readonly<Record<string, string>>
}

/** The environment of a connector on a free port whose redirect URI points back at it. */
export const listeningEnv = (fake: FakeWahoo, dirs: Dirs, extra: Readonly<Record<string, string>> = {}) =>
  Effect.map(freePort, (port) =>
    envFor(fake, dirs, {
      PORT: String(port),
      PROVIDER_B_REDIRECT_URI: `https://127.0.0.1:${port}/callback`,
      ...extra
    }))

/** Runs `body` with the whole connector listening over HTTPS (built for this call, closed after). */
export const withConnector = <A, E, R>(
  running: Omit<Running, "base" | "ca">,
  body: (running: Running) => Effect.Effect<A, E, R>
) =>
  Effect.scoped(
    Effect.gen(function*() {
      const base = `https://127.0.0.1:${running.env["PORT"]}`
      const ca = fs.readFileSync(path.join(running.dirs.stateDir, "cert.pem"), "utf8")
      return yield* body({ ...running, base, ca })
    }).pipe(Effect.provide(Layer.fresh(connectorLayer(running.env))))
  )

/** What a browser does with the Connect button: /connect, the authorize page, back to /callback; answers the final redirect. */
export const connectThroughDashboard = (running: Running) =>
  Effect.gen(function*() {
    const start = yield* httpsRequest(`${running.base}/connect`, { ca: running.ca })
    const back = yield* authorizeAt(String(start.headers["location"]))
    const done = yield* httpsRequest(back.toString(), { ca: running.ca })
    return { start, back, done }
  })
