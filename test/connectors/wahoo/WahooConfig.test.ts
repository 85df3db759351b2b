import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Cron, Effect, Either, Redacted } from "effect"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { wahooConfig } from "../../../src/connectors/wahoo/WahooConfig.ts"
import { configProblems } from "../../../src/services/platform/Settings.ts"
import { programFile, REPO_DIR } from "../../support/programs.ts"

const read = (env: Record<string, string>) =>
  Effect.runSync(Effect.either(Effect.withConfigProvider(wahooConfig, ConfigProvider.fromMap(new Map(Object.entries(env))))))

const problemsOf = (env: Record<string, string>) => {
  const result = read(env)
  if (Either.isRight(result)) throw new Error("expected a configuration error")
  return configProblems(result.left)
}

describe("Wahoo connector configuration", () => {
  it("defaults follow the table: port 8085, /data/config and /data/downloads, 1_week, daily 02:00 UTC, api.wahooligan.com", () => {
    const config = Either.getOrThrow(read({ PROVIDER_B_CLIENT_ID: "id", PROVIDER_B_CLIENT_SECRET: "secret" }))
    expect(config.port).toBe(8085)
    expect(config.dataDir).toBe("/data")
    expect(config.stateDir).toBe("/data/config")
    expect(config.watchDir).toBe("/data/downloads")
    expect(config.timeWindow).toBe("1_week")
    expect(config.syncCron).toBe("0 2 * * *")
    expect(config.apiUrl).toBe("https://api.wahooligan.com")
    expect(config.redirectUri).toBe("https://localhost:8085/callback")
    expect(config.logLevel).toBe("INFO")
    expect(config.verifyFilesOnDisk).toBe(false)
    expect(Redacted.value(config.clientSecret)).toBe("secret")
  })

  it("STATE_DIR and WATCH_DIR follow DATA_DIR unless set", () => {
    const config = Either.getOrThrow(read({ PROVIDER_B_CLIENT_ID: "id", PROVIDER_B_CLIENT_SECRET: "s", DATA_DIR: "/srv/w", WATCH_DIR: "/watch" }))
    expect(config.stateDir).toBe("/srv/w/config")
    expect(config.watchDir).toBe("/watch")
  })

  it("a configured DATA_DIR, STATE_DIR or WATCH_DIR whose parent folder is missing is refused, naming the setting; one whose parent exists is taken", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "wahoo-config-"))
    try {
      const missing = (name: string) => path.join(dir, "no-such-volume", name)
      const problems = problemsOf({
        PROVIDER_B_CLIENT_ID: "id",
        PROVIDER_B_CLIENT_SECRET: "s",
        DATA_DIR: missing("data"),
        STATE_DIR: missing("state"),
        WATCH_DIR: missing("watch")
      })
      const parent = path.join(dir, "no-such-volume")
      expect(problems).toEqual(["DATA_DIR", "STATE_DIR", "WATCH_DIR"].map((name) =>
        `${name} must be a folder whose parent exists (${parent} does not): create it, or correct the path, got "${missing(name.split("_")[0]!.toLowerCase())}"`
      ))
      expect(fs.existsSync(parent)).toBe(false)
      const config = Either.getOrThrow(read({ PROVIDER_B_CLIENT_ID: "id", PROVIDER_B_CLIENT_SECRET: "s", DATA_DIR: path.join(dir, "data") }))
      expect(config.stateDir).toBe(path.join(dir, "data", "config"))
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  it("reports every problem at once and names a bad SYNC_CRON and SYNC_TIME_WINDOW", () => {
    const problems = problemsOf({ SYNC_CRON: "0 2 * *", SYNC_TIME_WINDOW: "2_weeks", PORT: "99999", VERIFY_FILES_ON_DISK: "maybe", LOG_LEVEL: "loud" })
    expect(problems).toEqual(expect.arrayContaining([
      "PROVIDER_B_CLIENT_ID is required",
      "PROVIDER_B_CLIENT_SECRET is required",
      expect.stringMatching(/^SYNC_CRON must be a 5-field cron expression, got "0 2 \* \*"$/),
      expect.stringMatching(/^SYNC_TIME_WINDOW must be one of 1_day, 1_week, 1_month, 1_year, all_time, got "2_weeks"$/),
      expect.stringMatching(/^PORT /),
      expect.stringMatching(/^VERIFY_FILES_ON_DISK /),
      expect.stringMatching(/^LOG_LEVEL /)
    ]))
    expect(problems).toHaveLength(7)
  })

  it("accepts WAHOO_CLIENT_ID, WAHOO_CLIENT_SECRET and WAHOO_REDIRECT_URI, and a secret from a _FILE", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "wahoo-config-"))
    try {
      fs.writeFileSync(path.join(dir, "secret"), "from-file\n")
      const config = Either.getOrThrow(read({
        WAHOO_CLIENT_ID: "upstream-id",
        PROVIDER_B_CLIENT_SECRET_FILE: path.join(dir, "secret"),
        WAHOO_REDIRECT_URI: "https://nas.local:9443/callback"
      }))
      expect(config.clientId).toBe("upstream-id")
      expect(Redacted.value(config.clientSecret)).toBe("from-file")
      expect(config.redirectUri).toBe("https://nas.local:9443/callback")
      expect(Either.getOrThrow(read({ PROVIDER_B_CLIENT_ID: "a", WAHOO_CLIENT_SECRET_FILE: path.join(dir, "secret") })).clientSecret)
        .toSatisfy((s: Redacted.Redacted) => Redacted.value(s) === "from-file")
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  it("refuses a PROVIDER_B_* name and its WAHOO_* alias set to different values", () => {
    expect(problemsOf({ PROVIDER_B_CLIENT_ID: "a", WAHOO_CLIENT_ID: "b", PROVIDER_B_CLIENT_SECRET: "s" })).toEqual([
      "PROVIDER_B_CLIENT_ID and WAHOO_CLIENT_ID are both set, to different values: keep only one"
    ])
  })

  it("reads SYNC_CRON in UTC whatever the time zone", () => {
    const config = Either.getOrThrow(read({ PROVIDER_B_CLIENT_ID: "a", PROVIDER_B_CLIENT_SECRET: "s", SYNC_CRON: "30 4 * * *" }))
    const next = Cron.next(config.cron, new Date("2026-03-01T05:00:00Z"))
    expect(next.toISOString()).toBe("2026-03-02T04:30:00.000Z")
  })

  it("npm run wahoo's entry exits 1 listing every problem", () => {
    const result = spawnSync(process.execPath, [programFile("wahoo")], {
      cwd: REPO_DIR,
      env: { PATH: process.env["PATH"] ?? "", SYNC_CRON: "every day", SYNC_TIME_WINDOW: "forever" },
      encoding: "utf8",
      timeout: 120_000
    })
    expect(result.status).toBe(1)
    expect(result.stderr).toContain("invalid configuration (4 problems)")
    expect(result.stderr).toContain("PROVIDER_B_CLIENT_ID is required")
    expect(result.stderr).toContain('SYNC_CRON must be a 5-field cron expression, got "every day"')
    expect(result.stderr).toContain('SYNC_TIME_WINDOW must be one of 1_day, 1_week, 1_month, 1_year, all_time, got "forever"')
  })
})
