/**
 * A fake Strava for tests: a plain node:http server on 127.0.0.1 (random port) that behaves like the
 * documented API (OAuth refresh, /api/v3 reads, push subscriptions with callback validation, rate-limit
 * headers, Strava's error shape). Start one per test with `startFakeStrava()`, point
 * `STRAVA_BASE_URL` (AppConfig.stravaBaseUrl) at `fake.url`, and `await fake.close()` at the end.
 */
import polyline from "@mapbox/polyline"
import { randomBytes, randomUUID } from "node:crypto"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { localInZone } from "../../src/services/platform/LocalTime.ts"
import { readBody } from "./readBody.ts"

export interface FakeRateLimits {
  readonly overall15: number
  readonly overallDaily: number
  readonly read15: number
  readonly readDaily: number
}

export interface FakeStravaOptions {
  readonly clientId?: string
  readonly clientSecret?: string
  readonly refreshToken?: string
  readonly athleteId?: number
  /** expires_in of granted access tokens; default 21600 (6 h, like Strava). */
  readonly tokenLifetimeSeconds?: number
  /** Issue a new refresh token on every grant (the old one stops working); default true. */
  readonly rotateRefreshToken?: boolean
  /** Defaults: 200/2000 overall, 100/1000 read. */
  readonly limits?: Partial<FakeRateLimits>
  /** How long the subscription validation GET may take; default 2000 ms. */
  readonly callbackTimeoutMs?: number
}

export interface FakeRequest {
  readonly method: string
  readonly path: string
  readonly query: Readonly<Record<string, string>>
  readonly authorization: string | undefined
  readonly at: number
}

export interface FakeSubscription {
  readonly id: number
  readonly application_id: number
  readonly callback_url: string
  readonly created_at: string
  readonly updated_at: string
  readonly resource_state: number
}

export interface FakeGear {
  readonly id: string
  readonly name: string
  readonly retired: boolean
  readonly distance: number
  readonly primary?: boolean
  readonly brand_name?: string
  readonly model_name?: string
  readonly description?: string
  readonly [key: string]: unknown
}

/** The detail JSON of an activity, as GET /api/v3/activities/{id} answers it. */
export interface FakeActivityDetail {
  readonly id: number
  readonly name: string
  readonly sport_type: string
  readonly type: string
  readonly start_date: string
  readonly start_date_local: string
  readonly timezone: string
  readonly distance: number
  readonly moving_time: number
  readonly elapsed_time: number
  readonly total_elevation_gain: number
  readonly gear_id: string | null
  readonly start_latlng: ReadonlyArray<number>
  readonly end_latlng: ReadonlyArray<number>
  readonly total_photo_count: number
  readonly [key: string]: unknown
}

export interface FakeActivity {
  detail: FakeActivityDetail
  /** key_by_type streams; generated from the detail when first asked, or given to addActivity. */
  streams: Record<string, unknown> | undefined
  photos: Array<{ readonly unique_id: string }>
}

export interface AddActivityOptions {
  /** Number of photos (default 1). */
  readonly photos?: number
  /** Streams to answer instead of the generated ones; `{}` for an activity without streams. */
  readonly streams?: Record<string, unknown>
}

export type FailureMode = "none" | "unauthorized" | "inactive"

/** A body sent as it is written, not as JSON of a value (text too large or too deep to build as a value). */
export class RawText {
  constructor(readonly text: string, readonly contentType = "application/json; charset=utf-8") {}
}

export interface FakeStravaState {
  clientId: string
  clientSecret: string
  /** The refresh token currently accepted. */
  refreshToken: string
  tokenLifetimeSeconds: number
  rotateRefreshToken: boolean
  /** access token -> expires_at (epoch seconds). */
  readonly accessTokens: Map<string, number>
  tokenGrants: number
  limits: FakeRateLimits
  readonly usage: { overall15: number; overallDaily: number; read15: number; readDaily: number }
  readonly activities: Map<number, FakeActivity>
  readonly gear: Map<string, FakeGear>
  readonly subscriptions: Map<number, FakeSubscription>
  failure: FailureMode
  /** Canned answers for the next /api/v3 calls (FIFO). */
  readonly queued: Array<{ status: number; body: unknown; usage?: "15min" | "daily" }>
  readonly athlete: Record<string, unknown>
}

