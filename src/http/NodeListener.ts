import { Context } from "effect"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { Socket } from "node:net"
import { declaredLength } from "./BodyLimits.ts"
import type { Found, RouteTableShape } from "./RouteTable.ts"

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
      const found = routes.find(request.method ?? "GET", request.url ?? "/")
      observe(request, args[1], found)
      if (found !== undefined && direct(request, args[1], found)) return true
    }
    return emit.apply(this, [event, ...args] as Parameters<typeof emit>)
  } as typeof emit
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
  return server
}
