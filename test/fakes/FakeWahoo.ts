/**
 * A fake Wahoo Cloud API for tests: a plain node:http server on 127.0.0.1 (random port) that
 * behaves like the documented API. Start one with `startFakeWahoo()`, point
 * `PROVIDER_B_API_URL` at `fake.url`, and `await fake.close()` at the end.
 *
 * - `GET /oauth/authorize`: the account holder approves at once (as when already signed in):
 *   302 to `redirect_uri?code=...&state=...`, or `?error=access_denied` after `denyNext()`;
 *   an unknown client or a redirect URI other than the registered one gets a 400 page.
 * - `POST /oauth/token` (form): `authorization_code` (single-use code, same redirect_uri) and
 *   `refresh_token` (single-use: the answer carries a new one and the old one stops working).
 *   Access tokens live `accessTokenSeconds` (2 h by default, like Wahoo).
 * - `GET /v1/workouts?page&per_page`: the account's workouts sorted by `starts`, newest first,
 *   each with `workout_summary.file.url` pointing at `/files/<id>.fit` here (no auth), with
 *   `X-RateLimit-Limit` / `X-RateLimit-Remaining` ("day, hour, 5min") and `X-RateLimit-Reset`;
 *   429 with `Retry-After` once a window is spent; 401 for a missing, unknown or expired token.
 */
import { randomBytes } from "node:crypto"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { readBody } from "./readBody.ts"

export interface FakeWahooLimits {
  readonly day: number
  readonly hour: number
  readonly fiveMin: number
}

export interface FakeWahooOptions {
  readonly clientId?: string
  readonly clientSecret?: string
  /** The redirect URI registered for the application; default: any. */
  readonly redirectUri?: string
  /** Lifetime of access tokens in seconds; default 7200. */
  readonly accessTokenSeconds?: number
  /** Sandbox limits by default: 250 a day, 100 an hour, 25 per 5 minutes. */
  readonly limits?: Partial<FakeWahooLimits>
  /** Seconds announced in `X-RateLimit-Reset` and `Retry-After`; default 1 (tests must not wait long). */
  readonly resetSeconds?: number
  /** Milliseconds before a file download answers (to hold a sync in progress); default 0. */
  readonly fileDelayMs?: number
}

export interface FakeWorkoutInput {
  readonly id?: number
  readonly starts: Date | string
  readonly name?: string
  /** The FIT bytes served at its file URL; `null` for a workout without a file. */
  readonly file?: Uint8Array | null
}

export interface FakeWorkout {
  readonly id: number
  readonly starts: string
  readonly name: string
  file: Uint8Array | null
}

export interface FakeRequest {
  readonly method: string
  readonly path: string
  readonly query: Readonly<Record<string, string>>
  readonly authorization: string | undefined
  readonly form: Readonly<Record<string, string>>
}

export interface FakeWahoo {
  readonly url: string
  readonly clientId: string
  readonly clientSecret: string
  /** Every request received, oldest first. */
  readonly requests: Array<FakeRequest>
  readonly workouts: ReadonlyArray<FakeWorkout>
  /** Refresh tokens issued, in order (only the last is valid). */
  readonly refreshTokens: ReadonlyArray<string>
  /** Calls to `/oauth/token` that issued tokens. */
  readonly grants: () => number
  /** Counted calls to `/v1/*` in each window. */
  readonly usage: { day: number; hour: number; fiveMin: number }
  addWorkout(input: FakeWorkoutInput): FakeWorkout
  /** Gives (or takes) a workout's file. */
  setFile(id: number, file: Uint8Array | null): void
  /** The file URL of the workout answers 500 (true) or its bytes again (false). */
  breakFile(id: number, broken: boolean): void
  /** Downloads of each file id so far. */
  readonly downloads: Map<number, number>
  /** The next `count` API calls answer 429 with `Retry-After: retryAfterSeconds`. */
  rateLimitNext(count: number, retryAfterSeconds?: number): void
  /** The next `count` API calls answer `status` with Wahoo's error body. */
  failNext(count: number, status: number): void
  /** Every access token issued so far stops working (401). */
  expireAccessTokens(): void
  /** Every refresh token stops working: the account holder revoked the application. */
  revoke(): void
  /** The next authorization is refused by the account holder. */
  denyNext(): void
  /** Starts all rate-limit windows afresh. */
  resetUsage(): void
  /** Requests to a path (e.g. "/v1/workouts"). */
  requestsTo(path: string): ReadonlyArray<FakeRequest>
  close(): Promise<void>
}

const token = (prefix: string) => `${prefix}-${randomBytes(12).toString("hex")}`

const isoSeconds = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, ".000Z")

