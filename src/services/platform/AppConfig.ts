import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as os from "node:os"
import * as Settings from "./Settings.ts"

/**
 * The service's configuration, read from the environment. Every variable is validated at
 * start and every problem is reported at once. Secrets may also be read from a file named by
 * `<NAME>_FILE` (Docker secrets).
 */
export type ImportMode = "files" | "externalApi"
export type UnitSystem = "metric" | "imperial"
export type LogFormat = "text" | "json"
export type LogLevelName = "trace" | "debug" | "info" | "warning" | "error" | "fatal"

export { configProblems } from "./Settings.ts"

export const API_KEY_PATTERN = /^wmk_[a-f0-9]{64}$/

const MiB = 1024 ** 2

/**
 * Parse workers started by default: one per core, but no more than one per GiB of memory (a
 * worker parsing a long recording holds a few hundred MB until it is recycled).
 */
export const defaultParseWorkers = (): number =>
  Math.max(1, Math.min(os.availableParallelism(), Math.floor(os.totalmem() / 1024 ** 3)))
export const MAX_PARSE_WORKERS = 16

/**
 * The bounds of what an export's metadata files (a Strava CSV, Garmin's summaries, the JSON of
 * FitTrackee and Endurain) may make the daemon read and hold: far above a real export's (a
 * Garmin summaries file holds about a thousand activities in a few MB), far below memory.
 */
export const DEFAULT_EXPORT_METADATA_LIMITS = {
  fileBytes: 64 * MiB,
  totalBytes: 256 * MiB,
  recordBytes: 1 * MiB,
  records: 200_000
} as const

/** Every variable of the environment table; a ConfigError lists all problems at once. */
export const appConfig = Config.all({
  port: Settings.integer("PORT", { default: 8080, min: 0, max: 65535 }),
  host: Settings.text("HOST", { default: "0.0.0.0" }),
  appUrl: Settings.url("APP_URL", { default: "http://localhost:8080" }),
  storageDir: Settings.filePath("STORAGE_DIR", { default: "./storage" }),
  watchDir: Settings.filePath("WATCH_DIR", { default: "./watch" }),
  // a file is read once its size and modification time held still this long: long enough for
  // the pauses of a copy from a NAS or a USB stick, short enough not to keep a person waiting
  watchSettle: Settings.duration("WATCH_SETTLE", { default: "3s", min: "100ms", max: "10m" }),
  // network shares (NFS, SMB) send no change events: the folder is polled instead
  watchPolling: Settings.boolean("WATCH_POLLING", { default: false }),
  watchPollingInterval: Settings.duration("WATCH_POLLING_INTERVAL", { default: "5s", min: "100ms", max: "1h" }),
  apiKey: Config.option(Settings.secret("SERVICE_API_KEY")),
  importMode: Settings.oneOf<ImportMode>("IMPORT_MODE", ["files", "externalApi"], { default: "files" }),
  unitSystem: Settings.oneOf<UnitSystem>("UNIT_SYSTEM", ["metric", "imperial"], { default: "metric" }),
  timeZone: Settings.timeZone("TZ"),
  demoMode: Settings.boolean("DEMO_MODE", { default: false }),
  uploadMaxFileSize: Settings.size("UPLOAD_MAX_FILESIZE", { default: 20 * MiB }),
  postMaxSize: Settings.size("POST_MAX_SIZE", { default: 48 * MiB }),
  // a zip is refused once one of its entries, or all of them, unpack to more: counted as they inflate, whatever the headers say
  archiveEntryMaxSize: Settings.size("ARCHIVE_ENTRY_MAX_SIZE", { default: 64 * MiB }),
  archiveMaxSize: Settings.size("ARCHIVE_MAX_SIZE", { default: 4096 * MiB }),
  exportMetadataLimits: Config.all({
    fileBytes: Settings.size("EXPORT_METADATA_MAX_FILESIZE", { default: DEFAULT_EXPORT_METADATA_LIMITS.fileBytes }),
    totalBytes: Settings.size("EXPORT_METADATA_MAX_SIZE", { default: DEFAULT_EXPORT_METADATA_LIMITS.totalBytes }),
    recordBytes: Settings.size("EXPORT_METADATA_MAX_RECORD_SIZE", { default: DEFAULT_EXPORT_METADATA_LIMITS.recordBytes }),
    records: Settings.integer("EXPORT_METADATA_MAX_RECORDS", { default: DEFAULT_EXPORT_METADATA_LIMITS.records, min: 1 })
  }),
  importParseWorkers: Settings.integer("IMPORT_PARSE_WORKERS", { default: defaultParseWorkers(), min: 1, max: MAX_PARSE_WORKERS }),
  logLevel: Settings.oneOf<LogLevelName>("LOG_LEVEL", ["trace", "debug", "info", "warning", "error", "fatal"], {
    default: "info"
  }),
  logFormat: Settings.oneOf<LogFormat>("LOG_FORMAT", ["text", "json"], { default: "text" }),
  otlpEndpoint: Config.option(Settings.text("OTEL_EXPORTER_OTLP_ENDPOINT")),
  metricsPublic: Settings.boolean("METRICS_PUBLIC", { default: false }),
  stravaClientId: Config.option(Settings.text("STRAVA_CLIENT_ID")),
  stravaClientSecret: Config.option(Settings.secret("STRAVA_CLIENT_SECRET")),
  stravaRefreshToken: Config.option(Settings.secret("STRAVA_REFRESH_TOKEN")),
  stravaBaseUrl: Settings.url("STRAVA_BASE_URL", { default: "https://www.strava.com" }),
  // 6 fields (the seconds first) are taken too: the metrics test has its run come seconds after start
  externalImportCron: Settings.cron("EXTERNAL_IMPORT_CRON", { default: "30 2 * * *", seconds: true }),
  webhooksEnabled: Settings.boolean("WEBHOOKS_ENABLED", { default: false }),
  webhooksVerifyToken: Config.option(Settings.secret("WEBHOOKS_VERIFY_TOKEN")),
  webhooksCheckIntervalMinutes: Settings.integer("WEBHOOKS_CHECK_INTERVAL_MINUTES", { default: 5, min: 1, max: 60 }),
  mapTileUrl: Settings.url("MAP_TILE_URL", { default: "https://tile.openstreetmap.org/{z}/{x}/{y}.png" }),
  // a PMTiles file the maps are drawn from instead of MAP_TILE_URL (checked at start: StartupChecks)
  mapTilesFile: Config.option(Settings.filePath("MAP_TILES_FILE")),
  mapTileCacheMb: Settings.integer("MAP_TILE_CACHE_MB", { default: 500, min: 1, max: 1_000_000 })
})

export type AppConfigShape = Config.Config.Success<typeof appConfig>

export class AppConfig extends Effect.Service<AppConfig>()("services/platform/AppConfig", {
  effect: appConfig
}) {}
