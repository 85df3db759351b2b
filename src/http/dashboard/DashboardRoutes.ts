import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { RIDES, RUNS, SPORT_TYPES, SWIMS } from "../../schema/SportType.ts"
import { MapTiles } from "../../services/maps/MapTiles.ts"
import { ApiKey } from "../../services/platform/ApiKey.ts"
import { AppConfig } from "../../services/platform/AppConfig.ts"
import { VERSION } from "../../services/platform/version.ts"
import { WrongKeys } from "../WrongKeys.ts"
import { DashboardSessions, SESSION_COOKIE, SESSION_TTL_SECONDS, sameOrigin } from "./DashboardSessions.ts"
import type { ServedRoutes } from "../RouteTable.ts"
import type { ShellConfig } from "./pages.ts"

/**
 * The web dashboard on the API's own port: `/` (the sign-in page, or the app once signed in),
 * `POST /sign-in` and `POST /sign-out`, and the bundled scripts and styles under
 * `/dashboard/assets/` (built by `npm run build` into dist/dashboard; nothing comes from
 * elsewhere, map tiles included: they are the daemon's `/tiles`). The app reads everything through the public API with the session
 * cookie.
 */

export const ASSETS_DIR = fileURLToPath(new URL("../../../dist/dashboard/", import.meta.url))

const ASSET_NAME = /^[A-Za-z0-9-]+\.(js|css|svg|png)$/

/** A chunk of the split code, named by its content: the same name never holds other bytes. */
const CHUNK_NAME = /^chunk-[A-Z0-9]+\.js$/
const ASSET_TYPES: Record<string, string> = {
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
  svg: "image/svg+xml",
  png: "image/png"
}

/** The page's headers: no inline script, nothing loaded from elsewhere (map tiles too come from the daemon). */
const securityHeaders = {
  "content-security-policy": [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data: blob:",
    "connect-src 'self'",
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'"
  ].join("; "),
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin",
  "x-frame-options": "DENY",
  "cache-control": "no-store"
}

/** The built files, read once and again whenever a rebuild changed them. */
const assetCache = new Map<string, { readonly mtimeMs: number; readonly bytes: Uint8Array }>()
const readAsset = (name: string): Uint8Array | undefined => {
  const file = path.join(ASSETS_DIR, name)
  try {
    const { mtimeMs } = fs.statSync(file)
    const cached = assetCache.get(name)
    if (cached !== undefined && cached.mtimeMs === mtimeMs) return cached.bytes
    const bytes = fs.readFileSync(file)
    assetCache.set(name, { mtimeMs, bytes })
    return bytes
  } catch {
    return undefined
  }
}

const SHELL_PATH = "/"
const SIGN_IN_PATH = "/sign-in"
const SIGN_OUT_PATH = "/sign-out"
const ASSETS_PATH = "/dashboard/assets/:name"

const DashboardRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const config = yield* AppConfig
    const apiKey = yield* ApiKey
    const sessions = yield* DashboardSessions
    const wrongKeys = yield* WrongKeys
    const maps = yield* MapTiles
    const headers = securityHeaders
    const shell: ShellConfig = {
      version: `v${VERSION}`,
      unitSystem: config.unitSystem,
      map: maps.client,
      canUpload: config.importMode === "files",
      sportTypes: SPORT_TYPES,
      sportGroups: { rides: [...RIDES], runs: [...RUNS], swims: [...SWIMS] }
    }
    // the pages' templates, loaded with the first page asked for
    const pages = yield* Effect.cached(Effect.promise(() => import("./pages.ts")))
    const html = (body: string, status = 200) => HttpServerResponse.text(body, { status, contentType: "text/html; charset=utf-8", headers })
    const isBuilt = () => fs.existsSync(path.join(ASSETS_DIR, "app.js"))

    const secure = (request: HttpServerRequest.HttpServerRequest) =>
      config.appUrl.startsWith("https:") || request.headers["x-forwarded-proto"]?.split(",")[0]?.trim() === "https"
    const cookie = (request: HttpServerRequest.HttpServerRequest, value: string, maxAge: number) =>
      `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAge}${secure(request) ? "; Secure" : ""}`
    const seeOther = (location: string, setCookie?: string) =>
      HttpServerResponse.empty({ status: 303, headers: { ...headers, location, ...(setCookie === undefined ? {} : { "set-cookie": setCookie }) } })

    yield* router.get(
      SHELL_PATH,
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        if (!apiKey.isConfigured) return html((yield* pages).signInPage({ configured: false }), 503)
        if (!sessions.isSignedIn(request.headers["cookie"])) return html((yield* pages).signInPage({ configured: true }))
        if (!isBuilt()) return html((yield* pages).signInPage({ configured: true, notBuilt: true }), 503)
        return html((yield* pages).shellPage(shell))
      })
    )

    yield* router.post(
      SIGN_IN_PATH,
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        if (!apiKey.isConfigured) return html((yield* pages).signInPage({ configured: false }), 503)
        if (!sameOrigin(request.headers, config.appUrl)) return html((yield* pages).signInPage({ configured: true, error: "Sign in from this page." }), 403)
        const form = yield* Effect.orElseSucceed(request.urlParamsBody, () => [] as ReadonlyArray<readonly [string, string]>)
        const key = Redacted.make(form.find(([name]) => name === "key")?.[1]?.trim() ?? "")
        if (Either.isLeft(apiKey.check(`Bearer ${Redacted.value(key)}`))) {
          // slowed down per address, then refused for a while (WrongKeys)
          const counted = yield* Effect.either(wrongKeys.wrongKey(Option.getOrUndefined(request.remoteAddress), "sign-in"))
          if (Either.isLeft(counted)) {
            return html((yield* pages).signInPage({ configured: true, error: counted.left.message }), 429).pipe(
              HttpServerResponse.setHeader("retry-after", String(counted.left.retryAfterSeconds))
            )
          }
          return html((yield* pages).signInPage({ configured: true, error: "That key is not the service's API key." }), 401)
        }
        return seeOther("/", cookie(request, sessions.open(), SESSION_TTL_SECONDS))
      })
    )

    yield* router.post(
      SIGN_OUT_PATH,
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        if (!sameOrigin(request.headers, config.appUrl)) return html((yield* pages).signInPage({ configured: true, error: "Sign out from the dashboard." }), 403)
        sessions.close(request.headers["cookie"])
        return seeOther("/", cookie(request, "", 0))
      })
    )

    yield* router.get(
      ASSETS_PATH,
      Effect.gen(function*() {
        const { name } = yield* HttpRouter.params
        const request = yield* HttpServerRequest.HttpServerRequest
        const notFound = HttpServerResponse.text("Not found.", { status: 404 })
        if (name === undefined || !ASSET_NAME.test(name)) return notFound
        const gzip = /\bgzip\b/.test(request.headers["accept-encoding"] ?? "")
        const bytes = readAsset(gzip ? `${name}.gz` : name) ?? (gzip ? readAsset(name) : undefined)
        if (bytes === undefined) return notFound
        const encoded = gzip && bytes.length > 0 && bytes[0] === 0x1f && bytes[1] === 0x8b
        return HttpServerResponse.uint8Array(bytes, {
          contentType: ASSET_TYPES[name.split(".").pop()!]!,
          headers: {
            "cache-control": CHUNK_NAME.test(name) ? "public, max-age=31536000, immutable" : "no-cache",
            "x-content-type-options": "nosniff",
            vary: "accept-encoding",
            ...(encoded ? { "content-encoding": "gzip" } : {})
          }
        })
      })
    )
  })
)

export const DashboardRoutes: ServedRoutes<never, Layer.Layer.Context<typeof DashboardRoutesLive>> = {
  routes: [
    { method: "GET", path: SHELL_PATH },
    { method: "POST", path: SIGN_IN_PATH },
    { method: "POST", path: SIGN_OUT_PATH },
    { method: "GET", path: ASSETS_PATH }
  ],
  live: DashboardRoutesLive
}