export const startFakeWahoo = async (options: FakeWahooOptions = {}): Promise<FakeWahoo> => {
  const clientId = options.clientId ?? "fake-wahoo-client"
  const clientSecret = options.clientSecret ?? "fake-wahoo-secret-0123456789"
  const accessTokenSeconds = options.accessTokenSeconds ?? 7200
  const limits: FakeWahooLimits = { day: 250, hour: 100, fiveMin: 25, ...options.limits }
  const resetSeconds = options.resetSeconds ?? 1
  const requests: Array<FakeRequest> = []
  const workouts: Array<FakeWorkout> = []
  const codes = new Map<string, { redirectUri: string }>()
  const accessTokens = new Map<string, number>()
  const refreshTokens: Array<string> = []
  const validRefresh = new Set<string>()
  const usage = { day: 0, hour: 0, fiveMin: 0 }
  const queued: Array<{ status: number; retryAfter?: number }> = []
  const broken = new Set<number>()
  const downloads = new Map<number, number>()
  let grants = 0
  let deny = false
  let nextId = 1000
  let url = ""

  const send = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    const text = typeof body === "string" ? body : JSON.stringify(body)
    res.writeHead(status, {
      "content-type": typeof body === "string" ? "text/html; charset=utf-8" : "application/json; charset=utf-8",
      "content-length": String(Buffer.byteLength(text)),
      ...headers
    })
    res.end(text)
  }

  const rateHeaders = (): Record<string, string> => ({
    "X-RateLimit-Limit": `${limits.day}, ${limits.hour}, ${limits.fiveMin}`,
    "X-RateLimit-Remaining": `${Math.max(0, limits.day - usage.day)}, ${Math.max(0, limits.hour - usage.hour)}, ${
      Math.max(0, limits.fiveMin - usage.fiveMin)
    }`,
    "X-RateLimit-Reset": String(resetSeconds)
  })

  const issue = () => {
    grants++
    const access = token("access")
    const refresh = token("refresh")
    accessTokens.set(access, Date.now() + accessTokenSeconds * 1000)
    validRefresh.clear()
    validRefresh.add(refresh)
    refreshTokens.push(refresh)
    return {
      access_token: access,
      refresh_token: refresh,
      expires_in: accessTokenSeconds,
      token_type: "Bearer",
      scope: "user_read workouts_read",
      created_at: Math.floor(Date.now() / 1000)
    }
  }

  const workoutJson = (w: FakeWorkout) => ({
    id: w.id,
    user_id: 42,
    starts: w.starts,
    minutes: 60,
    name: w.name,
    plan_id: null,
    workout_token: `token-${w.id}`,
    workout_type_id: 0,
    created_at: w.starts,
    updated_at: w.starts,
    workout_summary: {
      id: w.id + 500_000,
      ascent_accum: "120.0",
      distance_accum: "25000.0",
      duration_active_accum: "3600.0",
      starts: w.starts,
      file: w.file === null ? null : { url: `${url}/files/${w.id}.fit` }
    }
  })

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const parsed = new URL(req.url ?? "/", "http://127.0.0.1")
    const query = Object.fromEntries(parsed.searchParams)
    const body = req.method === "POST" ? await readBody(req) : ""
    const form = req.method === "POST"
      ? Object.fromEntries(new URLSearchParams((req.headers["content-type"] ?? "").includes("json") ? "" : body))
      : {}
    requests.push({ method: req.method ?? "GET", path: parsed.pathname, query, authorization: req.headers.authorization, form })

    if (req.method === "GET" && parsed.pathname === "/oauth/authorize") {
      const redirect = query["redirect_uri"] ?? ""
      if (query["client_id"] !== clientId) return send(res, 400, "<h1>Unknown application</h1>")
      if (options.redirectUri !== undefined && redirect !== options.redirectUri) {
        return send(res, 400, "<h1>The redirect uri included is not valid.</h1>")
      }
      if (query["response_type"] !== "code") return send(res, 400, "<h1>Unsupported response type</h1>")
      const target = new URL(redirect)
      if (deny) {
        deny = false
        target.searchParams.set("error", "access_denied")
        target.searchParams.set("error_description", "The resource owner or authorization server denied the request.")
      } else {
        const code = token("code")
        codes.set(code, { redirectUri: redirect })
        target.searchParams.set("code", code)
      }
      if (query["state"] !== undefined) target.searchParams.set("state", query["state"])
      res.writeHead(302, { location: target.toString() })
      return res.end()
    }

    if (req.method === "POST" && parsed.pathname === "/oauth/token") {
      const params = { ...query, ...form }
      if (params["client_id"] !== clientId || params["client_secret"] !== clientSecret) {
        return send(res, 401, { error: "invalid_client", error_description: "Client authentication failed due to unknown client." })
      }
      if (params["grant_type"] === "authorization_code") {
        const code = codes.get(params["code"] ?? "")
        if (code === undefined || code.redirectUri !== params["redirect_uri"]) {
          return send(res, 400, {
            error: "invalid_grant",
            error_description: "The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client."
          })
        }
        codes.delete(params["code"]!)
        return send(res, 200, issue())
      }
      if (params["grant_type"] === "refresh_token") {
        if (!validRefresh.has(params["refresh_token"] ?? "")) {
          return send(res, 400, {
            error: "invalid_grant",
            error_description: "The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client."
          })
        }
        return send(res, 200, issue())
      }
      return send(res, 400, { error: "unsupported_grant_type", error_description: "The authorization grant type is not supported." })
    }

    const file = /^\/files\/(\d+)\.fit$/.exec(parsed.pathname)
    if (req.method === "GET" && file !== null) {
      const workout = workouts.find((w) => w.id === Number(file[1]))
      if (workout === undefined || workout.file === null) return send(res, 404, "<Error><Code>NoSuchKey</Code></Error>")
      if (options.fileDelayMs !== undefined) await new Promise((r) => setTimeout(r, options.fileDelayMs))
      if (broken.has(workout.id)) return send(res, 500, "<Error><Code>InternalError</Code></Error>")
      downloads.set(workout.id, (downloads.get(workout.id) ?? 0) + 1)
      res.writeHead(200, { "content-type": "application/octet-stream", "content-length": String(workout.file.byteLength) })
      return res.end(Buffer.from(workout.file))
    }

    if (parsed.pathname.startsWith("/v1/")) {
      const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1]
      const expires = bearer === undefined ? undefined : accessTokens.get(bearer)
      if (expires === undefined || expires <= Date.now()) {
        return send(res, 401, { error: "Unauthorized" }, { "www-authenticate": 'Bearer realm="Doorkeeper", error="invalid_token"' })
      }
      const canned = queued.shift()
      if (canned !== undefined && canned.status === 429) {
        return send(res, 429, { error: "Too Many Requests" }, { ...rateHeaders(), "Retry-After": String(canned.retryAfter ?? resetSeconds) })
      }
      if (canned !== undefined) return send(res, canned.status, { error: `failure ${canned.status}` }, rateHeaders())
      if (usage.day >= limits.day || usage.hour >= limits.hour || usage.fiveMin >= limits.fiveMin) {
        return send(res, 429, { error: "Too Many Requests" }, { ...rateHeaders(), "Retry-After": String(resetSeconds) })
      }
      usage.day++
      usage.hour++
      usage.fiveMin++
      if (req.method === "GET" && parsed.pathname === "/v1/workouts") {
        const page = Math.max(1, Number(query["page"] ?? 1) || 1)
        const perPage = Math.min(100, Math.max(1, Number(query["per_page"] ?? 30) || 30))
        const sorted = [...workouts].sort((a, b) => b.starts.localeCompare(a.starts))
        return send(res, 200, {
          workouts: sorted.slice((page - 1) * perPage, page * perPage).map(workoutJson),
          total: sorted.length,
          page,
          per_page: perPage,
          order: "descending",
          sort: "starts"
        }, rateHeaders())
      }
      if (req.method === "GET" && parsed.pathname === "/v1/user") {
        return send(res, 200, { id: 42, first: "Test", last: "Rider", email: "rider@example.test" }, rateHeaders())
      }
      return send(res, 404, { error: "Not found" }, rateHeaders())
    }
    return send(res, 404, { error: "Not found" })
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((e) => {
      if (!res.headersSent) send(res, 500, { error: String(e) })
      else res.destroy()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

  return {
    url,
    clientId,
    clientSecret,
    requests,
    workouts,
    refreshTokens,
    grants: () => grants,
    usage,
    addWorkout(input) {
      const starts = typeof input.starts === "string" ? input.starts : isoSeconds(input.starts.getTime())
      const workout: FakeWorkout = {
        id: input.id ?? nextId++,
        starts,
        name: input.name ?? "Cycling",
        file: input.file === undefined ? new TextEncoder().encode(`FIT ${starts}`) : input.file
      }
      workouts.push(workout)
      return workout
    },
    downloads,
    breakFile(id, isBroken) {
      if (isBroken) broken.add(id)
      else broken.delete(id)
    },
    setFile(id, file) {
      const workout = workouts.find((w) => w.id === id)
      if (workout === undefined) throw new Error(`no workout ${id}`)
      workout.file = file
    },
    rateLimitNext(count, retryAfterSeconds) {
      for (let i = 0; i < count; i++) queued.push({ status: 429, ...(retryAfterSeconds !== undefined ? { retryAfter: retryAfterSeconds } : {}) })
    },
    failNext(count, status) {
      for (let i = 0; i < count; i++) queued.push({ status })
    },
    expireAccessTokens() {
      for (const key of accessTokens.keys()) accessTokens.set(key, 0)
    },
    revoke() {
      validRefresh.clear()
      accessTokens.clear()
    },
    denyNext() {
      deny = true
    },
    resetUsage() {
      usage.day = 0
      usage.hour = 0
      usage.fiveMin = 0
    },
    requestsTo(path) {
      return requests.filter((r) => r.path === path)
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}
