import * as HttpBody from "@effect/platform/HttpBody"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { SqlClient } from "@effect/sql"
import { ConfigProvider, Context, Duration, Effect, Layer } from "effect"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { makeDaemon, type ServerServices } from "../../src/runtime/Daemon.ts"
import { ServicesLive } from "../../src/runtime/Services.ts"
import type { ActivityDraft } from "../../src/schema/ActivityDraft.ts"
import type { ActivityReads } from "../../src/services/activities/ActivityReads.ts"
import { ActivityRepo } from "../../src/services/activities/ActivityRepo.ts"
import { activityColumns } from "../../src/services/activities/ActivityRow.ts"
import type { ApiKey } from "../../src/services/platform/ApiKey.ts"
import type { AppConfig } from "../../src/services/platform/AppConfig.ts"
import type { StoragePaths } from "../../src/services/platform/StoragePaths.ts"
import type { ReadConnection } from "../../src/services/platform/ReadConnection.ts"
import type { FileImportReads } from "../../src/services/import/FileImportReads.ts"
import type { WatchDirectory } from "../../src/services/import/WatchDirectory.ts"
import { generateApiKey } from "../../src/services/platform/ApiKey.ts"
import { FileImportRepo } from "../../src/services/import/FileImportRepo.ts"
import { GearRepo } from "../../src/services/activities/GearRepo.ts"
import { encodeDraft } from "../../src/services/activities/StreamsCodec.ts"
import { WeightRepo } from "../../src/services/activities/WeightRepo.ts"
import { makeTestListener, testListener } from "./testListener.ts"
import { FolderCheckInterval } from "../../src/fibers/ImportWatchFolder.ts"

/**
 * The watch folder itself looked at often in the daemons the tests build: what happens to it (gone,
 * replaced, a subfolder the import emptied) is seen within a fraction of a second, not five.
 */
export const FrequentFolderChecks = Layer.succeed(FolderCheckInterval, Duration.millis(200))

/**
 * The real daemon (`makeDaemon` of src/runtime/Daemon.ts) for one test block: a temporary STORAGE_DIR
 * and WATCH_DIR, the environment given here and nothing from `process.env`, and
 * the daemon's own listener on a free port (`testListener`, with an
 * HttpClient bound to it). The repositories and the SqlClient are the daemon's own
 * instances (layers are memoised within one build), so seeding through them is seen by
 * the HTTP handlers.
 *
 * Use with `layer(TestDaemon.layer({ env }), { excludeTestServices: true })` from
 * `@effect/vitest` (the real clock: the daemon and sockets must not run on TestClock).
 */

export interface TestDaemonOptions {
  /** environment variables, on top of STORAGE_DIR, WATCH_DIR and SERVICE_API_KEY */
  readonly env?: Readonly<Record<string, string>>
  /** the configured key: a fresh `wmk_` key by default; `null` leaves SERVICE_API_KEY unset */
  readonly apiKey?: string | null
  /** false: the listener leaves every request to the HTTP app (no direct routes), to compare both */
  readonly directRoutes?: boolean
}

export interface TestDaemonInfo {
  readonly storageDir: string
  readonly watchDir: string
  readonly uploadsDir: string
  readonly imagesDir: string
  readonly logsDir: string
  readonly originalsDir: string
  readonly databaseFile: string
  /** the configured SERVICE_API_KEY ("" when unset) */
  readonly apiKey: string
  /** the environment the daemon was configured with */
  readonly env: Readonly<Record<string, string>>
}

export class TestDaemon extends Context.Tag("test/TestDaemon")<TestDaemon, TestDaemonInfo>() {
  static layer = (options: TestDaemonOptions = {}) => makeTestDaemon(options)
}

/** Everything a test block gets from `TestDaemon.layer`. */
export type TestDaemonServices =
  | TestDaemon
  | HttpClient.HttpClient
  | SqlClient.SqlClient
  | ActivityRepo
  | GearRepo
  | WeightRepo
  | FileImportRepo
  | ActivityReads
  | FileImportReads
  | WatchDirectory
  | ReadConnection
  | ApiKey
  | AppConfig
  | StoragePaths

