import { describe, expect, layer } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { ShareRequestsPolicy } from "../../src/http/sharing/ShareRequests.ts"
import { WrongKeysPolicy } from "../../src/http/WrongKeys.ts"
import { redactUrl } from "../../src/http/RequestLog.ts"
import { haversine, type LatLng } from "../../src/services/sharing/visibleTrack.ts"
import { waitFor } from "../support/ImportHarness.ts"
import { fileForm, seedActivity, send, TestDaemon } from "../support/TestDaemon.ts"
import { expectError } from "./helpers.ts"

const START = Date.parse("2026-05-01T06:10:00Z")
const HOME: LatLng = [51, 3]

/** A ride due east from HOME, a sample every 10 m and every second, 5 km long. */
const ride = (length = 5_000) => {
  const perDegree = haversine([51, 3], [51, 4])
  const latlng: Array<[number, number]> = []
  const time: Array<number> = []
  const altitude: Array<number> = []
  const heartrate: Array<number> = []
  for (let d = 0, i = 0; d <= length; d += 10, i++) {
    latlng.push([51, 3 + d / perDegree])
    time.push(i)
    altitude.push(20 + Math.round(10 * Math.sin(i / 30)))
    heartrate.push(120 + (i % 40))
  }
  return { latlng, time, altitude, heartrate }
}

type Streams = ReturnType<typeof ride>
const keep = (streams: Streams, which: (p: LatLng, i: number) => boolean): Streams => {
  const kept = streams.latlng.flatMap((p, i) => (which(p, i) ? [i] : []))
  return {
    latlng: kept.map((i) => streams.latlng[i]!),
    time: kept.map((i) => streams.time[i]!),
    altitude: kept.map((i) => streams.altitude[i]!),
    heartrate: kept.map((i) => streams.heartrate[i]!)
  }
}

const seedRide = (streams: Streams, name = "Saturday ride") =>
  seedActivity({ name, startTime: START, startDateLocal: "2026-05-01T08:10:00", streams })

const pathOf = (url: string) => new URL(url).pathname
const asOutsider = (url: string) => send("GET", url, { key: null })

const share = (activityId: string, shows: Record<string, boolean> = {}) =>
  Effect.map(send("POST", `/api/v1/activities/${activityId}/shares`, { json: { shows } }), (answer) => {
    expect(answer.status).toBe(201)
    return answer.json as { id: string; activityId: string; url: string; createdOn: string; shows: Record<string, boolean> }
  })

const setEnds = (hiddenEndsInMeter: number) =>
  Effect.map(send("PUT", "/api/v1/athlete/privacy-settings", { json: { hiddenEndsInMeter } }), (a) => expect(a.status).toBe(200))

const removeZones = Effect.gen(function*() {
  const zones = yield* send("GET", "/api/v1/privacy-zones")
  for (const zone of zones.json.privacyZones) yield* send("DELETE", `/api/v1/privacy-zones/${zone.id}`)
})

const daemonLog = Effect.map(TestDaemon, (daemon) =>
  fs.existsSync(daemon.logsDir)
    ? fs.readdirSync(daemon.logsDir).filter((n) => n.startsWith("daemon-")).map((n) => fs.readFileSync(path.join(daemon.logsDir, n), "utf8")).join("")
    : "")

const pngSize = (png: Buffer) => ({ width: png.readUInt32BE(16), height: png.readUInt32BE(20) })

/** What an outsider sees of a link, with the link's own token taken out (to compare two links). */
const seen = (url: string) =>
  Effect.gen(function*() {
    const path = pathOf(url)
    const token = path.split("/").pop()!
    const page = yield* asOutsider(path)
    const image = yield* asOutsider(`${path}/image.png`)
    expect(page.status).toBe(200)
    expect(image.status).toBe(200)
    return { page: page.text.replaceAll(token, "TOKEN"), image: image.bytes }
  })

