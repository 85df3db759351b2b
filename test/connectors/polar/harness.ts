import { ConfigProvider, Context, Duration, Effect, Layer, Logger, LogLevel, type Scope } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { PolarLedger } from "../../../src/connectors/polar/Ledger.ts"
import { PolarAuthorization } from "../../../src/connectors/polar/PolarAuthorization.ts"
import { PolarProcessLive, PolarProcessServicesLive, PolarServicesLive } from "../../../src/connectors/polar/PolarDaemon.ts"
import { PolarPoller } from "../../../src/connectors/polar/PolarPoller.ts"
import { PolarSync } from "../../../src/connectors/polar/PolarSync.ts"
import { WebhookKeeper } from "../../../src/connectors/polar/WebhookKeeper.ts"
import { type FakePolar, startFakePolar, type FakePolarOptions } from "../../fakes/FakePolar.ts"
import { programFile, REPO_DIR } from "../../support/programs.ts"
import { freePort } from "../../support/freePort.ts"

/**
 * Helpers of the Polar connector tests: a fake Polar per test, temporary folders, the
 * connector's environment pointing at both, the connector's services or its whole process
 * (HTTP server on a free loopback port, poller, webhook keeper) built in-process from that
 * environment, and the entry as a child process. Use from `it.live` / `it.scopedLive`.
 */

export interface Dirs {
  readonly root: string
  readonly watchDir: string
  readonly stateDir: string
  readonly tokensDir: string
}

export const scopedDirs: Effect.Effect<Dirs, never, Scope.Scope> = Effect.acquireRelease(
  Effect.sync(() => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "waymark-polar-"))
    return { root, watchDir: path.join(root, "watch"), stateDir: path.join(root, "state"), tokensDir: path.join(root, "tokens") }
  }),
  (dirs) => Effect.sync(() => fs.rmSync(dirs.root, { recursive: true, force: true }))
)

export const scopedFake = (options: FakePolarOptions = {}): Effect.Effect<FakePolar, never, Scope.Scope> =>
  Effect.acquireRelease(Effect.promise(() => startFakePolar(options)), (fake) => Effect.promise(() => fake.close()))

/** The connector's environment for `fake` and `dirs`; quick cycles by default. */
export const envFor = (fake: FakePolar, dirs: Dirs, extra: Readonly<Record<string, string>> = {}): Record<string, string> => ({
  PROVIDER_A_CLIENT_ID: fake.clientId,
  PROVIDER_A_CLIENT_SECRET: fake.clientSecret,
  PROVIDER_A_API_URL: fake.apiUrl,
  PROVIDER_A_AUTH_URL: fake.authUrl,
  PROVIDER_A_TOKEN_URL: fake.tokenUrl,
  WATCH_DIR: dirs.watchDir,
  STATE_DIR: dirs.stateDir,
  POLAR_TOKENS: dirs.tokensDir,
  DOWNLOAD_DELAY_SECONDS: "0",
  HTTP_ADDR: "off",
  TZ: "UTC",
  ...extra
})

const quiet = process.env["POLAR_TEST_LOGS"] === undefined
const testLogging = quiet ? Logger.minimumLogLevel(LogLevel.None) : Logger.minimumLogLevel(LogLevel.Debug)
const configFrom = (env: Readonly<Record<string, string>>) =>
  Layer.mergeAll(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))), testLogging)

/** The services (no server, no loop) over `env`, for `Effect.provide`. */
export const servicesFor = (env: Readonly<Record<string, string>>) => PolarServicesLive.pipe(Layer.provide(configFrom(env)))

export interface RunningConnector {
  readonly baseUrl: string
  readonly port: number
  readonly env: Readonly<Record<string, string>>
  readonly context: Context.Context<Layer.Layer.Success<typeof PolarProcessServicesLive>>
  readonly get: (pathAndQuery: string) => Effect.Effect<{ status: number; text: string; json: any; headers: Headers }>
  readonly status: Effect.Effect<any>
}

