import { SqlClient } from "@effect/sql"
import { ConfigProvider, Duration, Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { makeDaemon, type ServerServices } from "../../src/runtime/Daemon.ts"
import { ServicesLive } from "../../src/runtime/Services.ts"
import { generateApiKey } from "../../src/services/platform/ApiKey.ts"
import { encodeFit, fitSeconds, Mesg, semicircles } from "../services/import/parsers/fitFixtures.ts"
import { FrequentFolderChecks, TestDaemon, type TestDaemonInfo } from "./TestDaemon.ts"
import { testListener } from "./testListener.ts"

/**
 * Helpers of the import tests (test/import). TestDaemon.ts builds its temporary folders
 * inside the layer, so a daemon cannot be restarted over the same storage with it; here the
 * folders are made by the test (`makeRoot`) and a daemon (`daemonLayer`) or the bare services
 * without background fibers (`servicesLayer`) are built over them, as often as needed. The
 * daemon layer also provides the `TestDaemon` tag so that `send` and friends work.
 */

export interface Root {
  readonly root: string
  readonly storageDir: string
  readonly watchDir: string
  readonly originalsDir: string
  readonly apiKey: string
  readonly env: Readonly<Record<string, string>>
}

export const makeRoot = (env: Readonly<Record<string, string>> = {}): Root => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "waymark-import-"))
  const storageDir = path.join(root, "storage")
  const watchDir = path.join(root, "watch")
  fs.mkdirSync(storageDir)
  fs.mkdirSync(watchDir)
  const apiKey = generateApiKey()
  return {
    root,
    storageDir,
    watchDir,
    originalsDir: path.join(storageDir, "files", "originals"),
    apiKey,
    env: {
      STORAGE_DIR: storageDir,
      WATCH_DIR: watchDir,
      APP_URL: "http://waymark.test",
      TZ: "UTC",
      LOG_LEVEL: "fatal",
      SERVICE_API_KEY: apiKey,
      // the tests' files appear whole: a short settle time keeps them quick (the watch folder's own tests set theirs)
      WATCH_SETTLE: "150ms",
      // map tiles from a closed loopback port: a test never asks a host outside the machine
      MAP_TILE_URL: "http://127.0.0.1:9/{z}/{x}/{y}.png",
      // one parse worker thread rather than one per core: a thread started from source costs
      // about 3 s of processor time (tsx's loader and the parsers' modules) and 1 s more for its
      // first file (the city data), which a second thread pays again as soon as two files wait;
      // the tests of the pool itself set their own number (the default depends on the machine)
      IMPORT_PARSE_WORKERS: "1",
      ...env
    }
  }
}

/** A scoped temporary root, removed when the scope closes. */
export const scopedRoot = (env: Readonly<Record<string, string>> = {}) =>
  Effect.acquireRelease(Effect.sync(() => makeRoot(env)), (r) => Effect.sync(() => fs.rmSync(r.root, { recursive: true, force: true })))

const configOf = (root: Root) => Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(root.env))))

/** ImportService, the repositories and the SqlClient over `root`, without watcher or worker fibers. */
export const servicesLayer = (root: Root) => ServicesLive.pipe(Layer.provide(configOf(root)))

const infoOf = (root: Root): TestDaemonInfo => ({
  storageDir: root.storageDir,
  watchDir: root.watchDir,
  uploadsDir: path.join(root.watchDir, ".uploads"),
  imagesDir: path.join(root.storageDir, "files", "activities"),
  logsDir: path.join(root.storageDir, "files", "logs"),
  originalsDir: root.originalsDir,
  databaseFile: path.join(root.storageDir, "database", "waymark.sqlite"),
  apiKey: root.apiKey,
  env: root.env
})

/** The whole daemon (makeDaemon) over `root`, on the daemon's listener (testListener), plus its services. */
export const daemonLayer = (root: Root) => {
  const server = Layer.effectContext(Effect.context<ServerServices>())
  return Layer.mergeAll(makeDaemon(server), ServicesLive, Layer.succeed(TestDaemon, infoOf(root))).pipe(
    Layer.provideMerge(testListener),
    Layer.provide(FrequentFolderChecks),
    Layer.provide(configOf(root))
  )
}

// ---------------------------------------------------------------------------------------
// Waiting and observing (real clock: use it.live / it.scopedLive)

