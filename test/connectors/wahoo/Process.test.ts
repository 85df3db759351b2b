import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import { programFile, REPO_DIR } from "../../support/programs.ts"
import { connectThroughDashboard, daysAgo, eventually, httpsRequest, listDir, listeningEnv, scopedDirs, scopedFake } from "./harness.ts"

/**
 * The connector as its own process (the entry `npm run wahoo` runs, built): it
 * serves the dashboard over HTTPS, connects against the fake and downloads, and a SIGTERM
 * ends it cleanly.
 */

/** The entry run to its end with only `env` (plus PATH and HOME). */
const runWahoo = (env: Record<string, string>, args: ReadonlyArray<string> = []) =>
  spawnSync(process.execPath, [programFile("wahoo"), ...args], {
    cwd: REPO_DIR,
    env: { PATH: process.env["PATH"] ?? "", HOME: process.env["HOME"] ?? "", ...env },
    encoding: "utf8",
    timeout: 120_000
  })

describe("Wahoo connector process", () => {
  it.scopedLive("starts from its entry, serves HTTPS, syncs after connecting, and stops on SIGTERM", () =>
    Effect.gen(function*() {
      const fake = yield* scopedFake()
      const dirs = yield* scopedDirs
      const workout = fake.addWorkout({ starts: daysAgo(1) })
      const env = yield* listeningEnv(fake, dirs, { LOG_LEVEL: "INFO" })
      let output = ""
      const child = yield* Effect.acquireRelease(
        Effect.sync(() => {
          const c = spawn(process.execPath, [programFile("wahoo")], {
            cwd: REPO_DIR,
            env: { PATH: process.env["PATH"] ?? "", HOME: process.env["HOME"] ?? "", ...env },
            stdio: ["ignore", "pipe", "pipe"]
          })
          c.stdout!.on("data", (d: Buffer) => (output += d.toString()))
          c.stderr!.on("data", (d: Buffer) => (output += d.toString()))
          return c
        }),
        (c) => Effect.sync(() => c.exitCode === null && c.kill("SIGKILL"))
      )
      const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
      const certFile = path.join(dirs.stateDir, "cert.pem")
      const base = `https://127.0.0.1:${env["PORT"]}`
      yield* eventually("the dashboard", Effect.suspend(() => {
        if (child.exitCode !== null) return Effect.dieMessage(`the connector exited:\n${output}`)
        if (!fs.existsSync(certFile)) return Effect.succeed(undefined)
        return httpsRequest(`${base}/`, { ca: fs.readFileSync(certFile, "utf8") }).pipe(
          Effect.map((a) => (a.status === 200 ? a : undefined)),
          Effect.orElseSucceed(() => undefined)
        )
      }), 45_000)
      const ca = fs.readFileSync(certFile, "utf8")
      yield* connectThroughDashboard({ fake, dirs, env, base, ca })
      const published = () => listDir(dirs.watchDir).filter((name) => !name.startsWith("."))
      yield* eventually("the download", Effect.sync(() => (published().length === 1 ? true : undefined)))
      expect(published()).toEqual([`${workout.starts.slice(0, 10)}_workout_${workout.id}.fit`])
      expect(output).toContain("dashboard on https://127.0.0.1:")
      const health = yield* httpsRequest(`${base}/healthz`, { ca })
      expect(health.status).toBe(200)
      expect(health.json).toMatchObject({ healthy: true, reason: null, checks: { authorization: "ok" } })
      child.kill("SIGTERM")
      const code = yield* Effect.promise(() => exited)
      expect(code).toBe(0)
      expect(output).toMatch(/waymark Wahoo connector v\S+ stopped cleanly on SIGTERM/)
    }), 90_000)

  it("`help` and `--help` print the usage only, exit code 0, without any setting; an unknown argument is a usage error, exit code 2", () => {
    for (const word of ["help", "--help"]) {
      const help = runWahoo({}, [word])
      expect(help.status, help.stderr).toBe(0)
      expect(help.stdout).toContain("$ wahoo")
      expect(help.stdout).toContain("Wahoo connector")
      expect(help.stderr).toBe("")
      expect(help.stdout).not.toMatch(/started|invalid configuration|ERROR/)
    }
    const wrong = runWahoo({}, ["sync"])
    expect(wrong.status, wrong.stderr).toBe(2)
    expect(wrong.stderr).toContain("Usage: wahoo\nMore: node dist/wahoo.js --help")
    expect(wrong.stderr).not.toContain("invalid configuration")
  }, 90_000)

  it.scopedLive("a busy port is named with the PORT setting, without a stack; a configured WATCH_DIR under a missing folder is refused; exit code 1", () =>
    Effect.gen(function*() {
      const fake = yield* scopedFake()
      const dirs = yield* scopedDirs
      const env = yield* listeningEnv(fake, dirs, {})
      const holder = net.createServer()
      yield* Effect.acquireRelease(
        Effect.async<void>((resume) => void holder.listen(Number(env["PORT"]), "127.0.0.1", () => resume(Effect.void))),
        () => Effect.sync(() => void holder.close())
      )
      const busy = runWahoo(env)
      expect(busy.status, busy.stderr).toBe(1)
      expect(busy.stderr).toContain(`waymark-wahoo: Port ${env["PORT"]} is already in use`)
      expect(busy.stderr).toContain("set PORT to a free port")
      expect(busy.stdout + busy.stderr).not.toMatch(/ServeError|An error has occurred|\n\s+at /)

      const missing = path.join(path.dirname(dirs.watchDir), "no-such-volume", "watch")
      const refused = runWahoo({ ...env, WATCH_DIR: missing })
      expect(refused.status).toBe(1)
      expect(refused.stderr).toContain(`WATCH_DIR must be a folder whose parent exists (${path.dirname(missing)} does not)`)
    }), 90_000)
})