export interface WebhookEventInput {
  readonly aspect_type: "create" | "update" | "delete"
  readonly object_id: number
  readonly object_type?: "activity" | "athlete"
  readonly owner_id?: number
  readonly subscription_id?: number
  readonly event_time?: number
  readonly updates?: Record<string, unknown>
}

export interface FakeStrava {
  readonly url: string
  readonly state: FakeStravaState
  /** Every request received (oauth, api, photos), oldest first. */
  readonly requests: Array<FakeRequest>
  readonly tokenGrants: number
  /** Requests under /api/v3 only. */
  readonly apiRequests: ReadonlyArray<FakeRequest>
  addActivity(overrides?: Partial<FakeActivityDetail>, options?: AddActivityOptions): FakeActivityDetail
  /** Adds `count` activities, one per day going back from now; returns them newest first. */
  addActivities(count: number): ReadonlyArray<FakeActivityDetail>
  updateActivity(id: number, patch: Partial<FakeActivityDetail>): FakeActivityDetail
  removeActivity(id: number): boolean
  addGear(gear: Partial<FakeGear> & { readonly id: string }): FakeGear
  /** The next `count` /api/v3 calls answer 429 with usage headers showing the window spent. */
  rateLimitNext(count: number, window?: "15min" | "daily"): void
  /** The next `count` /api/v3 calls answer `status` with `body` (default: Strava's error shape; a RawText as written). */
  failNext(count: number, status: number, body?: unknown): void
  /** "unauthorized": every /api/v3 call answers 401; "inactive": 403 Inactive; "none": normal. */
  setFailure(mode: FailureMode): void
  setLimits(limits: Partial<FakeRateLimits>): void
  /** Sets the usage counters (e.g. to put the read window one request from its limit). */
  setUsage(usage: Partial<FakeStravaState["usage"]>): void
  resetWindow(window?: "15min" | "daily" | "all"): void
  /** Every access token issued so far stops working (401). */
  expireAccessTokens(): void
  /**
   * The athlete authorizes the application again (the authorization-code exchange): a fresh
   * refresh token is issued and the previous one stops working. Answers the new token.
   */
  reauthorize(): string
  /** Sends Strava's validation GET to a callback; resolves with what it answered. */
  validateCallback(callbackUrl: string, verifyToken: string): Promise<{ ok: boolean; status: number; body: string; challenge: string }>
  /** POSTs a webhook event (JSON) to a callback, like Strava does; resolves with the answer. */
  sendWebhookEvent(callbackUrl: string, event: WebhookEventInput): Promise<{ status: number; body: string }>
  close(): Promise<void>
}

/** A valid 1x1 grey baseline JPEG (159 bytes). */
export const TINY_JPEG = Buffer.from(
  "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQH/wAALCAABAAEBAREA/8QAFAABAAAAAAAAAAAAAAAAAAAAAP/EABQQAQAAAAAAAAAAAAAAAAAAAAD/2gAIAQEAAD8AP//Z",
  "base64"
)

export const DEFAULT_GEAR_ID = "b1234567"

const fault = (message: string, resource: string, field: string, code: string) => ({
  message,
  errors: [{ resource, field, code }]
})

export const FAULTS = {
  authorization: fault("Authorization Error", "Athlete", "access_token", "invalid"),
  inactive: fault("Forbidden", "Application", "status", "Inactive"),
  rateLimit: fault("Rate Limit Exceeded", "Application", "rate limit", "exceeded"),
  badRefreshToken: fault("Bad Request", "RefreshToken", "refresh_token", "invalid"),
  notVerifiable: fault("Bad Request", "PushSubscription", "callback url", "not verifiable"),
  alreadyExists: fault("Bad Request", "PushSubscription", "callback url", "already exists"),
  badClient: fault("Authorization Error", "Application", "client_id", "invalid")
} as const

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z")

/** Strava's start_date_local: the wall time in the zone, written with a "Z" suffix. */
const localIso = (ms: number, timeZone: string) => `${localInZone(ms, timeZone)}Z`

const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits

interface Track {
  readonly time: Array<number>
  readonly distance: Array<number>
  readonly latlng: Array<[number, number]>
  readonly altitude: Array<number>
  readonly velocity: Array<number>
  readonly heartrate: Array<number>
  readonly cadence: Array<number>
  readonly watts: Array<number>
  readonly temp: Array<number>
  readonly moving: Array<boolean>
  readonly grade: Array<number>
}

