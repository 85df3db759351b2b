import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerError from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpTraceContext from "@effect/platform/HttpTraceContext"
import type * as Headers from "@effect/platform/Headers"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Runtime from "effect/Runtime"
import * as Tracer from "effect/Tracer"
import { AppConfig, type AppConfigShape } from "../services/platform/AppConfig.ts"
import { SHARE_PATH } from "../services/sharing/ShareLinks.ts"

/**
 * One log line and one trace span per request, naming the request by a URL whose secrets are
 * redacted: the value of every query parameter named like a credential (the platform's
 * `hub.verify_token`, `access_token`, `client_secret`, `api_key`, `code`...), anything shaped
 * like an API key, and every configured secret wherever a client put it. A query string is
 * chosen by the client, so it is never logged or traced as sent.
 *
 * Both ways in observe a request through the RequestLog service: the app's requests by
 * `app` (a middleware), the answers written in front of the app (DirectRoutes) by `answered`;
 * both name, parent and attribute the server span by `serverSpanOf` and write `logResponse`.
 */

export const REDACTED = "[redacted]"

/** Names of parameters whose value is a credential (matched on the decoded name, any case). */
const SECRET_NAME = /token|secret|key|passw(or)?d|pwd|code|signature|credential|auth|session|cookie/i

/** Our API keys, also when presented by mistake in a query string or a path. */
const API_KEY_SHAPE = /wmk_[0-9a-fA-F]{64}/g
/** A share link's token opens its page to whoever reads it: the path segment after SHARE_PATH. */
const SHARE_TOKEN = new RegExp(`^(${SHARE_PATH}/)[^/?#]+`, "i")

const decode = (raw: string) => {
  try {
    return decodeURIComponent(raw.replace(/\+/g, " "))
  } catch {
    return raw
  }
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/**
 * Replaces the secrets of a URL (path and query). `secrets` are removed wherever they
 * appear, raw or percent-encoded (in either case of hex digits).
 */
export const makeRedactor = (secrets: ReadonlyArray<string>) => {
  const patterns = secrets.filter((s) => s.length >= 4).flatMap((secret) => {
    const forms = new Set([secret, encodeURIComponent(secret), encodeURIComponent(secret).replace(/%20/g, "+")])
    return [...forms].map((form) => new RegExp(escapeRegExp(form), "gi"))
  })
  return (url: string): string => {
    const hash = url.indexOf("#")
    const withoutHash = hash === -1 ? url : url.slice(0, hash)
    const question = withoutHash.indexOf("?")
    let result = question === -1 ? withoutHash : withoutHash.slice(0, question)
    if (question !== -1) {
      const query = withoutHash.slice(question + 1)
      result += "?" + query.split("&").map((pair) => {
        const eq = pair.indexOf("=")
        if (eq === -1) return pair
        return SECRET_NAME.test(decode(pair.slice(0, eq))) ? `${pair.slice(0, eq + 1)}${REDACTED}` : pair
      }).join("&")
    }
    result = result.replace(API_KEY_SHAPE, REDACTED).replace(SHARE_TOKEN, `$1${REDACTED}`)
    for (const pattern of patterns) result = result.replace(pattern, REDACTED)
    return result
  }
}

/** `makeRedactor(secrets)` applied once. */
export const redactUrl = (url: string, secrets: ReadonlyArray<string> = []): string => makeRedactor(secrets)(url)

/** Every secret of the configuration, to be kept out of logs and traces. */
export const configuredSecrets = (config: AppConfigShape): ReadonlyArray<string> =>
  [config.apiKey, config.stravaClientSecret, config.stravaRefreshToken, config.webhooksVerifyToken]
    .flatMap((secret) => Option.toArray(Option.map(secret, Redacted.value)))
    .filter((s) => s !== "")

/**
 * The OpenTelemetry tracer reads a remote parent's sampling decision from this tag of the
 * parent's context (`OtelTraceFlags` of @effect/opentelemetry, the same tag by its key; the
 * module is not loaded unless traces are exported), not from its `sampled`: without it, a
 * caller's unsampled trace would be sampled here.
 */
const OtelTraceFlags = Context.GenericTag<{ readonly _: unique symbol }, number>("@effect/opentelemetry/Tracer/OtelTraceFlags")

/** The caller's span, from its trace headers (`traceparent`, b3), with its sampling decision. */
export const callerSpan = (headers: Headers.Headers): Option.Option<Tracer.ExternalSpan> =>
  Option.map(HttpTraceContext.fromHeaders(headers), (span) =>
    Tracer.externalSpan({ traceId: span.traceId, spanId: span.spanId, sampled: span.sampled, context: Context.add(span.context, OtelTraceFlags, span.sampled ? 1 : 0) }))

/** The name of a request's server span. */
export const requestSpanName = (method: string) => `http.server ${method}`

/** The attributes of a request's server span, from its redacted URL. */
export const requestSpanAttributes = (method: string, redactedUrl: string): Record<string, string> => {
  const question = redactedUrl.indexOf("?")
  return question === -1
    ? { "http.request.method": method, "url.path": redactedUrl }
    : { "http.request.method": method, "url.path": redactedUrl.slice(0, question), "url.query": redactedUrl.slice(question + 1) }
}

/** A request's server span: its name, the caller's span as its parent, and its attributes. */
export const serverSpanOf = (method: string, headers: Headers.Headers, redactedUrl: string) => ({
  name: requestSpanName(method),
  parent: callerSpan(headers),
  attributes: requestSpanAttributes(method, redactedUrl)
})

/** The attribute of the status a request was answered with. */
const STATUS = "http.response.status_code"

/** The log line of an answered request (at debug: at the default level a busy API would write a line per request). */
export const logResponse = (method: string, redactedUrl: string, status: number) =>
  Effect.logDebug("Sent HTTP response").pipe(
    Effect.annotateLogs({ "http.method": method, "http.url": redactedUrl, "http.status": status })
  )

/**
 * The request logger and tracer of the HTTP app (in place of the platform's, which log and
 * trace the URL as sent; its tracer is turned off where this one is installed).
 */
export const makeRequestLog = (redact: (url: string) => string) => <E, R>(app: HttpApp.Default<E, R>) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const url = redact(request.url)
    const span = serverSpanOf(request.method, request.headers, url)
    return yield* Effect.exit(app).pipe(
      Effect.tap((exit) => {
        const status = HttpServerError.exitResponse(exit).status
        return Effect.annotateCurrentSpan(STATUS, status).pipe(Effect.zipRight(logResponse(request.method, url, status)))
      }),
      Effect.withSpan(span.name, { kind: "server", captureStackTrace: false, parent: Option.getOrUndefined(span.parent), attributes: span.attributes }),
      Effect.withLogSpan("http.request"),
      Effect.flatten
    )
  })

