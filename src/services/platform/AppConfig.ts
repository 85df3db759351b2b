import { Config, ConfigError, Effect, Either, Option, Redacted } from "effect"
import * as path from "node:path"

/**
 * The service's configuration, read from the environment (DESIGN.md, "Environment of the
 * service"). Every variable is validated at start and every problem is reported at once.
 */
export type ImportMode = "files" | "externalApi"
export type UnitSystem = "metric" | "imperial"
export type LogFormat = "text" | "json"
export type LogLevelName = "trace" | "debug" | "info" | "warning" | "error" | "fatal"

const SIZE_UNITS: Record<string, number> = { "": 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3 }

/** php.ini-style sizes: `20M`, `512K`, `1G` or a plain number of bytes. */
export const parseSize = (raw: string): Option.Option<number> => {
  const match = /^\s*(\d+)\s*([KMG]?)B?\s*$/i.exec(raw)
  if (!match) return Option.none()
  return Option.some(Number(match[1]) * SIZE_UNITS[match[2]!.toUpperCase()]!)
}

const size = (name: string, fallback: string) =>
  Config.string(name).pipe(
    Config.withDefault(fallback),
    Config.mapOrFail((raw) =>
      Option.match(parseSize(raw), {
        onNone: () => Either.left(ConfigError.InvalidData([], `${name} must be a size such as 20M, 512K or 1048576, got "${raw}"`)),
        onSome: (bytes) => bytes > 0 ? Either.right(bytes) : Either.left(ConfigError.InvalidData([], `${name} must be above 0`))
      })
    )
  )

const oneOf = <A extends string>(name: string, values: ReadonlyArray<A>, fallback: A) =>
  Config.string(name).pipe(
    Config.withDefault(fallback),
    Config.mapOrFail((raw) => {
      const match = values.find((v) => v.toLowerCase() === raw.trim().toLowerCase())
      return match !== undefined
        ? Either.right(match)
        : Either.left(ConfigError.InvalidData([], `${name} must be one of ${values.join(", ")}, got "${raw}"`))
    })
  )

const bool = (name: string) =>
  Config.string(name).pipe(
    Config.withDefault("false"),
    Config.mapOrFail((raw) => {
      const v = raw.trim().toLowerCase()
      if (["true", "1", "yes", "on"].includes(v)) return Either.right(true)
      if (["false", "0", "no", "off", ""].includes(v)) return Either.right(false)
      return Either.left(ConfigError.InvalidData([], `${name} must be true or false, got "${raw}"`))
    })
  )

const intInRange = (name: string, fallback: number, min: number, max: number) =>
  Config.string(name).pipe(
    Config.withDefault(String(fallback)),
    Config.mapOrFail((raw) => {
      const n = Number(raw)
      return /^\s*\d+\s*$/.test(raw) && n >= min && n <= max
        ? Either.right(n)
        : Either.left(ConfigError.InvalidData([], `${name} must be a whole number from ${min} to ${max}, got "${raw}"`))
    })
  )

const optionalString = (name: string) =>
  Config.string(name).pipe(Config.option, Config.map(Option.filter((s) => s.trim() !== "")), Config.map(Option.map((s) => s.trim())))

const optionalSecret = (name: string) => optionalString(name).pipe(Config.map(Option.map(Redacted.make)))

const url = (name: string, fallback: string) =>
  Config.string(name).pipe(
    Config.withDefault(fallback),
    Config.mapOrFail((raw) => {
      try {
        const u = new URL(raw.trim())
        if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error("protocol")
        return Either.right(raw.trim().replace(/\/+$/, ""))
      } catch {
        return Either.left(ConfigError.InvalidData([], `${name} must be an http(s) URL, got "${raw}"`))
      }
    })
  )

