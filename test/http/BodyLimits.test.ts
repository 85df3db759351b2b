import { describe, expect, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { generateApiKey } from "../../src/services/platform/ApiKey.ts"
import { type ChildDaemon, startChildDaemon } from "../support/ChildDaemon.ts"
import { chunked, exchange, head } from "./rawHttp.ts"

/**
 * Body limits applied while the bytes arrive, over raw sockets against the real daemon
 * process (its own Node listener answers `Expect: 100-continue`).
 */

class Daemon extends Context.Tag("test/BodyLimitsDaemon")<Daemon, ChildDaemon & { readonly apiKey: string }>() {}

const DaemonLive = Layer.scoped(
  Daemon,
  Effect.gen(function*() {
    const root = yield* Effect.acquireRelease(
      Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "waymark-limits-"))),
      (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
    )
    fs.mkdirSync(path.join(root, "storage"))
    fs.mkdirSync(path.join(root, "watch"))
    const apiKey = generateApiKey()
    const daemon = yield* startChildDaemon({
      env: {
        STORAGE_DIR: path.join(root, "storage"),
        WATCH_DIR: path.join(root, "watch"),
        SERVICE_API_KEY: apiKey,
        TZ: "UTC",
        LOG_LEVEL: "fatal",
        UPLOAD_MAX_FILESIZE: "1M",
        POST_MAX_SIZE: "2M",
        // an upload may be an export archive: its request is bounded by the archive's limit
        ARCHIVE_MAX_SIZE: "1M"
      },
      apiKey
    })
    return { ...daemon, apiKey }
  })
)

const MB = 1024 * 1024

describe("body limits", () => {
  layer(DaemonLive, { excludeTestServices: true, timeout: 60_000 })("over raw sockets", (it) => {
    it.effect("a 60 MB chunked body to POST /athlete/weights is refused with 413 long before it is sent, and the connection is closed", () =>
      Effect.gen(function*() {
        const daemon = yield* Daemon
        const [result, status] = yield* Effect.all([
          Effect.promise(() =>
            exchange(daemon.port, head("POST", "/api/v1/athlete/weights", {
              authorization: `Bearer ${daemon.apiKey}`,
              "content-type": "application/json",
              "transfer-encoding": "chunked"
            }), chunked(60 * MB, 64 * 1024, 0x20, 1))),
          daemon.get("/api/v1/status")
        ], { concurrency: 2 })
        expect(status.status).toBe(200)
        expect(result.answer?.status).toBe(413)
        expect(JSON.parse(result.answer!.body)).toEqual({ error: "payload_too_large", message: expect.stringContaining("64 KB") })
        expect(result.answer?.headers["connection"]).toBe("close")
        // the answer came after the first 64 KB (plus what was sent while it was on its way), not after 60 MB
        expect(result.bytesSentAtAnswer).toBeLessThan(24 * MB)
        expect(result.closedByServer).toBe(true)
      }))

    it.effect("a Content-Length over the limit is refused at once, without reading the body", () =>
      Effect.gen(function*() {
        const daemon = yield* Daemon
        const result = yield* Effect.promise(() =>
          exchange(daemon.port, head("POST", "/api/v1/athlete/weights", {
            authorization: `Bearer ${daemon.apiKey}`,
            "content-type": "application/json",
            "content-length": 100 * MB
          })))
        expect(result.answer?.status).toBe(413)
        expect(result.answer?.headers["connection"]).toBe("close")
        expect(result.closedByServer).toBe(true)
      }))

    for (const [what, url, contentType, length, code] of [
      ["an upload", "/api/v1/activity/upload", "multipart/form-data; boundary=x", 3 * MB, "file_too_large"],
      ["a JSON body", "/api/v1/athlete/weights", "application/json", 65 * 1024, "payload_too_large"],
      ["a webhook event", "/external/webhook", "application/json", 17 * 1024, "payload_too_large"]
    ] as const) {
      it.effect(`Expect: 100-continue with ${what} declared over its limit: 413 ${code} without 100 Continue, connection closed`, () =>
        Effect.gen(function*() {
          const daemon = yield* Daemon
          const result = yield* Effect.promise(() =>
            exchange(daemon.port, head("POST", url, {
              authorization: `Bearer ${daemon.apiKey}`,
              "content-type": contentType,
              "content-length": length,
              expect: "100-continue"
            }), Buffer.alloc(length, 0x20), { waitForContinue: true }))
          expect(result.answer?.interim).toEqual([])
          expect(result.answer?.status).toBe(413)
          expect(JSON.parse(result.answer!.body).error).toBe(code)
          expect(result.answer?.headers["connection"]).toBe("close")
          expect(result.bytesSent).toBe(0)
          expect(result.closedByServer).toBe(true)
        }))
    }

    it.effect("Expect: 100-continue within the limit gets 100 Continue, then the answer", () =>
      Effect.gen(function*() {
        const daemon = yield* Daemon
        const body = Buffer.from(JSON.stringify({ on: "2024-05-01", weight: 70.5 }))
        const result = yield* Effect.promise(() =>
          exchange(daemon.port, head("POST", "/api/v1/athlete/weights", {
            authorization: `Bearer ${daemon.apiKey}`,
            "content-type": "application/json",
            "content-length": body.length,
            expect: "100-continue"
          }), body, { waitForContinue: true }))
        expect(result.answer?.interim).toEqual([100])
        expect(result.answer?.status).toBe(200)
        expect(JSON.parse(result.answer!.body)).toEqual({ on: "2024-05-01", weight: 70.5 })
      }))

    it.effect("a chunked upload past POST_MAX_SIZE is refused with 413 and the connection is closed", () =>
      Effect.gen(function*() {
        const daemon = yield* Daemon
        async function* body() {
          yield Buffer.from('--x\r\nContent-Disposition: form-data; name="file"; filename="big.fit"\r\n\r\n')
          yield* chunked(50 * MB, 64 * 1024, 0x20, 1)
        }
        // the multipart head goes in the first chunk
        async function* framed() {
          let first = true
          for await (const piece of body()) {
            if (first) {
              first = false
              yield Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from("\r\n")])
            } else {
              yield piece
            }
          }
        }
        const result = yield* Effect.promise(() =>
          exchange(daemon.port, head("POST", "/api/v1/activity/upload", {
            authorization: `Bearer ${daemon.apiKey}`,
            "content-type": "multipart/form-data; boundary=x",
            "transfer-encoding": "chunked"
          }), framed()))
        expect(result.answer?.status).toBe(413)
        expect(JSON.parse(result.answer!.body).error).toBe("file_too_large")
        expect(result.answer?.headers["connection"]).toBe("close")
        expect(result.bytesSentAtAnswer).toBeLessThan(24 * MB)
        expect(result.closedByServer).toBe(true)
      }))

    it.effect("the daemon still answers after all of this", () =>
      Effect.gen(function*() {
        const daemon = yield* Daemon
        expect(daemon.hasExited()).toBe(false)
        expect((yield* daemon.get("/api/v1/status")).status).toBe(200)
      }))
  })
})
