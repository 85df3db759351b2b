import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { REPO_DIR } from "../../support/ChildDaemon.ts"
import { connectThroughDashboard, daysAgo, eventually, httpsRequest, listDir, listeningEnv, scopedDirs, scopedFake } from "./harness.ts"

/**
 * The connector as its own process (the entry `npm run wahoo` runs, here from source): it
 * serves the dashboard over HTTPS, connects against the fake and downloads, and a SIGTERM
 * ends it cleanly.
 */

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
          const c = spawn(process.execPath, ["--import", "tsx", "src/wahoo.ts"], {
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
      child.kill("SIGTERM")
      const code = yield* Effect.promise(() => exited)
      expect(code).toBe(0)
    }), 90_000)
})
