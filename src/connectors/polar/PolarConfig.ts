import * as Config from "effect/Config"
import * as ConfigError from "effect/ConfigError"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Settings from "../../services/platform/Settings.ts"
import { parseSince, type Since } from "./Since.ts"

/**
 * The Polar connector's configuration, read from the environment: every variable is checked
 * at start and every problem is reported at once. The client id and secret may come from
 * `<NAME>_FILE`, and under their Polar names (POLAR_CLIENT_ID, POLAR_CLIENT_SECRET) as well.
 * The cloud's three addresses are settings too, so that a fake can stand in for it.
 */

export type FallbackFormat = "tcx" | "gpx" | "none"
export type OnConflict = "skip" | "overwrite"
export type PolarLogLevel = "debug" | "info" | "warning" | "error" | "critical"

const invalid = (message: string) => ConfigError.InvalidData([], message)

const since = Settings.text("SINCE", { default: "-30d" }).pipe(
  Config.mapOrFail((raw) => Either.mapLeft(parseSince(raw), (expected) => invalid(`SINCE ${expected}, got "${raw}"`)))
)

const isLoopback = (host: string) => host === "localhost" || host === "127.0.0.1" || host === "[::1]" || host.endsWith(".localhost")

/** The public address Polar posts deliveries to: HTTPS (plain HTTP only on loopback, for local tests), path ending in /webhook. */
const webhookUrl = Config.option(Settings.url("WEBHOOK_URL")).pipe(
  Config.mapOrFail((value): Either.Either<Option.Option<string>, ConfigError.ConfigError> => {
    if (Option.isNone(value)) return Either.right(value)
    const url = new URL(value.value)
    const secure = url.protocol === "https:" || isLoopback(url.hostname)
    return secure && url.pathname.endsWith("/webhook") && url.search === "" && url.hash === ""
      ? Either.right(value)
      : Either.left(invalid(`WEBHOOK_URL must be a public https URL whose path ends in /webhook, got "${value.value}"`))
  })
)

/** Sent to Polar exactly as written; it only has to be an absolute URL. */
const redirectUri = Config.option(Settings.text("REDIRECT_URI")).pipe(
  Config.mapOrFail((value): Either.Either<Option.Option<string>, ConfigError.ConfigError> => {
    if (Option.isNone(value)) return Either.right(value)
    try {
      new URL(value.value)
      return Either.right(value)
    } catch {
      return Either.left(invalid(`REDIRECT_URI must be an absolute URL, got "${value.value}"`))
    }
  })
)

const umask = Config.option(Settings.text("UMASK")).pipe(
  Config.mapOrFail((value) =>
    Option.isNone(value) || /^0?[0-7]{3}$/.test(value.value)
      ? Either.right(Option.map(value, (v) => parseInt(v, 8)))
      : Either.left(invalid(`UMASK must be an octal mask such as 022, got "${value.value}"`))
  )
)

const seconds = (name: string, fallback: number, min: number) =>
  Settings.duration(name, { default: Duration.seconds(fallback), min: Duration.seconds(min) })

export const polarConfig = Config.all({
  clientId: Settings.secret("PROVIDER_A_CLIENT_ID", { aliases: ["POLAR_CLIENT_ID"] }),
  clientSecret: Settings.secret("PROVIDER_A_CLIENT_SECRET", { aliases: ["POLAR_CLIENT_SECRET"] }),
  publicUrl: Config.option(Settings.url("PUBLIC_URL")),
  redirectUri,
  watchDir: Settings.folderInExisting("WATCH_DIR", { default: "/watch" }),
  stateDir: Settings.folderInExisting("STATE_DIR", { default: "/state" }),
  tokensDir: Settings.folderInExisting("POLAR_TOKENS", { default: "/tokens" }),
  since,
  sports: Settings.list("SPORTS", { default: [] }),
  fallbackFormat: Settings.oneOf<FallbackFormat>("FALLBACK_FORMAT", ["tcx", "gpx", "none"], { default: "tcx" }),
  onConflict: Settings.oneOf<OnConflict>("ON_CONFLICT", ["skip", "overwrite"], { default: "skip" }),
  maxAttempts: Settings.integer("MAX_ATTEMPTS", { default: 5, min: 1 }),
  pollInterval: seconds("POLL_INTERVAL", 900, 1),
  pollJitterPct: Settings.integer("POLL_JITTER_PCT", { default: 10, min: 0, max: 100 }),
  maxDownloadsPerCycle: Settings.integer("MAX_DOWNLOADS_PER_CYCLE", { default: 25, min: 1 }),
  downloadDelay: seconds("DOWNLOAD_DELAY_SECONDS", 1, 0),
  maxBackoff: seconds("MAX_BACKOFF_SECONDS", 21600, 1),
  webhookUrl,
  httpAddr: Settings.address("HTTP_ADDR", { default: "0.0.0.0:8080" }),
  maxCycles: Settings.integer("MAX_CYCLES", { default: 0, min: 0 }),
  dryRun: Settings.boolean("DRY_RUN", { default: false }),
  logLevel: Settings.oneOf<PolarLogLevel>("LOG_LEVEL", ["debug", "info", "warning", "error", "critical"], { default: "info" }),
  logFormat: Settings.oneOf<"text" | "json">("LOG_FORMAT", ["text", "json"], { default: "text" }),
  puid: Config.option(Settings.integer("PUID", { min: 0 })),
  pgid: Config.option(Settings.integer("PGID", { min: 0 })),
  umask,
  timeZone: Settings.timeZone("TZ"),
  apiUrl: Settings.url("PROVIDER_A_API_URL", { default: "https://www.polaraccesslink.com" }),
  authUrl: Settings.url("PROVIDER_A_AUTH_URL", { default: "https://flow.polar.com/oauth2/authorization" }),
  tokenUrl: Settings.url("PROVIDER_A_TOKEN_URL", { default: "https://polarremote.com/v2/oauth2/token" })
}).pipe(
  Config.mapOrFail((config) =>
    Option.isSome(config.webhookUrl) && Option.isNone(config.httpAddr)
      ? Either.left(invalid("WEBHOOK_URL needs the HTTP server (deliveries arrive at /webhook): HTTP_ADDR must not be off"))
      : Either.right(config)
  )
)

export type PolarConfigShape = Config.Config.Success<typeof polarConfig>
export type { Since }

export class PolarConfig extends Effect.Service<PolarConfig>()("connectors/polar/PolarConfig", {
  effect: polarConfig
}) {}

/**
 * The redirect_uri sent in both the authorize request and the token exchange: REDIRECT_URI
 * verbatim, else `<PUBLIC_URL>/callback`, else none (Polar then uses the client's one registered address).
 */
export const redirectUriOf = (config: Pick<PolarConfigShape, "redirectUri" | "publicUrl">): Option.Option<string> =>
  Option.orElse(config.redirectUri, () => Option.map(config.publicUrl, (base) => `${base}/callback`))
