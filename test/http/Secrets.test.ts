import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { generateApiKey } from "../../src/services/platform/ApiKey.ts"
import { startFakeStrava } from "../fakes/FakeStrava.ts"
import { REPO_DIR, startChildDaemon } from "../support/ChildDaemon.ts"
import { programFile } from "../support/programs.ts"

/**
 * Secrets never leave the process: the real daemon in Strava mode, configured with every kind
 * of secret, serves requests that carry them where clients put them (query strings, failing
 * auth, the webhook validation) and runs a Strava import; afterwards no log file and no line of
 * stdout or stderr holds any of them.
 */

const hex = () => randomBytes(16).toString("hex")

const listFiles = (dir: string): Array<string> =>
  fs.existsSync(dir)
    ? fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? listFiles(path.join(dir, e.name)) : [path.join(dir, e.name)]
    )
    : []

/** Runs the command line to the end; resolves with everything it printed. */
const runCli = (args: ReadonlyArray<string>, env: Record<string, string>) =>
  Effect.promise(() =>
    new Promise<{ code: number | null; output: string }>((resolve) => {
      const child = spawn(process.execPath, [programFile("cli"), ...args], {
        cwd: REPO_DIR,
        env: { PATH: process.env["PATH"] ?? "", HOME: process.env["HOME"] ?? "", ...env },
        stdio: ["ignore", "pipe", "pipe"]
      })
      let output = ""
      child.stdout.on("data", (c: Buffer) => (output += c.toString("utf8")))
      child.stderr.on("data", (c: Buffer) => (output += c.toString("utf8")))
      const timer = setTimeout(() => child.kill("SIGKILL"), 120_000)
      child.once("exit", (code) => {
        clearTimeout(timer)
        resolve({ code, output })
      })
    })
  )

