/**
 * A fake Polar for tests: a plain node:http server on 127.0.0.1 (random port) that behaves like
 * Polar's OAuth endpoints and AccessLink v3 as documented: the authorize page (approving at
 * once, or refusing), the token endpoint (client credentials as HTTP Basic, single-use codes
 * bound to their redirect_uri; a replayed code deletes every token of the account), user
 * registration (409 when registered already), the exercises uploaded after registration and
 * within 30 days with their FIT, TCX (gzipped) and GPX files, the client's one webhook (PING to
 * the URL before creation, signing key shown once, HMAC-SHA256 signatures of deliveries,
 * activation), `RateLimit-*` headers on every AccessLink answer, 429 beyond the limits, 401 for
 * a revoked token, 403 while consents are missing. Start one with `startFakePolar()`, point the
 * connector at `fake.apiUrl` / `fake.authUrl` / `fake.tokenUrl`, and `await fake.close()`.
 */
import { createHmac, randomBytes } from "node:crypto"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { gzipSync } from "node:zlib"

export interface FakeExerciseFiles {
  readonly fit?: Uint8Array
  readonly tcx?: string
  readonly gpx?: string
}

export interface FakeExercise {
  readonly id: string
  /** UTC, ISO */
  readonly uploadTime: string
  /** UTC start, ISO */
  readonly startTime: string
  /** minutes east of UTC, as Polar reports the local start */
  readonly utcOffsetMinutes?: number
  readonly sport?: string
  readonly detailedSport?: string
  readonly files: FakeExerciseFiles
}

export interface FakePolarOptions {
  readonly clientId?: string
  readonly clientSecret?: string
  readonly userId?: number
  /** the client's one registered redirect address, used when an authorize request has none */
  readonly registeredRedirectUri?: string
  /** short / long window limits (Polar: 500 + 20 per user, 5000 + 100 per user) */
  readonly shortLimit?: number
  readonly longLimit?: number
}

export interface FakeRequest {
  readonly method: string
  readonly path: string
  readonly authorization: string | undefined
  readonly body: string
  readonly at: number
}

export interface FakeWebhook {
  id: string
  url: string
  events: Array<string>
  active: boolean
  key: string
}

export interface FakePolar {
  readonly url: string
  readonly apiUrl: string
  readonly authUrl: string
  readonly tokenUrl: string
  readonly clientId: string
  readonly clientSecret: string
  readonly userId: number
  readonly requests: Array<FakeRequest>
  /** Adds an exercise to the account (uploaded now unless said otherwise). */
  readonly addExercise: (exercise: Omit<FakeExercise, "uploadTime"> & { readonly uploadTime?: string }) => void
  /** Polar refuses every token issued so far (401), as after a revocation. */
  readonly revokeTokens: () => void
  readonly setConsentsMissing: (missing: boolean) => void
  /** Answers the next `count` requests whose path starts with `pathPrefix` with `status`. */
  readonly failNext: (pathPrefix: string, status: number, count?: number) => void
  /** Authorize requests are refused by the user (error=access_denied). */
  readonly setDenyAuthorization: (deny: boolean) => void
  /** Usage of both windows so far (for tests that start near a limit). */
  readonly setUsage: (short: number, long?: number) => void
  readonly registeredMembers: () => ReadonlyArray<string>
  readonly webhook: () => FakeWebhook | undefined
  readonly deactivateWebhook: () => void
  /** Posts an EXERCISE event for `exerciseId` to the webhook, signed; answers the status. */
  readonly deliverEvent: (exerciseId: string, options?: { readonly signature?: string | null }) => Promise<number>
  /** Runs the authorize step as a browser would: follows Polar's redirect to the connector; answers the connector's page. */
  readonly browserAuthorize: (startUrl: string) => Promise<{ status: number; text: string; redirectedTo: string }>
  readonly close: () => Promise<void>
}

const DAY = 86_400_000

const json = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { "content-type": "application/json;charset=UTF-8", ...headers })
  res.end(JSON.stringify(body))
}

const polarError = (res: http.ServerResponse, status: number, message: string, headers: Record<string, string> = {}) =>
  json(res, status, {
    timestamp: new Date().toISOString(),
    status,
    errorType: status === 403 ? "FORBIDDEN" : status === 404 ? "NOT_FOUND" : status === 409 ? "CONFLICT" : "ERROR",
    message,
    corrId: randomBytes(8).toString("hex")
  }, headers)

/** Local time without offset, as Polar writes `start_time`. */
const localTime = (utc: string, offsetMinutes: number) => new Date(Date.parse(utc) + offsetMinutes * 60_000).toISOString().slice(0, 19)

