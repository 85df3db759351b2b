import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { generateApiKey } from "../../src/services/platform/ApiKey.ts"
import { startChildDaemon } from "../support/ChildDaemon.ts"
import { abortUpload, exchange, head, multipartBody } from "./rawHttp.ts"

/**
 * Clients that break off uploads (files and images) at random points, fast and slow, against
 * the real daemon process: it keeps answering, and no partial file stays behind.
 */

/** A small deterministic generator, so that a failing run can be replayed. */
const seeded = (seed: number) => () => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff
  return seed / 0x7fffffff
}

const gpx = (points: number) => {
  const start = Date.parse("2024-05-01T07:00:00Z")
  const pts = Array.from({ length: points }, (_, i) =>
    `<trkpt lat="${(51 + i * 0.0005).toFixed(5)}" lon="${(3.7 + i * 0.0005).toFixed(5)}"><ele>10</ele><time>${new Date(start + i * 10_000).toISOString()}</time></trkpt>`)
  return `<?xml version="1.0" encoding="UTF-8"?>\n<gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"><trk><name>Seed</name><type>cycling</type><trkseg>${pts.join("")}</trkseg></trk></gpx>\n`
}

/** The files of `dir`, typed by the listing itself: a stat of each after it would race the daemon's removals. */
const listFiles = (dir: string) => (fs.existsSync(dir) ? fs.readdirSync(dir, { withFileTypes: true }).filter((e) => e.isFile()).map((e) => e.name) : [])

describe("aborted uploads", () => {
  it.live("60 uploads broken off at random points never stop the daemon and leave no partial file", () =>
    Effect.scoped(Effect.gen(function*() {
      const root = yield* Effect.acquireRelease(
        Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "waymark-aborts-"))),
        (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
      )
      const storageDir = path.join(root, "storage")
      const watchDir = path.join(root, "watch")
      fs.mkdirSync(storageDir)
      fs.mkdirSync(watchDir)
      // a partial upload left by an earlier run that was stopped mid-upload
      fs.mkdirSync(path.join(watchDir, ".uploads"))
      fs.writeFileSync(path.join(watchDir, ".uploads", ".stale-upload.part"), "half a file")
      const apiKey = generateApiKey()
      const daemon = yield* startChildDaemon({
        env: { STORAGE_DIR: storageDir, WATCH_DIR: watchDir, SERVICE_API_KEY: apiKey, TZ: "UTC", LOG_LEVEL: "info", UPLOAD_MAX_FILESIZE: "8M", POST_MAX_SIZE: "10M" },
        apiKey
      })
      const uploadsDir = path.join(watchDir, ".uploads")
      const imagesDir = path.join(storageDir, "files", "activities")
      expect(listFiles(uploadsDir)).toEqual([])

      // one activity, for the image uploads
      const seed = multipartBody("seed.gpx", Buffer.from(gpx(30)))
      const seeded202 = yield* Effect.promise(() =>
        exchange(daemon.port, head("POST", "/api/v1/activity/upload", {
          authorization: `Bearer ${apiKey}`,
          "content-type": `multipart/form-data; boundary=${seed.boundary}`,
          "content-length": seed.body.length
        }), seed.body))
      expect(seeded202.answer?.status).toBe(202)
      let activityId: string | undefined
      for (let i = 0; i < 300 && activityId === undefined; i++) {
        const list = yield* daemon.get("/api/v1/activities")
        activityId = list.json?.activities?.[0]?.id
        if (activityId === undefined) yield* Effect.sleep("100 millis")
      }
      expect(activityId).toMatch(/^activity-/)

      const random = seeded(20_260_601)
      const file = Buffer.alloc(3 * 1024 * 1024, 7)
      const image = Buffer.concat([Buffer.from("89504e470d0a1a0a", "hex"), Buffer.alloc(3 * 1024 * 1024, 3)])
      for (let i = 0; i < 60; i++) {
        const isImage = i % 2 === 1
        const { body, boundary } = multipartBody(isImage ? `photo-${i}.png` : `abort-${i}.fit`, isImage ? image : file)
        const url = isImage ? `/api/v1/activities/${activityId}/images` : "/api/v1/activity/upload"
        const slow = i % 3 === 0
        yield* Effect.promise(() =>
          abortUpload(daemon.port, head("POST", url, {
            authorization: `Bearer ${apiKey}`,
            "content-type": `multipart/form-data; boundary=${boundary}`,
            "content-length": body.length
          }), body, {
            // anywhere: inside the part headers, inside the file, in the closing boundary
            offset: Math.floor(random() * (body.length - 1)),
            slice: slow ? 4096 + Math.floor(random() * 16_384) : 65_536 + Math.floor(random() * 262_144),
            pauseMs: slow ? 1 + Math.floor(random() * 4) : 0
          }))
        expect(daemon.hasExited(), daemon.output()).toBe(false)
        if (i % 10 === 9) expect((yield* daemon.get("/api/v1/status")).status).toBe(200)
      }

      expect(daemon.hasExited(), daemon.output()).toBe(false)
      expect((yield* daemon.get("/api/v1/status")).status).toBe(200)
      // the server sees each reset a moment after it happens: wait for the last clean-up (a limit
      // in time, not in polls, which a loaded machine stretches)
      const deadline = Date.now() + 60_000
      while ((listFiles(uploadsDir).length > 0 || listFiles(imagesDir).length > 0) && Date.now() < deadline) yield* Effect.sleep("50 millis")
      expect(listFiles(uploadsDir)).toEqual([])
      expect(listFiles(imagesDir)).toEqual([])
      expect(listFiles(watchDir).filter((n) => n.startsWith("abort-"))).toEqual([])
      expect(daemon.output()).not.toMatch(/Unhandled|ECONNRESET/)
    })), { timeout: 240_000 })
})
