import { describe, expect, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { type ChildDaemon, startChildDaemon } from "../support/ChildDaemon.ts"
import { scopedRoot } from "../support/ImportHarness.ts"
import { connect, exchange, head, parseAnswer } from "./rawHttp.ts"

/**
 * A request whose URL or body is not well encoded (percent-encoded bytes that are not UTF-8, a
 * `%` without its two digits, a raw byte outside ASCII, a JSON body that is not UTF-8) is
 * answered 400 `bad_request` in the error shape, on every route, with and without a key: never
 * a 405, a 404 or a 500. Over raw sockets against the real daemon process, so that the bytes
 * arrive as sent.
 */

class Daemon extends Context.Tag("test/BadEncodingsDaemon")<Daemon, ChildDaemon & { readonly apiKey: string }>() {}

const DaemonLive = Layer.scoped(
  Daemon,
  Effect.gen(function*() {
    const root = yield* scopedRoot()
    const daemon = yield* startChildDaemon({ env: { ...root.env, LOG_LEVEL: "fatal" }, apiKey: root.apiKey })
    return { ...daemon, apiKey: root.apiKey }
  })
)

/** One request over a bare socket, its head written byte for byte (latin1), and the answer. */
const rawGet = (port: number, target: Buffer, headers: Record<string, string> = {}) =>
  Effect.promise(async () => {
    const socket = await connect(port)
    const received: Array<Buffer> = []
    const done = new Promise<void>((resolve) => {
      socket.on("data", (chunk) => {
        received.push(chunk)
        const answer = parseAnswer(Buffer.concat(received))
        if (answer !== undefined && Buffer.byteLength(answer.body) >= Number(answer.headers["content-length"] ?? 0)) resolve()
      })
      socket.on("close", () => resolve())
    })
    socket.write(Buffer.concat([
      Buffer.from("GET "),
      target,
      Buffer.from(` HTTP/1.1\r\nHost: 127.0.0.1\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join("")}Connection: close\r\n\r\n`)
    ]))
    await done
    socket.destroy()
    return parseAnswer(Buffer.concat(received))!
  })

const expectBadRequest = (answer: { status: number; headers: Record<string, string>; body: string }, what: string) => {
  expect(answer.status, what).toBe(400)
  expect(answer.headers["content-type"], what).toMatch(/^application\/json/)
  const json = JSON.parse(answer.body)
  expect(json.error, what).toBe("bad_request")
  expect(json.message, what).toMatch(/^The URL is not valid/)
}

describe("bad encodings", () => {
  layer(DaemonLive, { excludeTestServices: true, timeout: 60_000 })("answer 400 on every route", (it) => {
    it.effect("percent-encoded bytes that are not UTF-8, or a % without its digits, in a path or a query: 400 bad_request, key or not", () =>
      Effect.gen(function*() {
        const daemon = yield* Daemon
        const auth = { authorization: `Bearer ${daemon.apiKey}` }
        for (
          const target of [
            "/api/v1/activities/%ff%fe",
            "/api/v1/activities/%zz",
            "/api/v1/activities?filters[search]=%ff",
            "/api/v1/file-imports?pagination[size]=%c3",
            "/api/v1/gear/%80",
            "/healthz?probe=%fe",
            "/status/%ff",
            "/files/activities/%ff.png",
            "/dashboard/assets/%ffapp.js",
            "/%e9t%e9",
            "/api/openapi.yaml?%"
          ]
        ) {
          for (const headers of [auth, {}]) {
            expectBadRequest(yield* rawGet(daemon.port, Buffer.from(target, "latin1"), headers), `${target} ${Object.keys(headers).join()}`)
          }
        }
      }))

    it.effect("a raw byte outside ASCII in the request line: 400 bad_request", () =>
      Effect.gen(function*() {
        const daemon = yield* Daemon
        for (const target of [Buffer.from([0x2f, 0x66, 0xff]), Buffer.from("/api/v1/activities/\u00e9t\u00e9", "utf8")]) {
          expectBadRequest(yield* rawGet(daemon.port, target, { authorization: `Bearer ${daemon.apiKey}` }), target.toString("hex"))
        }
      }))

    it.effect("well-encoded UTF-8 passes: an unknown activity is 404, a search for é answers its list", () =>
      Effect.gen(function*() {
        const daemon = yield* Daemon
        const auth = { authorization: `Bearer ${daemon.apiKey}` }
        expect((yield* rawGet(daemon.port, Buffer.from("/api/v1/activities/%C3%A9t%C3%A9"), auth)).status).toBe(404)
        expect((yield* rawGet(daemon.port, Buffer.from("/api/v1/activities?filters[search]=%C3%A9t%C3%A9+x"), auth)).status).toBe(200)
      }))

    it.effect("a JSON body that is not UTF-8: 400 bad_request", () =>
      Effect.gen(function*() {
        const daemon = yield* Daemon
        const body = Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')])
        const result = yield* Effect.promise(() =>
          exchange(daemon.port, head("POST", "/api/v1/gear", {
            authorization: `Bearer ${daemon.apiKey}`,
            "content-type": "application/json",
            "content-length": body.length,
            connection: "close"
          }), body)
        )
        expect(result.answer?.status).toBe(400)
        expect(JSON.parse(result.answer!.body).error).toBe("bad_request")
      }))
  })
})
