import * as Config from "effect/Config"
import * as Cron from "effect/Cron"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import * as path from "node:path"
import * as Settings from "../../services/platform/Settings.ts"

/**
 * The Wahoo connector's configuration, read from the environment: every variable is checked
 * at start and every problem reported at once. The client secret (and id) may come from a
 * `<NAME>_FILE`; the upstream names `WAHOO_CLIENT_ID`, `WAHOO_CLIENT_SECRET` and
 * `WAHOO_REDIRECT_URI` are accepted for the `PROVIDER_B_*` ones.
 */

export const TIME_WINDOWS = ["1_day", "1_week", "1_month", "1_year", "all_time"] as const
export type TimeWindow = (typeof TIME_WINDOWS)[number]

export const LOG_LEVELS = ["DEBUG", "INFO", "WARNING", "ERROR"] as const
export type WahooLogLevel = (typeof LOG_LEVELS)[number]

const DAY = 86_400_000

/** How far back a window reaches; None for all_time. */
export const windowLength = (window: TimeWindow): Option.Option<number> => {
  switch (window) {
    case "1_day":
      return Option.some(DAY)
    case "1_week":
      return Option.some(7 * DAY)
    case "1_month":
      return Option.some(30 * DAY)
    case "1_year":
      return Option.some(365 * DAY)
    case "all_time":
      return Option.none()
  }
}

export const isTimeWindow = (value: unknown): value is TimeWindow =>
  typeof value === "string" && (TIME_WINDOWS as ReadonlyArray<string>).includes(value)

export const DEFAULT_PORT = 8085
export const DEFAULT_API_URL = "https://api.wahooligan.com"
export const DEFAULT_SYNC_CRON = "0 2 * * *"

export const wahooConfig = Config.all({
  clientId: Settings.text("PROVIDER_B_CLIENT_ID", { aliases: ["WAHOO_CLIENT_ID"], file: true }),
  clientSecret: Settings.secret("PROVIDER_B_CLIENT_SECRET", { aliases: ["WAHOO_CLIENT_SECRET"] }),
  redirectUri: Config.option(Settings.url("PROVIDER_B_REDIRECT_URI", { aliases: ["WAHOO_REDIRECT_URI"] })),
  apiUrl: Settings.url("PROVIDER_B_API_URL", { default: DEFAULT_API_URL }),
  timeWindow: Settings.oneOf<TimeWindow>("SYNC_TIME_WINDOW", TIME_WINDOWS, { default: "1_week" }),
  syncCron: Settings.cron("SYNC_CRON", { default: DEFAULT_SYNC_CRON }),
  port: Settings.integer("PORT", { default: DEFAULT_PORT, min: 0, max: 65535 }),
  host: Settings.text("HOST", { default: "0.0.0.0" }),
  dataDir: Settings.folderInExisting("DATA_DIR", { default: "/data" }),
  stateDir: Config.option(Settings.folderInExisting("STATE_DIR")),
  watchDir: Config.option(Settings.folderInExisting("WATCH_DIR", { aliases: ["DOWNLOADS_DIR"] })),
  logLevel: Settings.oneOf<WahooLogLevel>("LOG_LEVEL", LOG_LEVELS, { default: "INFO" }),
  verifyFilesOnDisk: Settings.boolean("VERIFY_FILES_ON_DISK", { default: false })
}).pipe(
  Config.map((raw) => ({
    clientId: raw.clientId,
    clientSecret: raw.clientSecret as Redacted.Redacted,
    // the cloud must send the browser back to this listener unless told otherwise
    redirectUri: Option.getOrElse(raw.redirectUri, () => `https://localhost:${raw.port === 0 ? DEFAULT_PORT : raw.port}/callback`),
    apiUrl: raw.apiUrl,
    timeWindow: raw.timeWindow,
    syncCron: raw.syncCron,
    // the cloud's schedule is read in UTC whatever TZ says
    cron: Either.getOrThrow(Cron.parse(raw.syncCron, "UTC")),
    port: raw.port,
    host: raw.host,
    dataDir: raw.dataDir,
    stateDir: Option.getOrElse(raw.stateDir, () => path.join(raw.dataDir, "config")),
    watchDir: Option.getOrElse(raw.watchDir, () => path.join(raw.dataDir, "downloads")),
    logLevel: raw.logLevel,
    verifyFilesOnDisk: raw.verifyFilesOnDisk
  }))
)

export type WahooConfigShape = Config.Config.Success<typeof wahooConfig>

export class WahooConfig extends Effect.Service<WahooConfig>()("connectors/wahoo/WahooConfig", {
  effect: wahooConfig
}) {}