/** A ride sampled every second, heading east from `start` at about 30 km/h. */
const makeTrack = (seconds: number, start: readonly [number, number], seed: number): Track => {
  const t: Track = {
    time: [],
    distance: [],
    latlng: [],
    altitude: [],
    velocity: [],
    heartrate: [],
    cadence: [],
    watts: [],
    temp: [],
    moving: [],
    grade: []
  }
  let dist = 0
  let lat = start[0]
  let lng = start[1]
  for (let i = 0; i <= seconds; i++) {
    const v = i === 0 ? 0 : 8.33 + 1.2 * Math.sin((i + seed) / 90)
    dist += v
    lat += (v * 0.3) / 111_320
    lng += (v * 0.95) / (111_320 * Math.cos((lat * Math.PI) / 180))
    const alt = 50 + 20 * Math.sin((i + seed) / 300)
    const prevAlt = t.altitude.length > 0 ? t.altitude[t.altitude.length - 1]! : alt
    t.time.push(i)
    t.distance.push(round(dist))
    t.latlng.push([round(lat, 6), round(lng, 6)])
    t.altitude.push(round(alt))
    t.velocity.push(round(v, 2))
    t.heartrate.push(Math.round(135 + 15 * Math.sin((i + seed) / 120)))
    t.cadence.push(Math.round(85 + 5 * Math.sin(i / 60)))
    t.watts.push(Math.round(190 + 40 * Math.sin((i + seed) / 45)))
    t.temp.push(19)
    t.moving.push(i > 0)
    t.grade.push(v > 0 ? round(((alt - prevAlt) / v) * 100) : 0)
  }
  return t
}

const splits = (track: Track, unit: number) => {
  const out: Array<Record<string, unknown>> = []
  let startIdx = 0
  let index = 1
  for (let i = 1; i < track.time.length; i++) {
    const covered = track.distance[i]! - track.distance[startIdx]!
    if (covered >= unit || i === track.time.length - 1) {
      const elapsed = track.time[i]! - track.time[startIdx]!
      out.push({
        split: index++,
        distance: round(covered),
        elapsed_time: elapsed,
        moving_time: elapsed,
        elevation_difference: round(track.altitude[i]! - track.altitude[startIdx]!),
        average_speed: round(covered / elapsed, 2),
        average_grade_adjusted_speed: null,
        average_heartrate: round(track.heartrate.slice(startIdx, i + 1).reduce((a, b) => a + b, 0) / (i - startIdx + 1)),
        pace_zone: 0
      })
      startIdx = i
    }
  }
  return out
}

const mean = (xs: ReadonlyArray<number>) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length)

const streamsOf = (track: Track) => {
  const s = (data: ReadonlyArray<unknown>) => ({ data, series_type: "distance", original_size: data.length, resolution: "high" })
  return {
    time: s(track.time),
    distance: s(track.distance),
    latlng: s(track.latlng),
    altitude: s(track.altitude),
    velocity_smooth: s(track.velocity),
    heartrate: s(track.heartrate),
    cadence: s(track.cadence),
    watts: s(track.watts),
    temp: s(track.temp),
    moving: s(track.moving),
    grade_smooth: s(track.grade)
  }
}

const parseForm = (req: http.IncomingMessage, body: string): Record<string, string> => {
  const type = req.headers["content-type"] ?? ""
  if (type.includes("application/json")) {
    try {
      const json = JSON.parse(body) as Record<string, unknown>
      return Object.fromEntries(Object.entries(json).map(([k, v]) => [k, String(v)]))
    } catch {
      return {}
    }
  }
  return Object.fromEntries(new URLSearchParams(body))
}

