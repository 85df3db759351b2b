import { Duration, Effect, type Scope } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { freePort } from "./freePort.ts"
import { programFile, REPO_DIR } from "./programs.ts"

/**
 * The daemon as a real child process, built (`node dist/main.js`, as `npm start` runs it, cwd
 * the repository; the suite builds dist/ once, test/support/buildOnce.ts) or, on request, from
 * source (`node --import tsx src/main.ts`), for tests that must kill it for real (`SIGKILL`) and start it again
 * over the same folders. The child gets only the environment given here (plus PATH, HOME
 * and TMPDIR), never the test runner's. Every child is killed (`SIGKILL`) when the scope
 * that spawned it closes, and, as a last resort, when the test process exits.
 *
 * Use from `it.live` / `it.scopedLive` (the real clock): startup takes a few seconds.
 */

export { REPO_DIR }

export interface ChildDaemonOptions {
  /** STORAGE_DIR, WATCH_DIR, SERVICE_API_KEY, TZ, LOG_LEVEL, ...; PORT, HOST and APP_URL are set here */
  readonly env: Readonly<Record<string, string>>
  readonly apiKey: string
  /** how long the status endpoint may take to answer 200 (default 120 s: a busy machine) */
  readonly readyTimeout?: Duration.DurationInput
  /** the compiled daemon of `npm run build` (the default); false: the source through tsx */
  readonly built?: boolean
  /** with `built`: another compiled daemon than this repository's `dist/main.js` (the benchmark's baseline) */
  readonly main?: string
  /** the working directory (where `.env` is read); the repository by default */
  readonly cwd?: string
}

export interface ChildExit {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
}

export interface Answer {
  readonly status: number
  readonly json: any
}

export interface ChildDaemon {
  readonly pid: number
  readonly port: number
  readonly baseUrl: string
  /** true once the process has exited */
  readonly hasExited: () => boolean
  /** the last 64 KB of stdout and stderr, interleaved */
  readonly output: () => string
  /** one authorised GET; dies on a network error */
  readonly get: (pathAndQuery: string) => Effect.Effect<Answer>
  /** sends `signal` (SIGKILL by default) and waits for the exit */
  readonly kill: (signal?: NodeJS.Signals) => Effect.Effect<ChildExit>
}

const live = new Set<ChildProcess>()
let exitHookInstalled = false
const installExitHook = () => {
  if (exitHookInstalled) return
  exitHookInstalled = true
  process.once("exit", () => {
    for (const child of live) child.kill("SIGKILL")
  })
}

const OUTPUT_LIMIT = 64 * 1024

const spawnOnce = (options: ChildDaemonOptions, port: number): Effect.Effect<ChildDaemon, never, Scope.Scope> =>
  Effect.gen(function*() {
    const baseUrl = `http://127.0.0.1:${port}`
    const env: Record<string, string> = {
      ...Object.fromEntries(["PATH", "HOME", "TMPDIR"].flatMap((k) => (process.env[k] !== undefined ? [[k, process.env[k]!]] : []))),
      // no tile is ever fetched from outside the machine: a closed port on loopback (no map)
      MAP_TILE_URL: "http://127.0.0.1:9/{z}/{x}/{y}.png",
      ...options.env,
      PORT: String(port),
      HOST: "127.0.0.1",
      APP_URL: baseUrl
    }
    let output = ""
    let exit: ChildExit | null = null
    const child = yield* Effect.acquireRelease(
      Effect.sync(() => {
        installExitHook()
        const args = options.built !== false
          ? [options.main ?? programFile("main")]
          : ["--import", pathToFileURL(path.join(REPO_DIR, "node_modules", "tsx", "dist", "loader.mjs")).href, path.join(REPO_DIR, "src", "main.ts")]
        const child = spawn(process.execPath, args, { cwd: options.cwd ?? REPO_DIR, env, stdio: ["ignore", "pipe", "pipe"] })
        live.add(child)
        const append = (chunk: Buffer) => {
          output = (output + chunk.toString("utf8")).slice(-OUTPUT_LIMIT)
        }
        child.stdout!.on("data", append)
        child.stderr!.on("data", append)
        return child
      }),
      (child) => Effect.promise(() => killAndWait(child, "SIGKILL"))
    )
    const exited = new Promise<ChildExit>((resolve) => {
      child.once("exit", (code, signal) => {
        live.delete(child)
        exit = { code, signal }
        resolve(exit)
      })
      child.once("error", (e) => {
        live.delete(child)
        output += `\nspawn error: ${String(e)}`
        exit = { code: null, signal: null }
        resolve(exit)
      })
    })
    const killAndWait = (c: ChildProcess, signal: NodeJS.Signals) => {
      if (exit === null) c.kill(signal)
      return exited
    }

    const get = (pathAndQuery: string) =>
      Effect.tryPromise(async (): Promise<Answer> => {
        const ask = () =>
          fetch(baseUrl + pathAndQuery, { headers: { authorization: `Bearer ${options.apiKey}` }, signal: AbortSignal.timeout(10_000) })
        // a kept-alive connection the daemon closed as idle just as it was taken again (a loaded
        // machine makes the moments meet) ends as "other side closed": a GET is asked once more
        const response = await ask().catch((e: unknown) => {
          if ((e as { cause?: { code?: string } }).cause?.code === "UND_ERR_SOCKET" && exit === null) return ask()
          throw e
        })
        const text = await response.text()
        let json: unknown
        try {
          json = JSON.parse(text)
        } catch {
          json = undefined
        }
        return { status: response.status, json }
      }).pipe(Effect.orDie)

    return {
      pid: child.pid ?? -1,
      port,
      baseUrl,
      hasExited: () => exit !== null,
      output: () => output,
      get,
      kill: (signal: NodeJS.Signals = "SIGKILL") => Effect.promise(() => killAndWait(child, signal))
    } satisfies ChildDaemon
  })

/** Polls `GET /api/v1/status` until it answers 200; fails with the child's output when it exits first or times out. */
const waitReady = (daemon: ChildDaemon, timeout: Duration.DurationInput) =>
  Effect.gen(function*() {
    const deadline = Date.now() + Duration.toMillis(timeout)
    while (true) {
      if (daemon.hasExited()) return yield* Effect.fail(`the daemon exited before it was ready:\n${daemon.output()}`)
      // refused connections while the daemon boots count as "not yet"
      const status = yield* daemon.get("/api/v1/status").pipe(
        Effect.map((answer) => answer.status),
        Effect.catchAllDefect(() => Effect.succeed(0))
      )
      if (status === 200) return
      if (Date.now() > deadline) {
        return yield* Effect.fail(`GET /api/v1/status did not answer 200 within ${Duration.format(timeout)} (last: ${status}):\n${daemon.output()}`)
      }
      yield* Effect.sleep("50 millis")
    }
  })

/**
 * Spawns the daemon on a free loopback port and waits until `GET /api/v1/status` with the
 * key answers 200. A child that loses the port to another process in between is replaced.
 */
export const startChildDaemon = (options: ChildDaemonOptions): Effect.Effect<ChildDaemon, never, Scope.Scope> =>
  Effect.gen(function*() {
    const timeout = options.readyTimeout ?? "120 seconds"
    for (let attempt = 1; ; attempt++) {
      const daemon = yield* spawnOnce(options, yield* freePort)
      const ready = yield* Effect.either(waitReady(daemon, timeout))
      if (ready._tag === "Right") return daemon
      yield* daemon.kill()
      if (attempt < 3 && daemon.output().includes("EADDRINUSE")) continue
      return yield* Effect.dieMessage(ready.left)
    }
  })