const removeTree = (dir: string) => fs.rmSync(dir, { recursive: true, force: true })

const makeTestDaemon = (options: TestDaemonOptions): Layer.Layer<TestDaemonServices, unknown> =>
  Layer.unwrapScoped(
    Effect.gen(function*() {
      const root = yield* Effect.acquireRelease(
        Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "waymark-test-"))),
        (dir) => Effect.sync(() => removeTree(dir))
      )
      const storageDir = path.join(root, "storage")
      const watchDir = path.join(root, "watch")
      fs.mkdirSync(storageDir)
      fs.mkdirSync(watchDir)
      const apiKey = options.apiKey === undefined ? generateApiKey() : options.apiKey
      const env: Record<string, string> = {
        STORAGE_DIR: storageDir,
        WATCH_DIR: watchDir,
        APP_URL: "http://waymark.test",
        TZ: "UTC",
        LOG_LEVEL: "fatal",
        // the tests' files appear whole: a short settle time keeps them quick
        WATCH_SETTLE: "150ms",
        // no tile is ever fetched from outside the machine: a closed port on loopback (no map)
        MAP_TILE_URL: "http://127.0.0.1:9/{z}/{x}/{y}.png",
        ...(apiKey === null ? {} : { SERVICE_API_KEY: apiKey }),
        ...options.env
      }
      const info: TestDaemonInfo = {
        storageDir,
        watchDir,
        uploadsDir: path.join(watchDir, ".uploads"),
        imagesDir: path.join(storageDir, "files", "activities"),
        logsDir: path.join(storageDir, "files", "logs"),
        originalsDir: path.join(storageDir, "files", "originals"),
        databaseFile: path.join(storageDir, "database", "waymark.sqlite"),
        apiKey: apiKey ?? "",
        env
      }
      // makeDaemon takes the server layer; hand it the one built below so that its
      // HttpClient stays available to the tests
      const server = Layer.effectContext(Effect.context<ServerServices>())
      const daemon = Layer.mergeAll(makeDaemon(server), ServicesLive, Layer.succeed(TestDaemon, info)).pipe(
        Layer.provideMerge(options.directRoutes === false ? makeTestListener({ direct: false }) : testListener)
      )
      return daemon.pipe(
        Layer.provide(FrequentFolderChecks),
        Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))))
      )
    })
  )

// ---------------------------------------------------------------------------------------
// Requests

/** The address the test daemon answers at (http://127.0.0.1:port), as a browser opens it. */
export const daemonOrigin = Effect.map(Effect.flatMap(HttpClient.HttpClient, (client) => client.get("/status")), (answer) => new URL(answer.request.url).origin)


export interface Answer {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly bytes: Buffer
  readonly text: string
  /** the parsed body, or undefined when it is not JSON */
  readonly json: any
}

export const toAnswer = (response: HttpClientResponse.HttpClientResponse) =>
  Effect.map(response.arrayBuffer, (buffer): Answer => {
    const bytes = Buffer.from(buffer)
    const text = bytes.toString("utf8")
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch {
      json = undefined
    }
    return { status: response.status, headers: response.headers, bytes, text, json }
  })

export interface SendOptions {
  /** the bearer token: the configured key by default, `null` for no Authorization header */
  readonly key?: string | null
  readonly headers?: Readonly<Record<string, string>>
  /** a JSON value (sent as application/json), or a prepared body */
  readonly json?: unknown
  readonly body?: HttpBody.HttpBody
}

/** One request to the daemon over its socket; never fails on a status. */
export const send = (method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "HEAD" | "OPTIONS", url: string, options: SendOptions = {}) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const daemon = yield* TestDaemon
    const key = options.key === undefined ? daemon.apiKey : options.key
    let request = HttpClientRequest.make(method)(url)
    if (key !== null) request = HttpClientRequest.bearerToken(request, key)
    if (options.headers) request = HttpClientRequest.setHeaders(request, options.headers)
    if (options.json !== undefined) request = HttpClientRequest.setBody(request, HttpBody.text(JSON.stringify(options.json), "application/json"))
    if (options.body !== undefined) request = HttpClientRequest.setBody(request, options.body)
    return yield* client.execute(request).pipe(Effect.flatMap(toAnswer), Effect.scoped)
  })