/** Polls `probe` until it returns a value other than undefined; dies after `timeout`. */
export const waitFor = <A, E, R>(
  what: string,
  probe: Effect.Effect<A | undefined, E, R>,
  options: { readonly timeout?: Duration.DurationInput; readonly interval?: Duration.DurationInput } = {}
): Effect.Effect<A, E, R> =>
  Effect.gen(function*() {
    const deadline = Date.now() + Duration.toMillis(options.timeout ?? "90 seconds")
    while (true) {
      const value = yield* probe
      if (value !== undefined) return value
      if (Date.now() > deadline) return yield* Effect.dieMessage(`timed out waiting for ${what}`)
      yield* Effect.sleep(options.interval ?? "25 millis")
    }
  })

export interface ImportRow {
  readonly id: string
  readonly filename: string
  readonly status: string
  readonly error_message: string | null
  readonly activity_id: string | null
  readonly original_file: string | null
}

export const importRows = (filename?: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    filename === undefined
      ? sql<ImportRow>`SELECT id, filename, status, error_message, activity_id, original_file FROM file_imports ORDER BY rowid`
      : sql<ImportRow>`SELECT id, filename, status, error_message, activity_id, original_file FROM file_imports WHERE filename = ${filename} ORDER BY rowid`).pipe(Effect.orDie)

export const countActivities = Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ n: number }>`SELECT COUNT(*) AS n FROM activities`).pipe(
  Effect.map((rows) => rows[0]!.n),
  Effect.orDie
)

/** Waits for the terminal row of `filename` (the first one). */
export const waitForRow = (filename: string, timeout: Duration.DurationInput = "90 seconds") =>
  waitFor(`the import row of ${filename}`, Effect.map(importRows(filename), (rows) => rows[0]), { timeout })

/**
 * Writes a file the way a well-behaved producer does: under a `.part` name (or in a dot-folder
 * of the watch folder), then renames it into place. Returns the instant of the rename.
 */
export const dropFile = (watchDir: string, name: string, bytes: Uint8Array | string, via: "part" | "dotdir" = "part", mtime?: Date): number => {
  const staging = via === "part" ? path.join(watchDir, `${name}.part`) : path.join(watchDir, ".staging", name)
  fs.mkdirSync(path.dirname(staging), { recursive: true })
  fs.writeFileSync(staging, bytes)
  if (mtime) fs.utimesSync(staging, mtime, mtime)
  fs.renameSync(staging, path.join(watchDir, name))
  return Date.now()
}

export const listFiles = (dir: string): Array<string> => (fs.existsSync(dir) ? fs.readdirSync(dir).sort() : [])

/**
 * Waits until none of `files` is there. A file leaves the watch folder only after its row is
 * committed, so a row seen does not yet mean the file gone: the two are a moment apart.
 */
export const waitForGone = (...files: ReadonlyArray<string>) =>
  waitFor(`${files.map((f) => path.basename(f)).join(", ")} gone`, Effect.sync(() => (files.some((f) => fs.existsSync(f)) ? undefined : true)))

/** Waits until the watch folder holds nothing but dot-entries (its staging and uploads folders). */
export const waitForDrained = (watchDir: string) =>
  waitFor("the watch folder drained", Effect.sync(() => (listFiles(watchDir).some((f) => !f.startsWith(".")) ? undefined : true)))

// ---------------------------------------------------------------------------------------
// Fixtures built in code

export interface TrackShape {
  /** UTC start */
  readonly start: Date
  readonly seconds: number
  /** seconds between points */
  readonly step?: number
  readonly lat?: number
  readonly lng?: number
  /** metres per second, heading north */
  readonly speed?: number
}

const pointsOf = (shape: TrackShape) => {
  const step = shape.step ?? 10
  const lat0 = shape.lat ?? 47.37
  const lng0 = shape.lng ?? 8.54
  const speed = shape.speed ?? 3
  const out: Array<{ t: Date; lat: number; lng: number; ele: number; dist: number; hr: number }> = []
  for (let s = 0; s <= shape.seconds; s += step) {
    const dist = s * speed
    out.push({ t: new Date(shape.start.getTime() + s * 1000), lat: lat0 + dist / 111_195, lng: lng0, ele: 400 + 10 * Math.sin(s / 300), dist, hr: 120 + (s % 30) })
  }
  return out
}