/** The whole connector process in-process (HTTP on a free port unless `HTTP_ADDR` is given), for the scope. */
export const startConnector = (env: Readonly<Record<string, string>>): Effect.Effect<RunningConnector, never, Scope.Scope> =>
  Effect.gen(function*() {
    const port = yield* freePort
    const full = { ...env, HTTP_ADDR: env["HTTP_ADDR"] === undefined || env["HTTP_ADDR"] === "off" ? `127.0.0.1:${port}` : env["HTTP_ADDR"] }
    const baseUrl = `http://${full.HTTP_ADDR}`
    const services = yield* Layer.build(PolarProcessServicesLive.pipe(Layer.provide(configFrom(full)))).pipe(Effect.orDie)
    yield* Layer.build(PolarProcessLive.pipe(Layer.provide(Layer.succeedContext(services)), Layer.provide(configFrom(full)))).pipe(
      Effect.orDie
    )
    const get = (pathAndQuery: string) =>
      Effect.promise(async () => {
        const response = await fetch(baseUrl + pathAndQuery, { redirect: "manual" })
        const text = await response.text()
        let json: unknown
        try {
          json = JSON.parse(text)
        } catch {
          json = undefined
        }
        return { status: response.status, text, json: json as any, headers: response.headers }
      })
    return { baseUrl, port, env: full, context: services, get, status: Effect.map(get("/status"), (r) => r.json) }
  })

export const serviceOf = <I, S>(connector: RunningConnector, tag: Context.Tag<I, S>): S =>
  Context.unsafeGet(connector.context as Context.Context<I>, tag)

export const pollerOf = (c: RunningConnector) => serviceOf(c, PolarPoller)
export const syncOf = (c: RunningConnector) => serviceOf(c, PolarSync)
export const ledgerOf = (c: RunningConnector) => serviceOf(c, PolarLedger)
export const authorizationOf = (c: RunningConnector) => serviceOf(c, PolarAuthorization)
export const keeperOf = (c: RunningConnector) => serviceOf(c, WebhookKeeper)

/** Polls `probe` until it answers something other than undefined; dies after `timeout`. */
export const waitFor = <A, E, R>(
  what: string,
  probe: Effect.Effect<A | undefined, E, R>,
  timeout: Duration.DurationInput = "15 seconds"
): Effect.Effect<A, E, R> =>
  Effect.gen(function*() {
    const deadline = Date.now() + Duration.toMillis(timeout)
    while (true) {
      const value = yield* probe
      if (value !== undefined) return value
      if (Date.now() > deadline) return yield* Effect.dieMessage(`timed out waiting for ${what}`)
      yield* Effect.sleep("25 millis")
    }
  })

export const readLedger = (dirs: Dirs): any => JSON.parse(fs.readFileSync(path.join(dirs.stateDir, "ledger.json"), "utf8"))
export const listWatch = (dirs: Dirs): Array<string> => (fs.existsSync(dirs.watchDir) ? fs.readdirSync(dirs.watchDir).sort() : [])

// ---------------------------------------------------------------------------------------
// The entry as a child process

export interface Child {
  readonly process: ChildProcess
  readonly output: () => string
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

/** The built entry (`node dist/polar.js <args>`) with only `env` (plus PATH and HOME); killed when the scope closes. */
export const spawnEntry = (args: ReadonlyArray<string>, env: Readonly<Record<string, string>>): Effect.Effect<Child, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const child = spawn(process.execPath, [programFile("polar"), ...args], {
        cwd: REPO_DIR,
        env: { PATH: process.env["PATH"] ?? "", HOME: process.env["HOME"] ?? "", ...env },
        stdio: ["pipe", "pipe", "pipe"]
      })
      let output = ""
      child.stdout!.on("data", (c: Buffer) => (output += c.toString("utf8")))
      child.stderr!.on("data", (c: Buffer) => (output += c.toString("utf8")))
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
        child.once("exit", (code, signal) => resolve({ code, signal }))
      )
      return { process: child, output: () => output, exited }
    }),
    (child) =>
      Effect.promise(async () => {
        if (child.process.exitCode === null && child.process.signalCode === null) child.process.kill("SIGKILL")
        await child.exited
      })
  )

/** Runs the entry to its end (at most `timeout`); answers exit code and output. */
export const runEntry = (args: ReadonlyArray<string>, env: Readonly<Record<string, string>>, timeout: Duration.DurationInput = "60 seconds") =>
  Effect.scoped(
    Effect.gen(function*() {
      const child = yield* spawnEntry(args, env)
      child.process.stdin!.end()
      const exit = yield* Effect.promise(() => child.exited).pipe(
        Effect.timeoutFail({ duration: timeout, onTimeout: () => new Error(`the entry did not end: ${child.output()}`) }),
        Effect.orDie
      )
      return { ...exit, output: child.output() }
    })
  )

export { startFakePolar }