/** A multipart/form-data body built by hand (for names a FormData cannot carry: raw bytes, control characters). */
export const rawMultipart = (
  parts: ReadonlyArray<{ readonly name: string; readonly filename?: string | Uint8Array; readonly contentType?: string; readonly content: string | Uint8Array }>
): HttpBody.HttpBody => {
  const boundary = `----waymark-test-${randomUUID()}`
  const chunks: Array<Buffer> = []
  for (const part of parts) {
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"`, "latin1"))
    if (part.filename !== undefined) {
      chunks.push(Buffer.from('; filename="', "latin1"))
      chunks.push(typeof part.filename === "string" ? Buffer.from(part.filename, "utf8") : Buffer.from(part.filename))
      chunks.push(Buffer.from('"', "latin1"))
    }
    chunks.push(Buffer.from(`\r\nContent-Type: ${part.contentType ?? "application/octet-stream"}\r\n\r\n`, "latin1"))
    chunks.push(typeof part.content === "string" ? Buffer.from(part.content, "utf8") : Buffer.from(part.content))
    chunks.push(Buffer.from("\r\n", "latin1"))
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`, "latin1"))
  return HttpBody.uint8Array(Buffer.concat(chunks), `multipart/form-data; boundary=${boundary}`)
}

/** A normal multipart body with one `file` part. */
export const fileForm = (filename: string, content: string | Uint8Array, field = "file") => {
  const form = new FormData()
  form.append(field, new Blob([typeof content === "string" ? content : Buffer.from(content)]), filename)
  return HttpBody.formData(form)
}

// ---------------------------------------------------------------------------------------
// Seeding

let seq = 0

/** A complete, plausible ActivityDraft (a 30-minute ride with GPS and time streams). */
export const makeDraft = (overrides: Partial<ActivityDraft> = {}): ActivityDraft => {
  const startTime = overrides.startTime ?? Date.parse("2024-06-01T08:00:00Z") + (seq++) * 60_000
  const base: ActivityDraft = {
    sportType: "Ride",
    name: "Morning Ride",
    description: "",
    workoutType: null,
    worldType: "realWorld",
    importSource: "fitFile",
    startTime,
    startDateLocal: new Date(startTime).toISOString().slice(0, 19),
    distanceInMeter: 10_000,
    elevationInMeter: 100,
    movingTimeInSeconds: 1_800,
    elapsedTimeInSeconds: 1_900,
    averageSpeedInKmPerHour: 20,
    maxSpeedInKmPerHour: 40,
    calories: 500,
    kilojoules: 400,
    averageHeartRate: 140,
    maxHeartRate: 170,
    averagePower: 200,
    maxPower: 500,
    averageCadence: 85,
    isCommute: false,
    excludeFromRecords: false,
    deviceName: "Garmin Edge 540",
    gearId: null,
    location: { countryCode: "be", state: "Flanders", city: "Ghent" },
    passedThroughCountries: ["be"],
    startLatLng: [51.05, 3.72],
    encodedPolyline: "_p~iF~ps|U_ulLnnqC_mqNvxq`@",
    hasGpx: true,
    streams: {
      time: [0, 1, 2],
      latlng: [[51.05, 3.72], [51.0501, 3.7201], [51.0502, 3.7202]],
      altitude: [10, 11, 12],
      heartrate: [130, 131, 132]
    },
    hasTimes: true,
    dateUnknown: false,
    poolLengthInMeter: null,
    numberOfLengths: null,
    strokes: null,
    swolf: null,
    multisport: null,
    laps: [],
    splits: [],
    bestEfforts: []
  }
  return { ...base, ...overrides }
}