export const startFakePolar = (options: FakePolarOptions = {}): Promise<FakePolar> => {
  const clientId = options.clientId ?? "fake-client-id"
  const clientSecret = options.clientSecret ?? "fake-client-secret"
  const userId = options.userId ?? 4_711_815
  const shortLimit = options.shortLimit ?? 520
  const longLimit = options.longLimit ?? 5100
  const requests: Array<FakeRequest> = []
  const exercises: Array<FakeExercise> = []
  const codes = new Map<string, { redirectUri: string | null; expires: number; used: boolean }>()
  const tokens = new Map<string, { valid: boolean }>()
  const members = new Map<string, string>()
  let registeredAt: number | undefined
  let consentsMissing = false
  let denyAuthorization = false
  const failures: Array<{ prefix: string; status: number; count: number }> = []
  let usage = { short: 0, long: 0 }
  const windowStart = Date.now()
  let webhook: FakeWebhook | undefined
  let baseUrl = ""

  const basicOk = (header: string | undefined) =>
    header === `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString("base64")}`

  const rateHeaders = () => {
    const elapsed = Math.floor((Date.now() - windowStart) / 1000)
    return {
      "RateLimit-Usage": `${usage.short}, ${usage.long}`,
      "RateLimit-Limit": `${shortLimit}, ${longLimit}`,
      "RateLimit-Reset": `${Math.max(1, 900 - (elapsed % 900))}, ${Math.max(1, 86_400 - (elapsed % 86_400))}`
    }
  }

  const readBody = (req: http.IncomingMessage) =>
    new Promise<string>((resolve) => {
      const chunks: Array<Buffer> = []
      req.on("data", (c: Buffer) => chunks.push(c))
      req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
      req.on("error", () => resolve(""))
    })

  const ping = async (url: string): Promise<boolean> => {
    try {
      const response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", "Polar-Webhook-Event": "PING" },
        body: JSON.stringify({ event: "PING", timestamp: new Date().toISOString() }),
        signal: AbortSignal.timeout(5000)
      })
      await response.arrayBuffer()
      return response.status === 200
    } catch {
      return false
    }
  }

  const userToken = (req: http.IncomingMessage) => {
    const header = req.headers.authorization ?? ""
    const token = header.startsWith("Bearer ") ? header.slice(7) : ""
    return tokens.get(token)?.valid === true ? token : undefined
  }

  const visibleExercises = () =>
    exercises.filter((e) =>
      registeredAt !== undefined && Date.parse(e.uploadTime) >= registeredAt - 1000 && Date.parse(e.uploadTime) >= Date.now() - 30 * DAY
    )

  const exerciseJson = (e: FakeExercise) => ({
    id: e.id,
    upload_time: e.uploadTime,
    polar_user: `${baseUrl}/v3/users/${userId}`,
    device: "Polar Vantage V2",
    device_id: "1111AAAA",
    start_time: localTime(e.startTime, e.utcOffsetMinutes ?? 0),
    start_time_utc_offset: e.utcOffsetMinutes ?? 0,
    duration: "PT30M",
    calories: 300,
    distance: 5000,
    heart_rate: { average: 140, maximum: 170 },
    training_load: 50,
    sport: e.sport ?? "RUNNING",
    has_route: e.files.gpx !== undefined,
    detailed_sport_info: e.detailedSport ?? e.sport ?? "RUNNING"
  })

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const url = new URL(req.url ?? "/", baseUrl)
    const body = await readBody(req)
    requests.push({ method: req.method ?? "", path: url.pathname, authorization: req.headers.authorization, body, at: Date.now() })

    // OAuth -------------------------------------------------------------------------------
    if (req.method === "GET" && url.pathname === "/oauth2/authorization") {
      const redirect = url.searchParams.get("redirect_uri")
      if (url.searchParams.get("client_id") !== clientId || url.searchParams.get("response_type") !== "code") {
        res.writeHead(200, { "content-type": "text/html" })
        return res.end("<p>Oops, something went wrong (unknown client)</p>")
      }
      const target = redirect ?? options.registeredRedirectUri
      if (target === undefined) {
        res.writeHead(200, { "content-type": "text/html" })
        return res.end("<p>Oops, something went wrong (no redirect address)</p>")
      }
      const back = new URL(target)
      const state = url.searchParams.get("state")
      if (state !== null) back.searchParams.set("state", state)
      if (denyAuthorization) {
        back.searchParams.set("error", "access_denied")
      } else {
        const code = randomBytes(12).toString("hex")
        codes.set(code, { redirectUri: redirect, expires: Date.now() + 10 * 60_000, used: false })
        back.searchParams.set("code", code)
      }
      res.writeHead(303, { location: back.toString() })
      return res.end()
    }
    if (req.method === "POST" && url.pathname === "/v2/oauth2/token") {
      if (!basicOk(req.headers.authorization)) return json(res, 401, { error: "invalid_client" })
      if (!(req.headers["content-type"] ?? "").startsWith("application/x-www-form-urlencoded")) {
        return json(res, 400, { error: "invalid_request", error_description: "form body expected" })
      }
      const form = new URLSearchParams(body)
      const code = form.get("code") ?? ""
      const grant = codes.get(code)
      if (form.get("grant_type") !== "authorization_code" || grant === undefined || grant.expires < Date.now()) {
        return json(res, 400, { error: "invalid_grant", error_description: "Invalid authorization code" })
      }
      if (grant.used) {
        // a replayed code: Polar deletes every token of the account
        for (const t of tokens.values()) t.valid = false
        return json(res, 400, { error: "invalid_grant", error_description: "Authorization code already used" })
      }
      if ((form.get("redirect_uri") ?? null) !== grant.redirectUri) {
        return json(res, 400, { error: "invalid_grant", error_description: "redirect_uri does not match" })
      }
      grant.used = true
      const token = randomBytes(16).toString("hex")
      tokens.set(token, { valid: true })
      return json(res, 200, { access_token: token, token_type: "bearer", expires_in: 31_535_999, x_user_id: userId })
    }

    // AccessLink --------------------------------------------------------------------------
    if (!url.pathname.startsWith("/v3/")) return polarError(res, 404, "Not found")
    const failure = failures.find((f) => url.pathname.startsWith(f.prefix) && f.count > 0)
    if (failure !== undefined) {
      failure.count--
      const headers = failure.status === 429 ? { ...rateHeaders(), "Retry-After": "60" } : rateHeaders()
      return polarError(res, failure.status, `injected ${failure.status}`, headers)
    }
    usage = { short: usage.short + 1, long: usage.long + 1 }
    if (usage.short > shortLimit || usage.long > longLimit) return polarError(res, 429, "Rate limit exceeded", rateHeaders())
    const limits = rateHeaders()

    if (url.pathname === "/v3/webhooks" || url.pathname.startsWith("/v3/webhooks/")) {
      if (!basicOk(req.headers.authorization)) return polarError(res, 401, "Unauthorized", limits)
      const id = url.pathname.slice("/v3/webhooks/".length)
      if (req.method === "POST" && url.pathname === "/v3/webhooks") {
        if (webhook !== undefined) return polarError(res, 409, "Webhook already exists", limits)
        let requested: { events?: Array<string>; url?: string }
        try {
          requested = JSON.parse(body)
        } catch {
          return polarError(res, 400, "Invalid body", limits)
        }
        if (typeof requested.url !== "string" || !Array.isArray(requested.events)) return polarError(res, 400, "url and events required", limits)
        if (!(await ping(requested.url))) return polarError(res, 400, "Webhook url did not answer the ping with 200", limits)
        webhook = { id: randomBytes(6).toString("hex"), url: requested.url, events: requested.events, active: true, key: randomBytes(16).toString("hex") }
        return json(res, 201, { data: { id: webhook.id, events: webhook.events, url: webhook.url, signature_secret_key: webhook.key } }, limits)
      }
      if (req.method === "GET" && url.pathname === "/v3/webhooks") {
        return json(res, 200, { data: webhook === undefined ? [] : [{ id: webhook.id, events: webhook.events, url: webhook.url, active: webhook.active }] }, limits)
      }
      if (req.method === "POST" && (id === "activate" || id === "deactivate")) {
        if (webhook === undefined) {
          res.writeHead(204, limits)
          return res.end()
        }
        if (id === "activate") {
          if (!(await ping(webhook.url))) return polarError(res, 400, "Webhook url did not answer the ping with 200", limits)
          webhook.active = true
        } else {
          webhook.active = false
        }
        return json(res, 200, {}, limits)
      }
      if (webhook === undefined || id !== webhook.id) return polarError(res, 404, "Webhook not found", limits)
      if (req.method === "PATCH") {
        const requested = JSON.parse(body || "{}") as { url?: string; events?: Array<string> }
        if (requested.url !== undefined && requested.url !== webhook.url) {
          if (!(await ping(requested.url))) return polarError(res, 400, "Webhook url did not answer the ping with 200", limits)
          webhook.url = requested.url
        }
        if (requested.events !== undefined) webhook.events = requested.events
        return json(res, 200, { data: { id: webhook.id, events: webhook.events, url: webhook.url } }, limits)
      }
      if (req.method === "DELETE") {
        webhook = undefined
        res.writeHead(204, limits)
        return res.end()
      }
      return polarError(res, 405, "Method not allowed", limits)
    }

    const token = userToken(req)
    if (token === undefined) return polarError(res, 401, "Unauthorized", limits)
    if (req.method === "POST" && url.pathname === "/v3/users") {
      let memberId: unknown
      try {
        memberId = (JSON.parse(body) as Record<string, unknown>)["member-id"]
      } catch {
        return polarError(res, 400, "Invalid body", limits)
      }
      if (typeof memberId !== "string" || memberId === "") return polarError(res, 400, "member-id required", limits)
      if (consentsMissing) return polarError(res, 403, "User has not accepted all mandatory consents.", limits)
      if (members.has(String(userId))) return polarError(res, 409, "User already registered to partner or duplicated member-id", limits)
      members.set(String(userId), memberId)
      registeredAt = Date.now()
      return json(res, 200, {
        "polar-user-id": userId,
        "member-id": memberId,
        "registration-date": new Date().toISOString(),
        "first-name": "Test",
        "last-name": "Runner"
      }, limits)
    }
    if (consentsMissing) return polarError(res, 403, "User has not accepted all mandatory consents.", limits)
    if (registeredAt === undefined) return polarError(res, 403, "User is not registered", limits)
    if (req.method === "GET" && url.pathname === "/v3/exercises") return json(res, 200, visibleExercises().map(exerciseJson), limits)
    const match = /^\/v3\/exercises\/([^/]+)(?:\/(fit|tcx|gpx))?$/.exec(url.pathname)
    const exercise = match ? visibleExercises().find((e) => e.id === decodeURIComponent(match[1]!)) : undefined
    if (req.method === "GET" && match && exercise !== undefined) {
      const format = match[2] as "fit" | "tcx" | "gpx" | undefined
      if (format === undefined) return json(res, 200, exerciseJson(exercise), limits)
      const file = exercise.files[format]
      if (file === undefined) return polarError(res, 404, "No file", limits)
      const bytes = format === "tcx" ? gzipSync(Buffer.from(file as string)) : format === "gpx" ? Buffer.from(file as string) : Buffer.from(file as Uint8Array)
      res.writeHead(200, {
        ...limits,
        "content-type": format === "fit" ? "*/*" : format === "tcx" ? "application/vnd.garmin.tcx+xml" : "application/gpx+xml",
        "content-length": String(bytes.length)
      })
      return res.end(bytes)
    }
    return polarError(res, 404, "Not found", limits)
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      if (!res.headersSent) polarError(res, 500, String(e))
      else res.destroy()
    })
  })

  const browserAuthorize = async (startUrl: string) => {
    // the connector's /authorize sends the browser to Polar, Polar back to the connector
    const first = await fetch(startUrl, { redirect: "manual" })
    const toPolar = first.headers.get("location")
    if (toPolar === null) return { status: first.status, text: await first.text(), redirectedTo: "" }
    const second = await fetch(toPolar, { redirect: "manual" })
    const back = second.headers.get("location")
    if (back === null) return { status: second.status, text: await second.text(), redirectedTo: toPolar }
    const third = await fetch(back, { redirect: "manual" })
    return { status: third.status, text: await third.text(), redirectedTo: back }
  }

  const deliverEvent = async (exerciseId: string, opts: { readonly signature?: string | null } = {}) => {
    if (webhook === undefined) throw new Error("no webhook registered")
    const payload = JSON.stringify({
      event: "EXERCISE",
      user_id: userId,
      entity_id: exerciseId,
      timestamp: new Date().toISOString(),
      url: `${baseUrl}/v3/exercises/${exerciseId}`
    })
    const signature = opts.signature === undefined ? createHmac("sha256", webhook.key).update(payload).digest("hex") : opts.signature
    const headers: Record<string, string> = { "content-type": "application/json", "Polar-Webhook-Event": "EXERCISE" }
    if (signature !== null) headers["Polar-Webhook-Signature"] = signature
    const response = await fetch(webhook.url, { method: "POST", headers, body: payload })
    await response.arrayBuffer()
    return response.status
  }

  return new Promise((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
      resolve({
        url: baseUrl,
        apiUrl: baseUrl,
        authUrl: `${baseUrl}/oauth2/authorization`,
        tokenUrl: `${baseUrl}/v2/oauth2/token`,
        clientId,
        clientSecret,
        userId,
        requests,
        addExercise: (e) => void exercises.push({ ...e, uploadTime: e.uploadTime ?? new Date().toISOString() }),
        revokeTokens: () => {
          for (const t of tokens.values()) t.valid = false
        },
        setConsentsMissing: (missing) => {
          consentsMissing = missing
        },
        failNext: (prefix, status, count = 1) => void failures.push({ prefix, status, count }),
        setDenyAuthorization: (deny) => {
          denyAuthorization = deny
        },
        setUsage: (short, long) => {
          usage = { short, long: long ?? short }
        },
        registeredMembers: () => [...members.values()],
        webhook: () => webhook,
        deactivateWebhook: () => {
          if (webhook !== undefined) webhook.active = false
        },
        deliverEvent,
        browserAuthorize,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections()
            server.close(() => done())
          })
      })
    })
  })
}