describe("secrets in logs", () => {
  it.live("no configured secret appears in any log file, stdout or stderr after a run in Strava mode", () =>
    Effect.scoped(Effect.gen(function*() {
      const clientSecret = `client-secret-${hex()}`
      const refreshToken = `refresh-token-${hex()}`
      const verifyToken = `verify-token-${hex()}`
      const apiKey = generateApiKey()
      const fake = yield* Effect.acquireRelease(
        Effect.promise(() => startFakeStrava({ clientSecret, refreshToken })),
        (f) => Effect.promise(() => f.close())
      )
      fake.addActivity({}, { photos: 1 })
      const root = yield* Effect.acquireRelease(
        Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "waymark-secrets-"))),
        (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
      )
      const storageDir = path.join(root, "storage")
      fs.mkdirSync(storageDir)
      fs.mkdirSync(path.join(root, "watch"))
      const env = {
        STORAGE_DIR: storageDir,
        WATCH_DIR: path.join(root, "watch"),
        SERVICE_API_KEY: apiKey,
        TZ: "UTC",
        LOG_LEVEL: "debug",
        IMPORT_MODE: "externalApi",
        STRAVA_BASE_URL: fake.url,
        STRAVA_CLIENT_ID: fake.state.clientId,
        STRAVA_CLIENT_SECRET: clientSecret,
        STRAVA_REFRESH_TOKEN: refreshToken,
        WEBHOOKS_ENABLED: "true",
        WEBHOOKS_VERIFY_TOKEN: verifyToken,
        WEBHOOKS_CHECK_INTERVAL_MINUTES: "60"
      }
      const daemon = yield* startChildDaemon({ env, apiKey })
      const call = (pathAndQuery: string, init: RequestInit = {}) =>
        Effect.promise(async () => {
          const res = await fetch(daemon.baseUrl + pathAndQuery, init)
          await res.arrayBuffer()
          return res.status
        })
      const bearer = (key: string) => ({ headers: { authorization: `Bearer ${key}` } })
      const q = encodeURIComponent

      // the API: good and failing auth, with secrets where clients put them by mistake
      expect(yield* call("/api/v1/status", bearer(apiKey))).toBe(200)
      expect(yield* call("/api/v1/status", bearer(`wmk_${"0".repeat(64)}`))).toBe(401)
      expect(yield* call(`/api/v1/activities?api_key=${apiKey}`)).toBe(401)
      expect(yield* call(`/api/v1/activities?key=${apiKey}&page=1`, bearer("not-a-key"))).toBe(401)
      expect(yield* call(`/api/v1/status?access_token=${q(refreshToken)}&client_secret=${q(clientSecret)}`, bearer(apiKey))).toBe(200)
      expect(yield* call(`/api/v1/activities?note=${q(clientSecret)}&other=${q(verifyToken)}`, bearer(apiKey))).toBe(200)
      expect(yield* call(`/api/v1/activities/${apiKey}`, bearer(apiKey))).toBe(404)
      expect(yield* call(`/api/v1/nowhere?password=${q(clientSecret)}`, bearer(apiKey))).toBe(404)
      expect(yield* call(`/files/activities/${q(refreshToken)}.jpg`)).toBe(404)

      // the webhook: validation with the right and a wrong token, and an event
      const validation = (token: string) => `/external/webhook?hub.mode=subscribe&hub.challenge=c-${hex()}&hub.verify_token=${q(token)}`
      expect(yield* call(validation(verifyToken))).toBe(200)
      expect(yield* call(validation(`${verifyToken}-wrong`))).toBe(403)
      expect(yield* call(`/external/webhook?hub.mode=subscribe&hub.challenge=x&token=${q(verifyToken)}`)).toBe(403)
      expect(yield* call("/external/webhook", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ object_type: "activity", aspect_type: "create", object_id: 1, updates: { secret: clientSecret } })
      })).toBe(200)

      // a Strava import by the command line (token refresh with the client secret), and one
      // with a refresh token the platform refuses
      const imported = yield* runCli(["app:external:import"], env)
      expect(imported.code, imported.output).toBe(0)
      expect(fake.state.tokenGrants).toBeGreaterThan(0)
      const refused = yield* runCli(["app:external:import"], { ...env, STRAVA_REFRESH_TOKEN: `${refreshToken}-revoked` })

      const logsBefore = listFiles(path.join(storageDir, "files", "logs")).length
      yield* daemon.kill("SIGTERM")

      const logFiles = listFiles(path.join(storageDir, "files", "logs"))
      expect(logFiles.length).toBeGreaterThanOrEqual(logsBefore)
      expect(logFiles.map((f) => path.basename(f)).some((n) => n.startsWith("webhooks-"))).toBe(true)
      expect(logFiles.map((f) => path.basename(f)).some((n) => n.startsWith("strava-api-"))).toBe(true)
      const texts: Array<[string, string]> = [
        ...logFiles.map((f): [string, string] => [f, fs.readFileSync(f, "utf8")]),
        ["daemon stdout and stderr", daemon.output()],
        ["import stdout and stderr", imported.output],
        ["refused import stdout and stderr", refused.output]
      ]

      const secrets = {
        SERVICE_API_KEY: apiKey,
        STRAVA_CLIENT_SECRET: clientSecret,
        STRAVA_REFRESH_TOKEN: refreshToken,
        WEBHOOKS_VERIFY_TOKEN: verifyToken,
        // granted by the platform during the run
        "a granted refresh token": fake.state.refreshToken,
        ...Object.fromEntries([...fake.state.accessTokens.keys()].map((t, i) => [`access token ${i + 1}`, t]))
      }
      const leaks = Object.entries(secrets).flatMap(([name, secret]) =>
        texts.filter(([, text]) => text.includes(secret) || text.includes(encodeURIComponent(secret))).map(([where]) => `${name} in ${where}`)
      )
      expect(leaks).toEqual([])
      // all of the daemon's output was kept (the capture keeps the last 64 KB)
      expect(daemon.output()).toContain("waymark v")
      // the request log ran and named the requests
      expect(daemon.output()).toContain("hub.verify_token=[redacted]")
      expect(daemon.output()).toContain("/api/v1/activities?api_key=[redacted]")
    })), 120_000)
})