// neither link requests nor the tokens tried as API keys are throttled here: their limits have tests of their own
const Unlimited = Layer.merge(
  Layer.succeed(ShareRequestsPolicy, { capacity: Infinity, perMinute: 1 }),
  Layer.succeed(WrongKeysPolicy, { free: Infinity, refuseAt: Infinity })
)

describe("sharing", () => {
  layer(TestDaemon.layer().pipe(Layer.provide(Unlimited)), { excludeTestServices: true })("privacy zones and links", (it) => {
    it.effect("privacy zones: created, listed, read and removed; 400 naming the field out of range or missing", () =>
      Effect.gen(function*() {
        const created = yield* send("POST", "/api/v1/privacy-zones", { json: { name: " Home ", latitude: 51, longitude: 3, radiusInMeter: 400 } })
        expect(created.status).toBe(201)
        expect(created.json).toMatchObject({ name: "Home", latitude: 51, longitude: 3, radiusInMeter: 400 })
        expect(created.json.id).toMatch(/^privacyZone-/)
        expect((yield* send("GET", "/api/v1/privacy-zones")).json.privacyZones).toEqual([created.json])
        expect((yield* send("GET", `/api/v1/privacy-zones/${created.json.id}`)).json).toEqual(created.json)
        for (
          const [body, field] of [
            [{ name: "x", latitude: 51, longitude: 3, radiusInMeter: 199 }, "radiusInMeter"],
            [{ name: "x", latitude: 51, longitude: 3, radiusInMeter: 2001 }, "radiusInMeter"],
            [{ name: "x", latitude: 91, longitude: 3, radiusInMeter: 500 }, "latitude"],
            [{ name: "x", longitude: 3, radiusInMeter: 500 }, "latitude"],
            [{ name: "x", latitude: 51, longitude: "3", radiusInMeter: 500 }, "longitude"],
            [{ name: "", latitude: 51, longitude: 3, radiusInMeter: 500 }, "name"]
          ] as const
        ) {
          const answer = yield* send("POST", "/api/v1/privacy-zones", { json: body })
          expectError(answer, 400, "bad_request")
          expect(answer.json.message.toLowerCase()).toContain(field.toLowerCase())
        }
        expect((yield* send("DELETE", `/api/v1/privacy-zones/${created.json.id}`)).status).toBe(204)
        expectError(yield* send("DELETE", `/api/v1/privacy-zones/${created.json.id}`), 404, "not_found")
        expect((yield* send("GET", "/api/v1/privacy-zones")).json.privacyZones).toEqual([])
      }))

    it.effect("privacy settings: 200 m hidden at each end by default, 0 to 2,000 m", () =>
      Effect.gen(function*() {
        expect((yield* send("GET", "/api/v1/athlete/privacy-settings")).json).toEqual({ hiddenEndsInMeter: 200 })
        expectError(yield* send("PUT", "/api/v1/athlete/privacy-settings", { json: { hiddenEndsInMeter: 2500 } }), 400, "bad_request")
        yield* setEnds(500)
        expect((yield* send("GET", "/api/v1/athlete/privacy-settings")).json).toEqual({ hiddenEndsInMeter: 500 })
        yield* setEnds(200)
      }))

    it.effect("a link: 256 random bits, stored only hashed, its URL shown once; listed and revoked, then 404 as a wrong token", () =>
      Effect.gen(function*() {
        const id = yield* seedRide(ride())
        const made = yield* share(id, { heartRate: true })
        expect(Object.keys(made).sort()).toEqual(["activityId", "createdOn", "id", "shows", "url"])
        expect(made.shows).toEqual({ map: true, charts: true, heartRate: true, power: false, photos: false, description: false })
        const token = pathOf(made.url).replace("/s/", "")
        expect(made.url).toBe(`http://waymark.test/s/${token}`)
        expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/)
        expect(Buffer.from(token, "base64url")).toHaveLength(32)

        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<{ token_hash: Uint8Array }>`SELECT token_hash FROM shares WHERE id = ${made.id}`
        expect(Buffer.from(rows[0]!.token_hash)).toEqual(createHash("sha256").update(token).digest())
        const daemon = yield* TestDaemon
        for (const file of [daemon.databaseFile, `${daemon.databaseFile}-wal`]) {
          if (fs.existsSync(file)) expect(fs.readFileSync(file).includes(token)).toBe(false)
        }

        const listed = yield* send("GET", `/api/v1/activities/${id}/shares`)
        expect(listed.json.shares).toEqual([{ ...made, url: null }])
        expect((yield* asOutsider(`/s/${token}`)).status).toBe(200)

        expect((yield* send("DELETE", `/api/v1/activities/${id}/shares/${made.id}`)).status).toBe(204)
        const revoked = yield* asOutsider(`/s/${token}`)
        const wrong = yield* asOutsider(`/s/${"A".repeat(43)}`)
        const garbage = yield* asOutsider("/s/not-even-a-token")
        for (const answer of [revoked, wrong, garbage]) {
          expect(answer.status).toBe(404)
          expect(answer.text).toBe(revoked.text)
          expect({ ...answer.headers, date: "", "content-length": "" }).toEqual({ ...revoked.headers, date: "", "content-length": "" })
        }
        expect((yield* asOutsider(`/s/${token}/image.png`)).status).toBe(404)
        expectError(yield* send("DELETE", `/api/v1/activities/${id}/shares/${made.id}`), 404, "not_found")
        expect((yield* send("GET", `/api/v1/activities/${id}/shares`)).json.shares).toEqual([])
        // the token never stands in the request log
        expect(redactUrl(`/s/${token}/image.png`)).toBe("/s/[redacted]/image.png")
        // the daemon log names the link made and revoked, never its token
        const log = yield* waitFor("the revocation in the daemon log", Effect.map(daemonLog, (text) => (text.includes(`share link ${made.id} of activity ${id} revoked`) ? text : undefined)))
        expect(log).toContain(`share link ${made.id} of activity ${id} created (shows map, charts, heartRate)`)
        expect(log).not.toContain(token)
      }))

    it.effect("a link opens its activity and nothing else: not another id, not the API, not the dashboard", () =>
      Effect.gen(function*() {
        const id = yield* seedRide(ride(), "Mine to share")
        const other = yield* seedRide(ride(), "Not shared")
        const made = yield* share(id)
        const path = pathOf(made.url)
        const token = path.replace("/s/", "")
        const page = yield* asOutsider(`${path}?activityId=${other}&id=${other}`)
        expect(page.text).toContain("Mine to share")
        expect(page.text).not.toContain("Not shared")
        expect(page.text).not.toContain(id)
        expect((yield* asOutsider(`${path}/${other}`)).status).toBe(404)
        expect((yield* asOutsider(`${path}/photos/1`)).status).toBe(404)
        expect((yield* send("GET", `/api/v1/activities/${id}`, { key: token })).status).toBe(401)
        expect((yield* send("GET", `/api/v1/activities/${id}/streams`, { key: token })).status).toBe(401)
        expect((yield* send("GET", "/api/v1/activities", { headers: { cookie: `waymark_session=${token}` }, key: null })).status).toBe(401)
        expectError(yield* send("POST", `/api/v1/activities/activity-nope/shares`, { json: {} }), 404, "not_found")
        // no body at all: the default choices
        const plain = yield* send("POST", `/api/v1/activities/${id}/shares`)
        expect(plain.status).toBe(201)
        expect(plain.json.shows).toEqual({ map: true, charts: true, heartRate: false, power: false, photos: false, description: false })
        expectError(yield* send("POST", `/api/v1/activities/${id}/shares`, { json: { shows: { map: "yes" } } }), 400, "bad_request")
        expectError(yield* send("POST", `/api/v1/activities/${id}/shares`, { json: { shows: { everything: true } } }), 400, "bad_request")
      }))

    it.effect("the page: figures, the map and allowed charts; strict CSP, a minute's private cache, preview tags naming the picture, nothing from another host", () =>
      Effect.gen(function*() {
        const id = yield* seedRide(ride())
        const made = yield* share(id)
        const page = yield* asOutsider(pathOf(made.url))
        expect(page.status).toBe(200)
        expect(page.headers["content-type"]).toBe("text/html; charset=utf-8")
        const csp = page.headers["content-security-policy"]!
        expect(csp).toContain("default-src 'none'")
        expect(csp).toContain("img-src 'self'")
        expect(csp).not.toContain("unsafe-inline")
        expect(csp).not.toMatch(/script-src/)
        expect(page.headers["cache-control"]).toBe("private, max-age=60")
        expect(page.headers["referrer-policy"]).toBe("no-referrer")
        expect(page.text).not.toMatch(/<script/i)
        expect(page.text).toContain(`<meta property="og:image" content="${made.url}/image.png">`)
        expect(page.text).toContain(`<meta name="twitter:card" content="summary_large_image">`)
        expect(page.text).toContain("Saturday ride")
        expect(page.text).toContain("1 May 2026")
        // the start's time of day is not shared
        expect(page.text).not.toMatch(/08:10|06:10/)
        for (const url of page.text.match(/https?:\/\/[^"'\s<>)]+/g) ?? []) expect(url.startsWith("http://waymark.test/") || url === "http://www.w3.org/2000/svg").toBe(true)
        expect(page.text).toContain('class="map"')
        expect(page.text).toContain("Elevation")
        // heart rate only when the link shows it
        expect(page.text).not.toContain("Heart rate")
        const withHeart = yield* asOutsider(pathOf((yield* share(id, { heartRate: true })).url))
        expect(withHeart.text).toContain("Heart rate")
        const bare = yield* asOutsider(pathOf((yield* share(id, { map: false, charts: false })).url))
        expect(bare.text).not.toContain('class="map"')
        expect(bare.text).not.toContain("Elevation</h2>")
      }))

    it.effect("the picture: a 1200×630 PNG at the link and for the owner under the API", () =>
      Effect.gen(function*() {
        const id = yield* seedRide(ride())
        const made = yield* share(id)
        const image = yield* asOutsider(`${pathOf(made.url)}/image.png`)
        expect(image.status).toBe(200)
        expect(image.headers["content-type"]).toBe("image/png")
        expect(image.headers["cache-control"]).toBe("private, max-age=60")
        expect(pngSize(image.bytes)).toEqual({ width: 1200, height: 630 })
        const own = yield* send("GET", `/api/v1/activities/${id}/share-image.png`)
        expect(own.status).toBe(200)
        expect(pngSize(own.bytes)).toEqual({ width: 1200, height: 630 })
        expect((yield* send("GET", `/api/v1/activities/${id}/share-image.png`, { key: null })).status).toBe(401)
      }))

    it.effect("outsider: a link of a ride from home shows exactly what a ride recorded without the zone shows, page and picture alike", () =>
      Effect.gen(function*() {
        yield* removeZones
        yield* setEnds(0)
        const full = ride()
        const zone = { latitude: HOME[0], longitude: HOME[1], radiusInMeter: 600 }
        const outside = keep(full, (p) => haversine(p, HOME) > zone.radiusInMeter)
        const fromHome = yield* share(yield* seedRide(full))
        const withoutHome = yield* share(yield* seedRide(outside))
        // a zone added after the link was made applies to it
        const before = yield* seen(fromHome.url)
        expect(before).not.toEqual(yield* seen(withoutHome.url))
        const created = yield* send("POST", "/api/v1/privacy-zones", { json: { name: "Home", ...zone } })
        expect(created.status).toBe(201)
        const after = yield* seen(fromHome.url)
        expect(after.page).toEqual((yield* seen(withoutHome.url)).page)
        expect(after.image.equals((yield* seen(withoutHome.url)).image)).toBe(true)
        // the owner's view of what links show starts past the zone
        const id = fromHome.activityId
        const track = (yield* send("GET", `/api/v1/activities/${id}/share-track`)).json
        for (const segment of track.segments) for (const p of segment) expect(haversine(p, HOME)).toBeGreaterThan(600)
        expect(track.distanceInMeter).toBeCloseTo(4_400, -1)
        yield* removeZones
        yield* setEnds(200)
      }))

    it.effect("outsider: the hidden ends leave nothing that a track recorded without them would not show", () =>
      Effect.gen(function*() {
        yield* removeZones
        yield* setEnds(300)
        const full = ride()
        const trimmed = keep(full, (_, i) => i >= 30 && i <= full.latlng.length - 31)
        const a = yield* share(yield* seedRide(full))
        const b = yield* share(yield* seedRide(trimmed))
        const hidden = yield* seen(a.url)
        yield* setEnds(0)
        const cut = yield* seen(b.url)
        expect(hidden.page).toEqual(cut.page)
        expect(hidden.image.equals(cut.image)).toBe(true)
        // the figures shown are the visible track's: 4.4 km, not the recorded 5 km
        expect(hidden.page).toContain("4.40 km")
        expect(hidden.page).not.toContain("5.00 km")
        yield* setEnds(200)
      }))

    it.effect("photos: only when shown, at the link's own path, without their EXIF (a GPS position) or comments", () =>
      Effect.gen(function*() {
        const id = yield* seedRide(ride())
        const segment = (marker: number, content: string) => Buffer.concat([Buffer.from([0xff, marker, 0, content.length + 2]), Buffer.from(content, "latin1")])
        const exif = segment(0xe1, "Exif\0\0GPS 51.0 3.0")
        const comment = segment(0xfe, "home!")
        const jpeg = Buffer.concat([
          Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00]),
          exif,
          comment,
          Buffer.from([0xff, 0xda, 0x00, 0x02, 0x11, 0x22, 0xff, 0xd9])
        ])
        expect((yield* send("POST", `/api/v1/activities/${id}/images`, { body: fileForm("photo.jpg", jpeg) })).status).toBe(201)
        const hidden = yield* share(id)
        expect((yield* asOutsider(pathOf(hidden.url))).text).not.toContain("/photos/1")
        const shown = yield* share(id, { photos: true })
        const path = pathOf(shown.url)
        expect((yield* asOutsider(path)).text).toContain(`src="${path}/photos/1"`)
        const photo = yield* asOutsider(`${path}/photos/1`)
        expect(photo.status).toBe(200)
        expect(photo.headers["content-type"]).toBe("image/jpeg")
        expect(photo.bytes.includes("Exif")).toBe(false)
        expect(photo.bytes.includes("home!")).toBe(false)
        expect(photo.bytes.subarray(0, 20)).toEqual(jpeg.subarray(0, 20))
        expect((yield* asOutsider(`${path}/photos/2`)).status).toBe(404)
      }))
  })

  layer(TestDaemon.layer().pipe(Layer.provide(Layer.succeed(ShareRequestsPolicy, { capacity: 10, perMinute: 6 }))), { excludeTestServices: true })(
    "requests to links, per address",
    (it) => {
      it.effect("429 with Retry-After once an address has asked too much; a token that opens nothing counts ten", () =>
        Effect.gen(function*() {
          const made = yield* share(yield* seedRide(ride()))
          const path = pathOf(made.url)
          expect((yield* asOutsider(path)).status).toBe(200)
          expect((yield* asOutsider(`/s/${"B".repeat(43)}`)).status).toBe(404)
          const refused = yield* asOutsider(path)
          expect(refused.status).toBe(429)
          expect(Number(refused.headers["retry-after"])).toBeGreaterThanOrEqual(1)
          // the owner's API is not limited by it
          expect((yield* send("GET", `/api/v1/activities/${made.activityId}/shares`)).status).toBe(200)
        }))
    }
  )
})