export const startFakeStrava = async (options: FakeStravaOptions = {}): Promise<FakeStrava> => {
  const athleteId = options.athleteId ?? 1234567
  const state: FakeStravaState = {
    clientId: options.clientId ?? "12345",
    clientSecret: options.clientSecret ?? "fake-client-secret-0123456789abcdef",
    refreshToken: options.refreshToken ?? "fake-refresh-token-0123456789abcdef",
    tokenLifetimeSeconds: options.tokenLifetimeSeconds ?? 21_600,
    rotateRefreshToken: options.rotateRefreshToken ?? true,
    accessTokens: new Map(),
    tokenGrants: 0,
    limits: { overall15: 200, overallDaily: 2000, read15: 100, readDaily: 1000, ...options.limits },
    usage: { overall15: 0, overallDaily: 0, read15: 0, readDaily: 0 },
    activities: new Map(),
    gear: new Map(),
    subscriptions: new Map(),
    failure: "none",
    queued: [],
    athlete: {
      id: athleteId,
      username: "fake_rider",
      resource_state: 3,
      firstname: "Fake",
      lastname: "Rider",
      city: "Brussels",
      state: "Brussels",
      country: "Belgium",
      sex: "F",
      weight: 62.5,
      measurement_preference: "meters",
      profile: "https://example.invalid/avatar/large.jpg"
    }
  }
  const callbackTimeoutMs = options.callbackTimeoutMs ?? 2000
  const requests: Array<FakeRequest> = []
  let nextActivityId = 14_000_000_000
  let nextSubscriptionId = 280_000
  let baseUrl = ""

  const addGear = (gear: Partial<FakeGear> & { readonly id: string }): FakeGear => {
    const full: FakeGear = { name: `Gear ${gear.id}`, retired: false, distance: 0, resource_state: 3, ...gear }
    state.gear.set(full.id, full)
    return full
  }
  addGear({
    id: DEFAULT_GEAR_ID,
    name: "Canyon Endurace",
    primary: true,
    distance: 1_234_567.8,
    brand_name: "Canyon",
    model_name: "Endurace CF 7",
    description: "Road bike",
    frame_type: 3
  })

  const photoUrl = (uniqueId: string) => `${baseUrl}/photos/${uniqueId}.jpg`

  const addActivity = (overrides: Partial<FakeActivityDetail> = {}, opts: AddActivityOptions = {}): FakeActivityDetail => {
    const id = overrides.id ?? nextActivityId++
    const seed = id % 1000
    const startMs = overrides.start_date !== undefined
      ? Date.parse(overrides.start_date)
      : Math.floor(Date.now() / 1000) * 1000 - 2 * 3_600_000
    const seconds = overrides.moving_time ?? 1800
    const start: [number, number] = [50.8466, 4.3528]
    const track = makeTrack(seconds, start, seed)
    const distance = track.distance[track.distance.length - 1]!
    let gain = 0
    for (let i = 1; i < track.altitude.length; i++) gain += Math.max(0, track.altitude[i]! - track.altitude[i - 1]!)
    const avgWatts = mean(track.watts)
    const sparse = track.latlng.filter((_, i) => i % 30 === 0 || i === track.latlng.length - 1)
    const timeZone = "Europe/Brussels"
    const photos = Array.from({ length: opts.photos ?? 1 }, () => ({ unique_id: randomUUID() }))
    const detail: FakeActivityDetail = {
      resource_state: 3,
      athlete: { id: athleteId, resource_state: 1 },
      id,
      external_id: `fake-${id}.fit`,
      upload_id: id + 1,
      name: "Morning Ride",
      description: "A generated ride",
      sport_type: "Ride",
      type: "Ride",
      workout_type: 10,
      start_date: iso(startMs),
      start_date_local: localIso(startMs, timeZone),
      timezone: `(GMT+01:00) ${timeZone}`,
      utc_offset: 3600,
      distance: round(distance),
      moving_time: seconds,
      elapsed_time: seconds + 60,
      total_elevation_gain: round(gain),
      elev_high: round(Math.max(...track.altitude)),
      elev_low: round(Math.min(...track.altitude)),
      average_speed: round(distance / seconds, 3),
      max_speed: round(Math.max(...track.velocity), 3),
      average_heartrate: round(mean(track.heartrate)),
      max_heartrate: Math.max(...track.heartrate),
      has_heartrate: true,
      average_watts: round(avgWatts),
      max_watts: Math.max(...track.watts),
      weighted_average_watts: Math.round(avgWatts * 1.05),
      device_watts: true,
      average_cadence: round(mean(track.cadence)),
      average_temp: 19,
      kilojoules: round((avgWatts * seconds) / 1000),
      calories: round((avgWatts * seconds) / 1000 * 1.1),
      commute: false,
      trainer: false,
      manual: false,
      private: false,
      visibility: "everyone",
      start_latlng: track.latlng[0]!,
      end_latlng: track.latlng[track.latlng.length - 1]!,
      map: {
        id: `a${id}`,
        summary_polyline: polyline.encode(sparse),
        polyline: polyline.encode(track.latlng),
        resource_state: 3
      },
      gear_id: DEFAULT_GEAR_ID,
      device_name: "Garmin Edge 540",
      total_photo_count: photos.length,
      photos: { count: photos.length, primary: null },
      splits_metric: splits(track, 1000),
      splits_standard: splits(track, 1609.34),
      laps: [{
        id: id * 10 + 1,
        resource_state: 2,
        name: "Lap 1",
        activity: { id, resource_state: 1 },
        athlete: { id: athleteId, resource_state: 1 },
        elapsed_time: seconds + 60,
        moving_time: seconds,
        start_date: iso(startMs),
        start_date_local: localIso(startMs, timeZone),
        distance: round(distance),
        start_index: 0,
        end_index: track.time.length - 1,
        total_elevation_gain: round(gain),
        average_speed: round(distance / seconds, 3),
        max_speed: round(Math.max(...track.velocity), 3),
        average_cadence: round(mean(track.cadence)),
        device_watts: true,
        average_watts: round(avgWatts),
        average_heartrate: round(mean(track.heartrate)),
        max_heartrate: Math.max(...track.heartrate),
        lap_index: 1,
        split: 1
      }],
      ...overrides
    }
    state.activities.set(id, { detail, streams: opts.streams ?? streamsOf(track), photos })
    return detail
  }

  /** Cheap variant for bulk: no streams computed until asked. */
  const addLightActivity = (startMs: number): FakeActivityDetail => {
    const id = nextActivityId++
    const detail: FakeActivityDetail = {
      resource_state: 3,
      id,
      name: `Ride ${id}`,
      sport_type: "Ride",
      type: "Ride",
      start_date: iso(startMs),
      start_date_local: localIso(startMs, "Europe/Brussels"),
      timezone: "(GMT+01:00) Europe/Brussels",
      distance: 15000,
      moving_time: 1800,
      elapsed_time: 1860,
      total_elevation_gain: 42,
      average_speed: 8.333,
      max_speed: 11.2,
      gear_id: DEFAULT_GEAR_ID,
      start_latlng: [50.8466, 4.3528],
      end_latlng: [50.89, 4.55],
      map: { id: `a${id}`, summary_polyline: "", resource_state: 2 },
      total_photo_count: 0,
      commute: false,
      workout_type: null,
      device_name: "Garmin Edge 540"
    }
    state.activities.set(id, { detail, streams: undefined, photos: [] })
    return detail
  }

  const summaryOf = (detail: FakeActivityDetail) => {
    const {
      description: _d,
      calories: _c,
      splits_metric: _sm,
      splits_standard: _ss,
      laps: _l,
      photos: _p,
      device_name: _dn,
      ...rest
    } = detail
    const map = rest.map as Record<string, unknown> | undefined
    return {
      ...rest,
      resource_state: 2,
      map: map === undefined ? undefined : { id: map.id, summary_polyline: map.summary_polyline, resource_state: 2 }
    }
  }

  const json = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    const text = body === undefined ? "" : body instanceof RawText ? body.text : JSON.stringify(body)
    res.writeHead(status, {
      ...headers,
      ...(body === undefined ? {} : { "content-type": body instanceof RawText ? body.contentType : "application/json; charset=utf-8" })
    })
    res.end(text)
  }

  const rateHeaders = (spent?: "15min" | "daily"): Record<string, string> => {
    const u = state.usage
    const l = state.limits
    const o15 = spent === "15min" || spent === "daily" ? Math.max(u.overall15, l.overall15) : u.overall15
    const r15 = spent === "15min" ? Math.max(u.read15, l.read15) : u.read15
    const oDay = spent === "daily" ? Math.max(u.overallDaily, l.overallDaily) : u.overallDaily
    const rDay = spent === "daily" ? Math.max(u.readDaily, l.readDaily) : u.readDaily
    return {
      "x-ratelimit-limit": `${l.overall15},${l.overallDaily}`,
      "x-ratelimit-usage": `${o15},${oDay}`,
      "x-readratelimit-limit": `${l.read15},${l.readDaily}`,
      "x-readratelimit-usage": `${r15},${rDay}`
    }
  }

  const bearerOk = (req: http.IncomingMessage) => {
    const header = req.headers.authorization ?? ""
    const match = /^Bearer (.+)$/.exec(header)
    if (!match) return false
    const expiresAt = state.accessTokens.get(match[1]!)
    return expiresAt !== undefined && expiresAt > Date.now() / 1000
  }

  const clientOk = (params: Record<string, string>) =>
    params.client_id === state.clientId && params.client_secret === state.clientSecret

  const validate = async (callbackUrl: string, verifyToken: string) => {
    const challenge = randomBytes(12).toString("hex")
    try {
      const u = new URL(callbackUrl)
      u.searchParams.set("hub.mode", "subscribe")
      u.searchParams.set("hub.challenge", challenge)
      u.searchParams.set("hub.verify_token", verifyToken)
      const res = await fetch(u, { signal: AbortSignal.timeout(callbackTimeoutMs) })
      const body = await res.text()
      let echoed: unknown
      try {
        echoed = (JSON.parse(body) as Record<string, unknown>)["hub.challenge"]
      } catch {
        echoed = undefined
      }
      return { ok: res.status === 200 && echoed === challenge, status: res.status, body, challenge }
    } catch (e) {
      return { ok: false, status: 0, body: String(e), challenge }
    }
  }

  const handleOauth = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => {
    const form = parseForm(req, body)
    if (!clientOk(form) || form.grant_type !== "refresh_token" || form.refresh_token !== state.refreshToken) {
      return json(res, 400, FAULTS.badRefreshToken)
    }
    state.tokenGrants++
    const accessToken = `fake-access-${randomBytes(16).toString("hex")}`
    const expiresAt = Math.floor(Date.now() / 1000) + state.tokenLifetimeSeconds
    state.accessTokens.set(accessToken, expiresAt)
    if (state.rotateRefreshToken) state.refreshToken = `fake-refresh-${randomBytes(16).toString("hex")}`
    json(res, 200, {
      token_type: "Bearer",
      access_token: accessToken,
      expires_at: expiresAt,
      expires_in: state.tokenLifetimeSeconds,
      refresh_token: state.refreshToken
    })
  }

  const handleSubscriptions = async (
    req: http.IncomingMessage,
    res: http.ServerResponse,
    path: string,
    query: Record<string, string>,
    body: string,
    headers: Record<string, string>
  ) => {
    const method = req.method ?? "GET"
    if (path === "/api/v3/push_subscriptions" && method === "GET") {
      if (!clientOk(query)) return json(res, 401, FAULTS.badClient, headers)
      return json(res, 200, [...state.subscriptions.values()], headers)
    }
    if (path === "/api/v3/push_subscriptions" && method === "POST") {
      const form = { ...query, ...parseForm(req, body) }
      if (!clientOk(form)) return json(res, 401, FAULTS.badClient, headers)
      if (!form.callback_url) return json(res, 400, fault("Bad Request", "PushSubscription", "callback url", "missing"), headers)
      if (!form.verify_token) return json(res, 400, fault("Bad Request", "PushSubscription", "verify token", "missing"), headers)
      if (state.subscriptions.size > 0) return json(res, 400, FAULTS.alreadyExists, headers)
      const check = await validate(form.callback_url, form.verify_token)
      if (!check.ok) return json(res, 400, FAULTS.notVerifiable, headers)
      const now = iso(Date.now())
      const subscription: FakeSubscription = {
        id: nextSubscriptionId++,
        application_id: Number(state.clientId) || 1,
        callback_url: form.callback_url,
        created_at: now,
        updated_at: now,
        resource_state: 2
      }
      state.subscriptions.set(subscription.id, subscription)
      return json(res, 201, { id: subscription.id }, headers)
    }
    const del = /^\/api\/v3\/push_subscriptions\/(\d+)$/.exec(path)
    if (del && method === "DELETE") {
      if (!clientOk(query)) return json(res, 401, FAULTS.badClient, headers)
      if (!state.subscriptions.delete(Number(del[1]))) {
        return json(res, 404, fault("Record Not Found", "PushSubscription", "id", "invalid"), headers)
      }
      res.writeHead(204, headers)
      return res.end()
    }
    return json(res, 404, fault("Record Not Found", "Route", "path", "invalid"), headers)
  }

  const handleApi = async (
    req: http.IncomingMessage,
    res: http.ServerResponse,
    path: string,
    query: Record<string, string>,
    body: string
  ) => {
    const method = req.method ?? "GET"
    const isRead = method === "GET"
    const u = state.usage
    u.overall15++
    u.overallDaily++
    if (isRead) {
      u.read15++
      u.readDaily++
    }
    const queued = state.queued.shift()
    if (queued !== undefined) return json(res, queued.status, queued.body, rateHeaders(queued.usage))
    const l = state.limits
    if (u.overallDaily > l.overallDaily || (isRead && u.readDaily > l.readDaily)) {
      return json(res, 429, FAULTS.rateLimit, rateHeaders())
    }
    if (u.overall15 > l.overall15 || (isRead && u.read15 > l.read15)) {
      return json(res, 429, FAULTS.rateLimit, rateHeaders())
    }
    const headers = rateHeaders()
    if (state.failure === "unauthorized") return json(res, 401, FAULTS.authorization, headers)
    if (state.failure === "inactive") return json(res, 403, FAULTS.inactive, headers)
    if (path.startsWith("/api/v3/push_subscriptions")) return handleSubscriptions(req, res, path, query, body, headers)
    if (!bearerOk(req)) return json(res, 401, FAULTS.authorization, headers)
    if (method !== "GET") return json(res, 404, fault("Record Not Found", "Route", "path", "invalid"), headers)

    if (path === "/api/v3/athlete") return json(res, 200, state.athlete, headers)
    if (path === "/api/v3/athlete/activities") {
      const page = Math.max(1, Number(query.page ?? "1") || 1)
      const perPage = Math.min(200, Math.max(1, Number(query.per_page ?? "30") || 30))
      const before = query.before !== undefined ? Number(query.before) * 1000 : Infinity
      const after = query.after !== undefined ? Number(query.after) * 1000 : -Infinity
      const all = [...state.activities.values()]
        .map((a) => a.detail)
        .filter((d) => {
          const t = Date.parse(d.start_date)
          return t < before && t > after
        })
        .sort((a, b) => Date.parse(b.start_date) - Date.parse(a.start_date) || b.id - a.id)
      return json(res, 200, all.slice((page - 1) * perPage, page * perPage).map(summaryOf), headers)
    }
    const gear = /^\/api\/v3\/gear\/([^/]+)$/.exec(path)
    if (gear) {
      const g = state.gear.get(decodeURIComponent(gear[1]!))
      return g ? json(res, 200, g, headers) : json(res, 404, fault("Record Not Found", "Gear", "id", "invalid"), headers)
    }
    const activity = /^\/api\/v3\/activities\/(\d+)(?:\/(streams|photos))?$/.exec(path)
    if (activity) {
      const a = state.activities.get(Number(activity[1]))
      if (!a) return json(res, 404, fault("Record Not Found", "Activity", "id", "invalid"), headers)
      if (activity[2] === undefined) return json(res, 200, a.detail, headers)
      if (activity[2] === "photos") {
        return json(
          res,
          200,
          a.photos.map((p, i) => ({
            unique_id: p.unique_id,
            athlete_id: athleteId,
            activity_id: a.detail.id,
            activity_name: a.detail.name,
            resource_state: 2,
            caption: "",
            type: 1,
            source: 1,
            status: 3,
            uploaded_at: a.detail.start_date,
            created_at: a.detail.start_date,
            created_at_local: a.detail.start_date_local,
            urls: { [query.size ?? "100"]: photoUrl(p.unique_id) },
            sizes: { [query.size ?? "100"]: [1, 1] },
            default_photo: i === 0,
            location: a.detail.start_latlng
          })),
          headers
        )
      }
      if (a.streams === undefined) {
        a.streams = streamsOf(makeTrack(a.detail.moving_time, [50.8466, 4.3528], a.detail.id % 1000))
      }
      const keys = (query.keys ?? "time,distance").split(",").filter((k) => k !== "")
      const wanted = Object.fromEntries(
        Object.entries(a.streams).filter(([k]) => keys.includes(k) || k === "time" || k === "distance")
      )
      if (query.key_by_type === "true") return json(res, 200, wanted, headers)
      return json(res, 200, Object.entries(wanted).map(([type, s]) => ({ type, ...(s as object) })), headers)
    }
    return json(res, 404, fault("Record Not Found", "Route", "path", "invalid"), headers)
  }

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1")
    const query = Object.fromEntries(url.searchParams)
    requests.push({
      method: req.method ?? "GET",
      path: url.pathname,
      query,
      authorization: req.headers.authorization,
      at: Date.now()
    })
    readBody(req).then(async (body) => {
      if (url.pathname === "/oauth/token" && req.method === "POST") return handleOauth(req, res, body)
      const photo = /^\/photos\/([^/]+)\.jpg$/.exec(url.pathname)
      if (photo && req.method === "GET") {
        const known = [...state.activities.values()].some((a) => a.photos.some((p) => p.unique_id === photo[1]))
        if (!known) return json(res, 404, { message: "Not Found" })
        res.writeHead(200, { "content-type": "image/jpeg", "content-length": String(TINY_JPEG.length) })
        return res.end(TINY_JPEG)
      }
      if (url.pathname.startsWith("/api/v3/")) return handleApi(req, res, url.pathname, query, body)
      return json(res, 404, fault("Record Not Found", "Route", "path", "invalid"))
    }).catch((e: unknown) => {
      if (!res.headersSent) json(res, 500, { message: "Fake Strava error", errors: [{ resource: "Fake", field: "", code: String(e) }] })
      else res.end()
    })
  })

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => resolve())
  })
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

  const fake: FakeStrava = {
    url: baseUrl,
    state,
    requests,
    get tokenGrants() {
      return state.tokenGrants
    },
    get apiRequests() {
      return requests.filter((r) => r.path.startsWith("/api/v3/"))
    },
    addActivity,
    addActivities(count) {
      const now = Math.floor(Date.now() / 1000) * 1000
      const added: Array<FakeActivityDetail> = []
      for (let i = 0; i < count; i++) added.push(addLightActivity(now - (i + 1) * 86_400_000))
      return added
    },
    updateActivity(id, patch) {
      const a = state.activities.get(id)
      if (!a) throw new Error(`FakeStrava: no activity ${id}`)
      a.detail = { ...a.detail, ...patch, id }
      return a.detail
    },
    removeActivity(id) {
      return state.activities.delete(id)
    },
    addGear,
    rateLimitNext(count, window = "15min") {
      for (let i = 0; i < count; i++) state.queued.push({ status: 429, body: FAULTS.rateLimit, usage: window })
    },
    failNext(count, status, body) {
      const b = body ?? fault(http.STATUS_CODES[status] ?? "Error", "Fake", "status", String(status))
      for (let i = 0; i < count; i++) state.queued.push({ status, body: b })
    },
    setFailure(mode) {
      state.failure = mode
    },
    setLimits(limits) {
      state.limits = { ...state.limits, ...limits }
    },
    setUsage(usage) {
      Object.assign(state.usage, usage)
    },
    resetWindow(window = "15min") {
      if (window === "15min" || window === "all") {
        state.usage.overall15 = 0
        state.usage.read15 = 0
      }
      if (window === "daily" || window === "all") {
        state.usage.overallDaily = 0
        state.usage.readDaily = 0
      }
    },
    expireAccessTokens() {
      for (const token of state.accessTokens.keys()) state.accessTokens.set(token, 0)
    },
    reauthorize() {
      state.refreshToken = `fake-refresh-${randomBytes(16).toString("hex")}`
      return state.refreshToken
    },
    validateCallback: validate,
    async sendWebhookEvent(callbackUrl, event) {
      const payload = {
        aspect_type: event.aspect_type,
        event_time: event.event_time ?? Math.floor(Date.now() / 1000),
        object_id: event.object_id,
        object_type: event.object_type ?? "activity",
        owner_id: event.owner_id ?? athleteId,
        subscription_id: event.subscription_id ?? [...state.subscriptions.keys()][0] ?? 1,
        updates: event.updates ?? {}
      }
      const res = await fetch(callbackUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(payload),
        signal: AbortSignal.timeout(callbackTimeoutMs)
      })
      return { status: res.status, body: await res.text() }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
  return fake
}
