import * as HttpServerError from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as UrlParams from "@effect/platform/UrlParams"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import type { IncomingMessage } from "node:http"
import { BadRequest, FileTooLarge, PayloadTooLarge } from "../schema/ApiErrors.ts"
import { AppConfig } from "../services/platform/AppConfig.ts"
import { declaredLength, type Limit } from "./BodyLimits.ts"
import { errorResponse } from "./ErrorResponses.ts"
import { tooLarge } from "./FilePart.ts"
import { parseJsonBody } from "./JsonBody.ts"
import { RouteTable } from "./RouteTable.ts"

/**
 * Reads every request body that is not a streamed upload exactly once, counting the bytes as
 * they arrive: a body declared or grown over its route's limit is refused with 413 at once
 * (the rest is never read; the answer closes the connection). The request handed on serves
 * the bytes read, so the HttpApi schemas decode them without reading the socket again.
 */

export const payloadTooLarge = (maxBytes: number) =>
  new PayloadTooLarge({ message: `The request body is too large: at most ${Math.floor(maxBytes / 1024)} KB is accepted.` })

const hasBody = (request: HttpServerRequest.HttpServerRequest) =>
  (declaredLength(request.headers) ?? 0) > 0 || request.headers["transfer-encoding"] !== undefined

const cutOff = () => new BadRequest({ message: "The request body was cut off before it was complete." })

/**
 * Collects the body of a Node request up to `maxBytes`. Past the limit it keeps nothing more
 * and fails; the 413 that follows closes the connection.
 */
const readLimited = (incoming: IncomingMessage, maxBytes: number) =>
  Effect.async<Buffer, PayloadTooLarge | BadRequest>((resume) => {
    if (incoming.readableEnded) return resume(Effect.succeed(Buffer.alloc(0)))
    const chunks: Array<Buffer> = []
    let size = 0
    const stop = () => {
      incoming.off("data", onData)
      incoming.off("end", onEnd)
      incoming.off("close", onClose)
      incoming.off("error", onError)
    }
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > maxBytes) {
        stop()
        // dropped from here on, until the answer closes the connection
        incoming.resume()
        resume(Effect.fail(payloadTooLarge(maxBytes)))
      } else {
        chunks.push(chunk)
      }
    }
    const onEnd = () => {
      stop()
      resume(Effect.succeed(Buffer.concat(chunks, size)))
    }
    const onClose = () => {
      if (incoming.readableEnded) return
      stop()
      resume(Effect.fail(cutOff()))
    }
    // the error is handled here (a client that goes away), never thrown out of the event loop
    const onError = () => {
      stop()
      resume(Effect.fail(cutOff()))
    }
    incoming.on("data", onData)
    incoming.once("end", onEnd)
    incoming.once("close", onClose)
    incoming.once("error", onError)
    return Effect.sync(stop)
  })

/** The same request, its body served from `bytes`. */
const withBytes = (request: HttpServerRequest.HttpServerRequest, bytes: Uint8Array): HttpServerRequest.HttpServerRequest => {
  const decodeError = (cause: unknown) => new HttpServerError.RequestError({ request, reason: "Decode", cause })
  const text = Effect.try({ try: () => new TextDecoder("utf-8", { fatal: true }).decode(bytes), catch: decodeError })
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer
  return Object.create(request, {
    text: { value: text },
    json: {
      value: Effect.flatMap(text, (t) => {
        if (t === "") return Effect.succeed(null)
        const parsed = parseJsonBody(t)
        return parsed.ok ? Effect.succeed(parsed.value) : Effect.fail(decodeError(parsed.message))
      })
    },
    arrayBuffer: { value: Effect.succeed(buffer) },
    urlParamsBody: { value: Effect.flatMap(text, (t) => Effect.try({ try: () => UrlParams.fromInput(new URLSearchParams(t)), catch: decodeError })) },
    stream: { value: Stream.succeed(bytes) }
  }) as HttpServerRequest.HttpServerRequest
}

const nodeRequest = (request: HttpServerRequest.HttpServerRequest): IncomingMessage | undefined => {
  try {
    return NodeHttpServerRequest.toIncomingMessage(request) ?? undefined
  } catch {
    return undefined
  }
}

/**
 * The request as the handlers must see it: the same request for a body-less or streamed one,
 * else one whose body was read within its limit. Fails with the 413 to answer.
 */
export const limitBody = (
  request: HttpServerRequest.HttpServerRequest,
  limit: Limit,
  maxFileSize: number
): Effect.Effect<HttpServerRequest.HttpServerRequest, PayloadTooLarge | FileTooLarge | BadRequest> =>
  Effect.gen(function*() {
    if (!hasBody(request)) return request
    const declared = declaredLength(request.headers)
    if (limit.streamed) {
      if (declared !== undefined && declared > limit.maxBytes) {
        return yield* tooLarge({
          maxFileSize,
          maxPostSize: limit.maxBytes,
          watchFolder: limit.watchFolder === true,
          ...(limit.archiveMaxSize !== undefined ? { maxArchiveSize: limit.archiveMaxSize } : {})
        }, "request")
      }
      return request
    }
    if (declared !== undefined && declared > limit.maxBytes) return yield* payloadTooLarge(limit.maxBytes)
    const incoming = nodeRequest(request)
    const bytes = incoming === undefined
      // not a Node request (a web handler in tests): the platform reader, with the same limit
      ? new Uint8Array(
        yield* request.arrayBuffer.pipe(
          HttpServerRequest.withMaxBodySize(Option.some(limit.maxBytes)),
          Effect.mapError(() => payloadTooLarge(limit.maxBytes))
        )
      )
      : yield* readLimited(incoming, limit.maxBytes)
    return withBytes(request, bytes)
  })

/** Every route's body limit (the route table's), in front of routing and authorization. */
export const RequestBodyLive = HttpApiBuilder.middleware(
  Effect.gen(function*() {
    const config = yield* AppConfig
    const routes = yield* RouteTable
    return (app) =>
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const limited = yield* Effect.either(limitBody(request, routes.limitOf(request.method, request.url), config.uploadMaxFileSize))
        if (Either.isLeft(limited)) return errorResponse(limited.left)
        return yield* Effect.provideService(app, HttpServerRequest.HttpServerRequest, limited.right)
      })
  })
)
