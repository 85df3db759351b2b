import * as Context from "effect/Context"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { Socket } from "node:net"
import { declaredLength } from "./BodyLimits.ts"
import { closedWithinGrace } from "../services/platform/closedWithinGrace.ts"
import type { Found, RouteTableShape } from "./RouteTable.ts"
import { urlEncodingProblem } from "./urlEncodingProblem.ts"

/**
 * The Node server under the HTTP app.
 *
 * Each request is looked up once in the route table; what is found serves the metrics, the
 * body limit and the fast path.
 *
 * It answers `Expect: 100-continue` itself: a body declared over its route's limit is not
 * invited (no `100 Continue`), and the app refuses it with 413 before reading a byte; any
 * other request is invited and handed on as usual.
 *
 * A URL whose encoding is wrong (urlEncodingProblem) is answered 400 here, whatever its route.
 *
 * A request a direct route answers (DirectRoutes) never reaches the app: the server's
 * "request" event goes to the app only when `direct` leaves the request alone. The direct
 * routes are derived from the route table and built with the app; they are installed here
 * (DirectAnswers) once built, and until then every request goes to the app. `observe` sees
 * every request first, whoever answers it (the request metrics).
 *
 * A connection closed after an answer (`Connection: close`, as every 413 is) lingers: the
 * rest of a refused body is read and dropped for a moment, up to a bound. Closed at once,
 * the socket would answer the bytes still arriving with a reset, and the client would lose
 * the answer it was about to read.
 *
 * A stop never waits on a client (closedWithinGrace).
 */

/**
 * Answers a request of a route of the table on the Node request itself (at once, or later: the
 * request is its from then on); false leaves it to the app.
 */
export type DirectAnswer = (request: IncomingMessage, response: ServerResponse, found: Found) => boolean

/** Where the listener takes its direct answers from. */
export class DirectAnswers extends Context.Tag("http/DirectAnswers")<DirectAnswers, { readonly install: (answer: DirectAnswer) => void }>() {}

/** A DirectAnswer that leaves every request to the app until one is installed. */
export const makeDirectSlot = () => {
  let current: DirectAnswer = () => false
  const answer: DirectAnswer = (request, response, found) => current(request, response, found)
  return { answer, install: (installed: DirectAnswer) => void (current = installed) }
}

const LINGER_MS = 2_000
const LINGER_MAX_BYTES = 16 * 1024 * 1024

const lingeringClose = (socket: Socket, request: () => IncomingMessage | undefined) => {
  const drain = () => {
    const startBytes = socket.bytesRead
    const stop = () => {
      clearTimeout(timer)
      clearInterval(watch)
      socket.destroy()
    }
    const timer = setTimeout(stop, LINGER_MS)
    const watch = setInterval(() => {
      if (socket.bytesRead - startBytes > LINGER_MAX_BYTES) stop()
    }, 100)
    timer.unref()
    watch.unref()
    socket.once("close", () => {
      clearTimeout(timer)
      clearInterval(watch)
    })
    socket.once("end", stop)
    const pending = request()
    if (pending !== undefined && !pending.readableEnded) {
      pending.unpipe()
      pending.removeAllListeners("data")
      pending.resume()
    }
    socket.resume()
  }
  if (socket.writable) socket.end()
  if (socket.writableFinished) drain()
  else socket.once("finish", drain)
}

/** A URL whose encoding is wrong is answered 400 in the API's error shape, on every route, before any route reads it. */
const refuseBadEncoding = (problem: string, request: IncomingMessage, response: ServerResponse): true => {
  const body = JSON.stringify({ error: "bad_request", message: problem })
  response.writeHead(400, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
  response.end(body)
  // a body is read and dropped, so that the connection can carry the next request
  request.resume()
  return true
}

/**
 * What Node's own HTTP parser refuses before there is a request (a raw byte outside ASCII in the
 * URL, a malformed head, headers too large, a head that never ends) is answered in the API's
 * error shape too, as Node would by status, and the connection closed.
 */
const answerClientError = (error: NodeJS.ErrnoException & { readonly bytesParsed?: number }, socket: Socket) => {
  if (error.code === "ECONNRESET" || !socket.writable) return void socket.destroy()
  const [status, reason, message] = error.code === "HPE_HEADER_OVERFLOW"
    ? [431, "Request Header Fields Too Large", "The request's headers are too large."]
    : error.code === "ERR_HTTP_REQUEST_TIMEOUT"
    ? [408, "Request Timeout", "The request's head did not arrive in time."]
    : error.code === "HPE_INVALID_URL"
    ? [400, "Bad Request", "The URL is not valid: it holds a byte that is not percent-encoded (send every byte outside printable ASCII as %XX)."]
    : [400, "Bad Request", "The request is not valid HTTP."]
  const body = JSON.stringify({ error: "bad_request", message })
  socket.end(`HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`)
}

export const makeNodeServer = (
  routes: RouteTableShape,
  direct: DirectAnswer = () => false,
  observe: (request: IncomingMessage, response: ServerResponse, found: Found | undefined) => void = () => {}
): Server => {
  const server = createServer()
  const emit = server.emit
  server.emit = function(this: Server, event: string | symbol, ...args: Array<any>) {
    if (event === "request") {
      const request = args[0] as IncomingMessage
      const problem = urlEncodingProblem(request.url ?? "/")
      const found = problem === null ? routes.find(request.method ?? "GET", request.url ?? "/") : undefined
      observe(request, args[1], found)
      if (problem !== null) return refuseBadEncoding(problem, request, args[1])
      if (found !== undefined && direct(request, args[1], found)) return true
    }
    return emit.apply(this, [event, ...args] as Parameters<typeof emit>)
  } as typeof emit
  server.on("clientError", answerClientError)
  const current = new WeakMap<Socket, IncomingMessage>()
  server.on("connection", (socket: Socket) => {
    socket.destroySoon = () => lingeringClose(socket, () => current.get(socket))
  })
  server.prependListener("request", (request: IncomingMessage) => {
    current.set(request.socket, request)
  })
  server.on("checkContinue", (request, response) => {
    const declared = declaredLength(request.headers)
    if (declared === undefined || declared <= routes.limitOf(request.method ?? "GET", request.url ?? "/").maxBytes) {
      response.writeContinue()
    }
    server.emit("request", request, response)
  })
  return closedWithinGrace(server)
}
