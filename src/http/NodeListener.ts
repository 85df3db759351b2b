import { Context } from "effect"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { Socket } from "node:net"
import { type BodyLimit, declaredLength } from "./BodyLimits.ts"

/**
 * The Node server under the HTTP app.
 *
 * It answers `Expect: 100-continue` itself: a body declared over its route's limit is not
 * invited (no `100 Continue`), and the app refuses it with 413 before reading a byte; any
 * other request is invited and handed on as usual.
 *
 * A request a direct route answers (DirectRoutes) never reaches the app: the server's
 * "request" event goes to the app only when `direct` leaves the request alone. The direct
 * routes are derived from the app's declaration and built with it; they are installed here
 * (DirectAnswers) once built, and until then every request goes to the app. `observe` sees
 * every request first, whoever answers it (the request metrics).
 *
 * A connection closed after an answer (`Connection: close`, as every 413 is) lingers: the
 * rest of a refused body is read and dropped for a moment, up to a bound. Closed at once,
 * the socket would answer the bytes still arriving with a reset, and the client would lose
 * the answer it was about to read.
 */

/** Answers a request on the Node request itself; false leaves it to the app. */
export type DirectAnswer = (request: IncomingMessage, response: ServerResponse) => boolean

/** Where the listener takes its direct answers from. */
export class DirectAnswers extends Context.Tag("http/DirectAnswers")<DirectAnswers, { readonly install: (answer: DirectAnswer) => void }>() {}

/** A DirectAnswer that leaves every request to the app until one is installed. */
export const makeDirectSlot = () => {
  let current: DirectAnswer = () => false
  const answer: DirectAnswer = (request, response) => current(request, response)
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
  limitOf: (method: string, url: string) => BodyLimit,
  direct: DirectAnswer = () => false,
  observe: (request: IncomingMessage, response: ServerResponse) => void = () => {}
): Server => {
  const server = createServer()
  const emit = server.emit
  server.emit = function(this: Server, event: string | symbol, ...args: Array<any>) {
    if (event === "request") {
      observe(args[0], args[1])
      if (direct(args[0], args[1])) return true
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
    if (declared === undefined || declared <= limitOf(request.method ?? "GET", request.url ?? "/").maxBytes) {
      response.writeContinue()
    }
    server.emit("request", request, response)
  })
  return server
}