/** Redacted URLs kept. */
const REDACTED_URLS = 4096

/**
 * The request log of both ways in: one redactor of the configured secrets (the same few URLs
 * are asked again and again: each is redacted once, within a bound), the app's middleware, and
 * the span and log line of an answer written in front of the app, without a fiber.
 */
export class RequestLog extends Effect.Service<RequestLog>()("http/RequestLog", {
  effect: Effect.gen(function*() {
    const config = yield* AppConfig
    const tracer = yield* Effect.tracer
    const clock = yield* Effect.clock
    const runtime = yield* Effect.runtime<never>()
    const redactor = makeRedactor(configuredSecrets(config))
    const redactedUrls = new Map<string, string>()
    const redact = (url: string) => {
      let redacted = redactedUrls.get(url)
      if (redacted === undefined) {
        if (redactedUrls.size >= REDACTED_URLS) redactedUrls.clear()
        redacted = redactor(url)
        redactedUrls.set(url, redacted)
      }
      return redacted
    }
    // the line is written at debug: below, no effect is run for it
    const logged = config.logLevel === "debug" || config.logLevel === "trace"
    const log = Runtime.runSync(runtime)

    /**
     * The server span (as the app's router names it, with its route) and the log line of a
     * request answered in front of the app, from `startTime` (`now()`) until now.
     */
    const answered = (method: string, url: string, headers: Headers.Headers, route: string, startTime: bigint, status: number) => {
      const redacted = redact(url)
      const described = serverSpanOf(method, headers, redacted)
      const span = tracer.span(described.name, described.parent, Context.empty(), [], startTime, "server", { captureStackTrace: false })
      for (const key in described.attributes) span.attribute(key, described.attributes[key])
      span.attribute("http.route", route)
      span.attribute(STATUS, status)
      span.end(clock.unsafeCurrentTimeNanos(), Exit.void)
      if (logged) log(logResponse(method, redacted, status).pipe(Effect.withParentSpan(span), Effect.withLogSpan("http.request")))
    }

    return {
      redact,
      /** The app's request log and tracer (the platform's tracer is turned off where it is installed). */
      app: makeRequestLog(redact),
      answered,
      /** The start time of a request answered in front of the app. */
      now: () => clock.unsafeCurrentTimeNanos()
    } as const
  })
}) {}