/** A FIT activity (file_id, records, lap, session, activity) recorded from `shape`. */
export const fitActivity = (shape: TrackShape & { readonly sport?: string; readonly product?: number }): Uint8Array => {
  const points = pointsOf(shape)
  const last = points.at(-1)!
  const end = last.t
  const sport = shape.sport ?? "running"
  const startAt = shape.start
  return encodeFit([
    [Mesg["FILE_ID"]!, { type: "activity", manufacturer: "garmin", product: shape.product ?? 3121, serialNumber: 1234, timeCreated: startAt }],
    ...points.map((p): readonly [number, Record<string, unknown>] => [Mesg["RECORD"]!, {
      timestamp: p.t, positionLat: semicircles(p.lat), positionLong: semicircles(p.lng), altitude: p.ele, distance: p.dist, speed: shape.speed ?? 3, heartRate: p.hr
    }]),
    [Mesg["LAP"]!, { timestamp: end, startTime: startAt, totalElapsedTime: shape.seconds, totalTimerTime: shape.seconds, totalDistance: last.dist }],
    [Mesg["SESSION"]!, {
      timestamp: end, startTime: startAt, sport, totalElapsedTime: shape.seconds, totalTimerTime: shape.seconds, totalDistance: last.dist,
      totalCalories: Math.round(shape.seconds / 10), avgHeartRate: 135, maxHeartRate: 149
    }],
    [Mesg["ACTIVITY"]!, { timestamp: end, localTimestamp: fitSeconds(new Date(end.getTime() + 3600_000)), numSessions: 1 }]
  ])
}

/** A GPX 1.1 track recorded from `shape`. */
export const gpxActivity = (shape: TrackShape & { readonly name?: string; readonly type?: string }): string => {
  const points = pointsOf(shape)
    .map((p) => `<trkpt lat="${p.lat.toFixed(7)}" lon="${p.lng.toFixed(7)}"><ele>${p.ele.toFixed(1)}</ele><time>${p.t.toISOString()}</time></trkpt>`)
    .join("")
  return `<?xml version="1.0" encoding="UTF-8"?>\n<gpx version="1.1" creator="waymark-test" xmlns="http://www.topografix.com/GPX/1/1"><trk><name>${shape.name ?? "Test track"}</name><type>${shape.type ?? "running"}</type><trkseg>${points}</trkseg></trk></gpx>\n`
}

/** A TCX activity with one lap recorded from `shape`. */
export const tcxActivity = (shape: TrackShape & { readonly sport?: string }): string => {
  const points = pointsOf(shape)
  const tps = points.map((p) =>
    `<Trackpoint><Time>${p.t.toISOString()}</Time><Position><LatitudeDegrees>${p.lat.toFixed(7)}</LatitudeDegrees><LongitudeDegrees>${p.lng.toFixed(7)}</LongitudeDegrees></Position><AltitudeMeters>${p.ele.toFixed(1)}</AltitudeMeters><DistanceMeters>${p.dist}</DistanceMeters><HeartRateBpm><Value>${p.hr}</Value></HeartRateBpm></Trackpoint>`
  ).join("")
  return `<?xml version="1.0" encoding="UTF-8"?>\n<TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2"><Activities><Activity Sport="${shape.sport ?? "Running"}"><Id>${shape.start.toISOString()}</Id><Lap StartTime="${shape.start.toISOString()}"><TotalTimeSeconds>${shape.seconds}</TotalTimeSeconds><DistanceMeters>${points.at(-1)!.dist}</DistanceMeters><Calories>${Math.round(shape.seconds / 10)}</Calories><Track>${tps}</Track></Lap></Activity></Activities></TrainingCenterDatabase>\n`
}


/** A daemon over a fresh temporary root (removed afterwards), for `layer(freshDaemon(), { excludeTestServices: true })`. */
export const freshDaemon = (env: Readonly<Record<string, string>> = {}) => Layer.unwrapScoped(Effect.map(scopedRoot(env), daemonLayer))

/** A distinct start time for the n-th fixture of a test file (one per day, so no two are duplicates). */
export const dayStart = (n: number) => new Date(Date.parse("2023-01-01T08:00:00Z") + n * 86_400_000)