/** Stores an activity through ActivityRepo.insert; returns its id. */
export const seedActivity = (overrides: Partial<ActivityDraft> = {}, id = `activity-${randomUUID()}`) =>
  Effect.gen(function*() {
    const repo = yield* ActivityRepo
    yield* repo.insert(id, encodeDraft(makeDraft(overrides)))
    return id
  })

/**
 * An activity row as an older version could have stored it, written with SQL past every check:
 * a plain ride of 2022 with `values` (by column) over it.
 */
export const seedRawActivityRow = (id: string, values: Record<string, unknown>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const plain = makeDraft({ name: "Old ride", startTime: Date.parse("2022-05-01T08:00:00Z"), startDateLocal: "2022-05-01T10:00:00" })
    const row = { ...activityColumns(id, plain), created_at: 0, ...values }
    yield* sql`INSERT INTO activities ${sql.insert(row as Record<string, string | number | null>)}`
  }).pipe(Effect.orDie)

/** Stores gear through GearRepo.upsert; returns its id. */
export const seedGear = (gear: { readonly id?: string; readonly name?: string; readonly type?: "imported" | "custom"; readonly isRetired?: boolean } = {}) =>
  Effect.gen(function*() {
    const repo = yield* GearRepo
    const id = gear.id ?? `gear-${randomUUID()}`
    yield* repo.upsert({ id, name: gear.name ?? "Bike", type: gear.type ?? "custom", isRetired: gear.isRetired ?? false })
    return id
  })

// ---------------------------------------------------------------------------------------
// "Nothing is written"

const listTree = (dir: string, prefix = ""): Array<string> => {
  if (!fs.existsSync(dir)) return []
  const out: Array<string> = []
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const rel = prefix + entry.name
    if (entry.isDirectory()) out.push(rel + "/", ...listTree(path.join(dir, entry.name), rel + "/"))
    else out.push(`${rel} ${fs.statSync(path.join(dir, entry.name)).size}`)
  }
  return out.sort()
}

const TABLES = ["activities", "activity_images", "activity_streams", "file_imports", "gear", "weights"] as const

/**
 * What a request could have written: the watch folder (with `.uploads`), the images and
 * originals folders, and a digest of every table the API touches.
 */
export const snapshot = Effect.gen(function*() {
  const daemon = yield* TestDaemon
  const sql = yield* SqlClient.SqlClient
  const tables: Record<string, string> = {}
  for (const table of TABLES) {
    const rows = yield* sql.unsafe(`SELECT * FROM ${table} ORDER BY rowid`)
    tables[table] = JSON.stringify(rows, (_, v) => (v instanceof Uint8Array ? Buffer.from(v).toString("base64") : v))
  }
  return {
    watch: listTree(daemon.watchDir),
    images: listTree(daemon.imagesDir),
    originals: listTree(daemon.originalsDir),
    tables
  }
}).pipe(Effect.orDie)

/** Lines of a channel's log files (all days), parsed. */
export const readChannel = (channel: string) =>
  Effect.map(TestDaemon, (daemon): Array<Record<string, any>> => {
    if (!fs.existsSync(daemon.logsDir)) return []
    return fs.readdirSync(daemon.logsDir)
      .filter((name) => name.startsWith(`${channel}-`) && name.endsWith(".log"))
      .flatMap((name) => fs.readFileSync(path.join(daemon.logsDir, name), "utf8").split("\n").filter((l) => l.trim() !== ""))
      .map((line) => JSON.parse(line))
  })

/** The raw text of every log file. */
export const allLogText = Effect.map(TestDaemon, (daemon) =>
  fs.existsSync(daemon.logsDir)
    ? fs.readdirSync(daemon.logsDir).map((name) => fs.readFileSync(path.join(daemon.logsDir, name), "utf8")).join("\n")
    : "")

export const PNG_1x1 = Buffer.from(
  "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a5f3a0e10000000049454e44ae426082",
  "hex"
)
export const JPEG_HEAD = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0xff, 0xd9])
export const WEBP_HEAD = Buffer.concat([Buffer.from("RIFF"), Buffer.from([0x1a, 0, 0, 0]), Buffer.from("WEBPVP8 "), Buffer.alloc(14)])
