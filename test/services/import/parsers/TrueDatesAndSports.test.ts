import { describe, expect, it } from "@effect/vitest"
import { computeActivity } from "../../../../src/services/import/ActivityMetrics.ts"
import { parseActivityFile } from "../../../../src/services/import/parsers/parseActivityFile.ts"
import { CORPUS_DIR, readCorpusFile } from "../../../support/corpus.ts"
import { context, syntheticActivity } from "../metrics/synthetic.ts"

const encoder = new TextEncoder()

/** A GPX of `n` points going east from Ljubljana at `speed` m/s, each with the time `timeOf(i)` gives. */
const gpx = (o: {
  readonly n?: number
  readonly speed?: number
  readonly type?: string
  readonly metadataTime?: string
  readonly timeOf?: (i: number) => string
  readonly extensions?: string
}) => {
  const n = o.n ?? 600
  const speed = o.speed ?? 3
  const start = Date.parse("2021-03-02T08:00:00Z")
  const points = Array.from({ length: n }, (_, i) => {
    const lon = 14.5 + (i * speed) / (111_320 * Math.cos((46.05 * Math.PI) / 180))
    const time = o.timeOf ? o.timeOf(i) : new Date(start + i * 1000).toISOString()
    return `<trkpt lat="46.05" lon="${lon.toFixed(7)}"><ele>300</ele><time>${time}</time>${o.extensions ?? ""}</trkpt>`
  }).join("")
  return encoder.encode(
    `<?xml version="1.0"?><gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1" xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v1">` +
      `${o.metadataTime ? `<metadata><time>${o.metadataTime}</time></metadata>` : ""}` +
      `<trk>${o.type ? `<type>${o.type}</type>` : ""}<trkseg>${points}</trkseg></trk></gpx>`
  )
}

const computed = async (bytes: Uint8Array, format: "gpx" | "tcx" | "fit" = "gpx", name = `a.${format}`) =>
  (await parseActivityFile(bytes, format, name)).map((p) => computeActivity(p, context))

describe("true dates", () => {
  it("a GPX whose points carry GPSBabel's no-time placeholder (1901-12-13) is dated from its metadata time, its times unknown", async () => {
    const [a] = await computed(gpx({ metadataTime: "2010-12-14T09:30:00Z", timeOf: () => "1901-12-13T20:45:52Z" }))
    expect(a!.startDateLocal).toBe("2010-12-14T10:30:00")
    expect(a!.hasTimes).toBe(false)
    expect(a!.distanceInMeter).toBeGreaterThan(1700)
  })

  it("a GPX of placeholders only, with no metadata time, is never dated 1901: its date is unknown, its start the time it was imported", async () => {
    const [parsed] = await parseActivityFile(gpx({ timeOf: () => "1901-12-13T20:45:52Z" }), "gpx", "a.gpx")
    expect(parsed!.dateUnknown).toBe(true)
    const importedAt = Date.parse("2026-11-29T12:34:56.789Z")
    const a = computeActivity(parsed!, { ...context, importedAt })
    expect(a.dateUnknown).toBe(true)
    expect(a.hasTimes).toBe(false)
    expect(a.startTime).toBe(Date.parse("2026-11-29T12:34:56Z"))
    // in Ljubljana's zone, as any start; a name without the stand-in's time of day
    expect(a.startDateLocal).toBe("2026-11-29T13:34:56")
    expect(a.name).toBe("Workout")
    expect(a.distanceInMeter).toBeGreaterThan(1700)
    expect(a.elevationInMeter).toBe(0)
    expect(a.encodedPolyline).not.toBeNull()
    expect(a.repairs).toContainEqual(expect.stringMatching(/^date unknown: nothing in the file tells when it was recorded/))
    // with a metadata time its date is known
    const [dated] = await parseActivityFile(gpx({ metadataTime: "2010-12-14T09:30:00Z", timeOf: () => "1901-12-13T20:45:52Z" }), "gpx", "a.gpx")
    expect(dated!.dateUnknown).toBeUndefined()
  })

  it("a route of the corpus mapped on MapMyFitness, without any time, is a route whose date is unknown: its 9,722 points and distance kept", async () => {
    if (!CORPUS_DIR) return
    const [a] = await computed(new Uint8Array(readCorpusFile("gpx/mapmyfitness-route-no-time-no-ele.gpx")))
    expect(a!.dateUnknown).toBe(true)
    expect(a!.hasTimes).toBe(false)
    expect(a!.hasGpx).toBe(true)
    expect(a!.distanceInMeter).toBeGreaterThan(10_000)
    expect(a!.movingTimeInSeconds).toBe(0)
  })

  it("a device writing a zero UTC offset near Prague is placed by its position; one in London in winter keeps it", () => {
    const prague = syntheticActivity({ origin: [50.08, 14.42], start: "2020-01-15T13:52:00Z", utcOffsetSeconds: 0, sportType: "Run", speed: () => 3 })
    expect(computeActivity(prague, context).startDateLocal).toBe("2020-01-15T14:52:00")
    const london = syntheticActivity({ origin: [51.5, -0.12], start: "2020-01-15T13:52:00Z", utcOffsetSeconds: 0, sportType: "Run", speed: () => 3 })
    expect(computeActivity(london, context).startDateLocal).toBe("2020-01-15T13:52:00")
    // an offset the device did write stays the device's, wherever it is
    const travelling = syntheticActivity({ origin: [50.08, 14.42], start: "2020-01-15T13:52:00Z", utcOffsetSeconds: 7200, sportType: "Run", speed: () => 3 })
    expect(computeActivity(travelling, context).startDateLocal).toBe("2020-01-15T15:52:00")
  })
})