const timeZone = Config.string("TZ").pipe(
  Config.option,
  Config.mapOrFail((tz) => {
    const value = Option.getOrElse(Option.filter(tz, (s) => s.trim() !== ""), () => Intl.DateTimeFormat().resolvedOptions().timeZone)
    try {
      new Intl.DateTimeFormat("en-US", { timeZone: value.replace(/^:/, "") })
      return Either.right(value.replace(/^:/, ""))
    } catch {
      return Either.left(ConfigError.InvalidData([], `TZ must be an IANA time zone such as Europe/Brussels, got "${value}"`))
    }
  })
)

const cron = (name: string, fallback: string) =>
  Config.string(name).pipe(
    Config.withDefault(fallback),
    Config.mapOrFail((raw) => {
      const fields = raw.trim().split(/\s+/)
      return fields.length === 5
        ? Either.right(raw.trim())
        : Either.left(ConfigError.InvalidData([], `${name} must be a 5-field cron expression, got "${raw}"`))
    })
  )

export const API_KEY_PATTERN = /^wmk_[a-f0-9]{64}$/

/** Every variable of the environment table; a ConfigError lists all problems at once. */
export const appConfig = Config.all({
  port: intInRange("PORT", 8080, 0, 65535),
  host: Config.string("HOST").pipe(Config.withDefault("0.0.0.0")),
  appUrl: url("APP_URL", "http://localhost:8080"),
  storageDir: Config.string("STORAGE_DIR").pipe(Config.withDefault("./storage"), Config.map((p) => path.resolve(p))),
  watchDir: Config.string("WATCH_DIR").pipe(Config.withDefault("./watch"), Config.map((p) => path.resolve(p))),
  apiKey: optionalSecret("SERVICE_API_KEY"),
  importMode: oneOf<ImportMode>("IMPORT_MODE", ["files", "externalApi"], "files"),
  unitSystem: oneOf<UnitSystem>("UNIT_SYSTEM", ["metric", "imperial"], "metric"),
  timeZone,
  demoMode: bool("DEMO_MODE"),
  uploadMaxFileSize: size("UPLOAD_MAX_FILESIZE", "20M"),
  postMaxSize: size("POST_MAX_SIZE", "48M"),
  logLevel: oneOf<LogLevelName>("LOG_LEVEL", ["trace", "debug", "info", "warning", "error", "fatal"], "info"),
  logFormat: oneOf<LogFormat>("LOG_FORMAT", ["text", "json"], "text"),
  otlpEndpoint: optionalString("OTEL_EXPORTER_OTLP_ENDPOINT"),
  stravaClientId: optionalString("STRAVA_CLIENT_ID"),
  stravaClientSecret: optionalSecret("STRAVA_CLIENT_SECRET"),
  stravaRefreshToken: optionalSecret("STRAVA_REFRESH_TOKEN"),
  stravaBaseUrl: url("STRAVA_BASE_URL", "https://www.strava.com"),
  externalImportCron: cron("EXTERNAL_IMPORT_CRON", "30 2 * * *"),
  webhooksEnabled: bool("WEBHOOKS_ENABLED"),
  webhooksVerifyToken: optionalSecret("WEBHOOKS_VERIFY_TOKEN"),
  webhooksCheckIntervalMinutes: intInRange("WEBHOOKS_CHECK_INTERVAL_MINUTES", 5, 1, 60)
})

export type AppConfigShape = Config.Config.Success<typeof appConfig>

/** Flattens a ConfigError into one line per problem. */
export const configProblems = (error: ConfigError.ConfigError): Array<string> =>
  ConfigError.reduceWithContext(error, undefined, {
    andCase: (_, l: Array<string>, r: Array<string>) => [...l, ...r],
    orCase: (_, l: Array<string>, r: Array<string>) => [...l, ...r],
    invalidDataCase: (_, p, message) => [p.length > 0 ? `${p.join(".")}: ${message}` : message],
    missingDataCase: (_, p, message) => [`${p.join(".")}: ${message}`],
    sourceUnavailableCase: (_, p, message) => [`${p.join(".")}: ${message}`],
    unsupportedCase: (_, p, message) => [`${p.join(".")}: ${message}`]
  })

export class AppConfig extends Effect.Service<AppConfig>()("services/platform/AppConfig", {
  effect: appConfig
}) {}
