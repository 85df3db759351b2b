import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Duration, Effect, Either, Option, Redacted } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { appConfig, type AppConfigShape, configProblems, defaultParseWorkers } from "../../../src/services/platform/AppConfig.ts"
import { tempDirs } from "../../support/tempDirs.ts"

const read = (env: Record<string, string>): Either.Either<AppConfigShape, Array<string>> =>
  Effect.runSync(
    appConfig.pipe(
      Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))),
      Effect.mapError(configProblems),
      Effect.either
    )
  )

const tempDir = tempDirs("waymark-appconfig-")

const secretFile = (content: string) => {
  const file = path.join(tempDir(), "secret")
  fs.writeFileSync(file, content)
  return file
}

const SECRETS = [
  ["SERVICE_API_KEY", "apiKey"],
  ["STRAVA_CLIENT_SECRET", "stravaClientSecret"],
  ["STRAVA_REFRESH_TOKEN", "stravaRefreshToken"],
  ["WEBHOOKS_VERIFY_TOKEN", "webhooksVerifyToken"]
] as const

describe("AppConfig", () => {
  it("defaults with no environment", () => {
    const config = Either.getOrThrow(read({}))
    expect(config.port).toBe(8080)
    expect(config.host).toBe("0.0.0.0")
    expect(config.appUrl).toBe("http://localhost:8080")
    expect(config.storageDir).toBe(path.resolve("./storage"))
    expect(config.importMode).toBe("files")
    expect(config.uploadMaxFileSize).toBe(20 * 1024 * 1024)
    expect(config.postMaxSize).toBe(48 * 1024 * 1024)
    expect(config.externalImportCron).toBe("30 2 * * *")
    expect(config.webhooksCheckIntervalMinutes).toBe(5)
    expect(config.demoMode).toBe(false)
    expect(config.apiKey).toEqual(Option.none())
  })

  it("IMPORT_PARSE_WORKERS defaults to one per core (at most one per GiB of memory) and is refused outside 1 to 16", () => {
    expect(Either.getOrThrow(read({})).importParseWorkers).toBe(defaultParseWorkers())
    expect(defaultParseWorkers()).toBeGreaterThanOrEqual(1)
    expect(defaultParseWorkers()).toBeLessThanOrEqual(os.availableParallelism())
    expect(Either.getOrThrow(read({ IMPORT_PARSE_WORKERS: "3" })).importParseWorkers).toBe(3)
    expect(read({ IMPORT_PARSE_WORKERS: "0" })).toEqual(Either.left(['IMPORT_PARSE_WORKERS must be a whole number from 1 to 16, got "0"']))
    expect(read({ IMPORT_PARSE_WORKERS: "all" })).toEqual(Either.left(['IMPORT_PARSE_WORKERS must be a whole number from 1 to 16, got "all"']))
  })

  it("the export metadata limits: sizes and a count, defaults far above a real export's, each refused when not one", () => {
    expect(Either.getOrThrow(read({})).exportMetadataLimits).toEqual({ fileBytes: 64 * 1024 ** 2, totalBytes: 256 * 1024 ** 2, recordBytes: 1024 ** 2, records: 200_000 })
    expect(Either.getOrThrow(read({
      EXPORT_METADATA_MAX_FILESIZE: "64K", EXPORT_METADATA_MAX_SIZE: "1M", EXPORT_METADATA_MAX_RECORD_SIZE: "4096", EXPORT_METADATA_MAX_RECORDS: "10"
    })).exportMetadataLimits).toEqual({ fileBytes: 64 * 1024, totalBytes: 1024 ** 2, recordBytes: 4096, records: 10 })
    expect(read({ EXPORT_METADATA_MAX_FILESIZE: "big", EXPORT_METADATA_MAX_RECORDS: "0" })).toEqual(Either.left([
      'EXPORT_METADATA_MAX_FILESIZE must be a size such as 20M, 512K or 1048576, got "big"',
      'EXPORT_METADATA_MAX_RECORDS must be a whole number of at least 1, got "0"'
    ]))
  })

  it("keeps today's messages", () => {
    expect(read({
      PORT: "eighty",
      IMPORT_MODE: "stravaApi",
      UPLOAD_MAX_FILESIZE: "lots",
      WEBHOOKS_CHECK_INTERVAL_MINUTES: "61",
      APP_URL: "ftp://example.com",
      TZ: "Mars/Olympus",
      DEMO_MODE: "perhaps",
      EXTERNAL_IMPORT_CRON: "daily"
    })).toEqual(Either.left([
      'PORT must be a whole number from 0 to 65535, got "eighty"',
      'APP_URL must be an http(s) URL, got "ftp://example.com"',
      'IMPORT_MODE must be one of files, externalApi, got "stravaApi"',
      'TZ must be an IANA time zone such as Europe/Brussels, got "Mars/Olympus"',
      'DEMO_MODE must be true or false, got "perhaps"',
      'UPLOAD_MAX_FILESIZE must be a size such as 20M, 512K or 1048576, got "lots"',
      'EXTERNAL_IMPORT_CRON must be a 5-field cron expression, got "daily"',
      'WEBHOOKS_CHECK_INTERVAL_MINUTES must be a whole number from 1 to 60, got "61"'
    ]))
  })

  it("the watch folder's settings: settle time and polling, read as durations within their bounds", () => {
    const defaults = Either.getOrThrow(read({}))
    expect(Duration.toMillis(defaults.watchSettle)).toBe(3000)
    expect(defaults.watchPolling).toBe(false)
    expect(Duration.toMillis(defaults.watchPollingInterval)).toBe(5000)
    const set = Either.getOrThrow(read({ WATCH_SETTLE: "10s", WATCH_POLLING: "true", WATCH_POLLING_INTERVAL: "500ms" }))
    expect([Duration.toMillis(set.watchSettle), set.watchPolling, Duration.toMillis(set.watchPollingInterval)]).toEqual([10_000, true, 500])
    const problems = read({ WATCH_SETTLE: "soon", WATCH_POLLING: "sometimes", WATCH_POLLING_INTERVAL: "1ms" })
    expect(Either.isLeft(problems) ? problems.left.map((p) => p.split(" ")[0]) : []).toEqual(["WATCH_SETTLE", "WATCH_POLLING", "WATCH_POLLING_INTERVAL"])
  })

  for (const [name, field] of SECRETS) {
    it(`${name}_FILE reads ${name} from a file, trailing newline stripped`, () => {
      const config = Either.getOrThrow(read({ [`${name}_FILE`]: secretFile("the-secret\n") }))
      expect(Option.map(config[field], Redacted.value)).toEqual(Option.some("the-secret"))
    })

    it(`${name} and ${name}_FILE both set is refused`, () => {
      expect(read({ [name]: "a", [`${name}_FILE`]: secretFile("a") })).toEqual(
        Either.left([`${name} and ${name}_FILE are both set: keep only one`])
      )
    })

    it(`an empty or unreadable ${name}_FILE is refused, naming the file`, () => {
      const empty = secretFile("")
      expect(read({ [`${name}_FILE`]: empty })).toEqual(Either.left([`${name}_FILE: "${empty}" is empty`]))
      const missing = path.join(path.dirname(empty), "absent")
      expect(read({ [`${name}_FILE`]: missing })).toEqual(Either.left([`${name}_FILE: cannot read "${missing}" (ENOENT)`]))
    })
  }
})