describe("true sports", () => {
  it("a GPX without a type is a ride with power and cadence at 20 km/h, a run at 11 km/h, a walk at 5 km/h; a named type stays", async () => {
    const powered = "<extensions><power>210</power><gpxtpx:TrackPointExtension><gpxtpx:cad>88</gpxtpx:cad></gpxtpx:TrackPointExtension></extensions>"
    expect((await computed(gpx({ speed: 20 / 3.6, extensions: powered })))[0]!.sportType).toBe("Ride")
    expect((await computed(gpx({ speed: 11 / 3.6 })))[0]!.sportType).toBe("Run")
    expect((await computed(gpx({ speed: 5 / 3.6 })))[0]!.sportType).toBe("Walk")
    expect((await computed(gpx({ speed: 11 / 3.6, type: "Hike" })))[0]!.sportType).toBe("Hike")
  })

  it("a TCX without a Sport is given the one its samples tell; a chosen sport is kept", async () => {
    const points = Array.from({ length: 600 }, (_, i) =>
      `<Trackpoint><Time>${new Date(Date.parse("2021-03-02T08:00:00Z") + i * 1000).toISOString()}</Time><DistanceMeters>${(i * 8).toFixed(1)}</DistanceMeters><Cadence>90</Cadence></Trackpoint>`
    ).join("")
    const tcx = encoder.encode(
      `<?xml version="1.0"?><TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2"><Activities><Activity>` +
        `<Id>2021-03-02T08:00:00Z</Id><Lap StartTime="2021-03-02T08:00:00Z"><TotalTimeSeconds>599</TotalTimeSeconds><DistanceMeters>4792</DistanceMeters><Track>${points}</Track></Lap>` +
        `</Activity></Activities></TrainingCenterDatabase>`
    )
    expect((await computed(tcx, "tcx"))[0]!.sportType).toBe("Ride")
    const [chosen] = await parseActivityFile(tcx, "tcx", "a.tcx", "Run")
    expect(chosen!.sportType).toBe("Run")
  })

  it.skipIf(!CORPUS_DIR)("real files: Locus Map's untyped run is a run (as workoutizer reads it); the Edge 820's commuting ride is a commute", async () => {
    const [locus] = await computed(new Uint8Array(readCorpusFile("gpx/locus-map-run.gpx")), "gpx")
    expect(locus!.sportType).toBe("Run")
    expect(locus!.distanceInMeter / 1000).toBeCloseTo(4.29, 1)
    const [commute] = await computed(new Uint8Array(readCorpusFile("fit/garmin-edge820-commute-ride.fit")), "fit")
    expect(commute!.sportType).toBe("Ride")
    expect(commute!.isCommute).toBe(true)
    const [road] = await computed(new Uint8Array(readCorpusFile("fit/garmin-edge1000-ride.fit")), "fit")
    expect(road!.isCommute).toBe(false)
  })

  it.skipIf(!CORPUS_DIR)("real files: an untyped ride at 16 km/h (the Edge 1000's, its <type> taken out) is never called a run: between a fast run's pace and a ride's it stays a Workout", async () => {
    const untyped = readCorpusFile("gpx/garmin-connect-edge1000-ride.gpx").toString("utf8").replace(/<type>[^<]*<\/type>/g, "")
    const [ride] = await computed(new TextEncoder().encode(untyped), "gpx")
    expect(ride!.sportType).toBe("Workout")
    const [run] = await computed(new Uint8Array(readCorpusFile("gpx/garmin-connect-run-hr.gpx")), "gpx")
    expect(run!.sportType).toBe("Run")
  })
})
