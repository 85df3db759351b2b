import { describe, expect, it } from "@effect/vitest"
import { XMLParser } from "fast-xml-parser"
import { asciiFallback, gpxFilename, writeGpx } from "../../../src/services/activities/GpxWriter.ts"
import { parseActivityFile } from "../../../src/services/import/parsers/parseActivityFile.ts"

const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "@", isArray: (name) => name === "trkpt" })

const input = {
  name: "Morning <Ride> & \"friends\"",
  sportType: "Ride",
  description: "Tom's <b>best</b>",
  startTime: Date.parse("2024-06-01T08:00:00.400Z"),
  streams: {
    time: [0, 1, 2],
    latlng: [[51.2, 3.2], null, [51.2001, 3.2002]] as Array<[number, number] | null>,
    altitude: [10, 11.5, 12],
    heartrate: [120, 121, 122],
    cadence: [80, 81, 82],
    watts: [200, 210, 220],
    temperature: [21, 21, 22]
  }
}

describe("writeGpx", () => {
  it("writes GPX 1.1 that parses back with one trkpt per time sample", () => {
    const doc = parser.parse(writeGpx(input))
    const gpx = doc.gpx
    expect(gpx["@creator"]).toBe("Waymark")
    expect(gpx["@version"]).toBe("1.1")
    expect(gpx["@xmlns"]).toBe("http://www.topografix.com/GPX/1/1")
    expect(gpx["@xmlns:gpxtpx"]).toBe("http://www.garmin.com/xmlschemas/TrackPointExtension/v1")
    expect(gpx.metadata.time).toBe("2024-06-01T08:00:00.000Z")
    expect(gpx.trk.type).toBe("Ride")
    const points = gpx.trk.trkseg.trkpt
    expect(points).toHaveLength(3)
    expect(points[0]).toMatchObject({ "@lat": "51.2", "@lon": "3.2", ele: 10, time: "2024-06-01T08:00:00.000Z" })
    expect(points[0].extensions.power).toBe(200)
    expect(points[0].extensions["gpxtpx:TrackPointExtension"]).toEqual({ "gpxtpx:atemp": 21, "gpxtpx:hr": 120, "gpxtpx:cad": 80 })
    // no position: no lat/lon attributes, but the time and data are kept
    expect(points[1]["@lat"]).toBeUndefined()
    expect(points[1].time).toBe("2024-06-01T08:00:01.000Z")
    expect(points[2]).toMatchObject({ "@lat": "51.2001", "@lon": "3.2002", ele: 12 })
  })

  it("escapes XML special characters in name and description", () => {
    const xml = writeGpx(input)
    expect(xml).toContain("<name>Morning &lt;Ride&gt; &amp; &quot;friends&quot;</name>")
    const doc = new XMLParser({ processEntities: true }).parse(xml)
    expect(doc.gpx.trk.name).toBe("Morning <Ride> & \"friends\"")
    expect(doc.gpx.trk.desc).toBe("Tom's <b>best</b>")
  })

  it("omits extensions and elevation that the streams do not have", () => {
    const xml = writeGpx({ ...input, description: "", streams: { time: [0, 5], latlng: [[1, 2], [1.001, 2]] } })
    expect(xml).not.toContain("<extensions>")
    expect(xml).not.toContain("<ele>")
    expect(xml).not.toContain("<desc>")
    expect(parser.parse(xml).gpx.trk.trkseg.trkpt[1].time).toBe("2024-06-01T08:00:05.000Z")
  })

  it("carries the activity's totals in the track's Garmin TrackStatsExtension, which an import reads back as the device's", async () => {
    const stats = {
      distanceInMeter: 42_220, movingTimeInSeconds: 7226, elapsedTimeInSeconds: 7476, elevationInMeter: 668, maxSpeedInKmPerHour: 61.2,
      calories: 1497, averageHeartRate: 155, maxHeartRate: 186, averageCadence: null
    }
    const xml = writeGpx({ ...input, stats })
    const trk = parser.parse(xml).gpx.trk
    expect(trk.extensions["gpxtrkx:TrackStatsExtension"]).toEqual({
      "gpxtrkx:Distance": 42_220, "gpxtrkx:TimerTime": 7226, "gpxtrkx:TotalElapsedTime": 7476, "gpxtrkx:MovingTime": 7226,
      "gpxtrkx:MaxSpeed": 17, "gpxtrkx:Ascent": 668, "gpxtrkx:Calories": 1497, "gpxtrkx:AvgHeartRate": 155, "gpxtrkx:MaxHeartRate": 186
    })
    // GPX 1.1 order: the track's extensions come after its type, before its segments
    expect(xml.indexOf("<type>")).toBeLessThan(xml.indexOf("<extensions>"))
    expect(xml.indexOf("</extensions>")).toBeLessThan(xml.indexOf("<trkseg>"))
    const [activity] = await parseActivityFile(new TextEncoder().encode(xml), "gpx", "export.gpx")
    expect(activity!.totals).toMatchObject({
      distanceMeters: 42_220, timerSeconds: 7226, elapsedSeconds: 7476, ascentMeters: 668, calories: 1497,
      averageHeartRate: 155, maxHeartRate: 186, averageCadence: null, maxSpeed: 17
    })
  })

  it("starts a new track segment after a recording gap of over 5 minutes (a pause), not after a sparse recording's minute", () => {
    const xml = writeGpx({ ...input, streams: { time: [0, 1, 61, 500, 501], latlng: [[1, 2], [1.0001, 2], [1.0002, 2], [1.1, 2], [1.1001, 2]] } })
    const segments = parser.parse(xml).gpx.trk.trkseg
    expect(segments.map((seg: { trkpt: Array<unknown> }) => seg.trkpt.length)).toEqual([3, 2])
  })

  it("writes every one of 40,000 points", () => {
    const n = 40_000
    const streams = {
      time: Array.from({ length: n }, (_, i) => i),
      latlng: Array.from({ length: n }, (_, i) => [51 + i * 1e-5, 3 + i * 1e-5] as [number, number]),
      altitude: Array.from({ length: n }, () => 10),
      heartrate: Array.from({ length: n }, () => 130)
    }
    const xml = writeGpx({ ...input, streams })
    expect(xml.split("<trkpt ").length - 1).toBe(n)
  })
})

describe("gpxFilename", () => {
  it("builds <date>-<slug>.gpx keeping Unicode letters", () => {
    expect(gpxFilename("2023-08-31T18:05:00", "Watopia: Flat Forward in London!")).toBe(
      "2023-08-31-watopia-flat-forward-in-london.gpx"
    )
    expect(gpxFilename("2024-01-02T07:00:00", "Rit naar Brugge — Côte d'Azur")).toBe("2024-01-02-rit-naar-brugge-côte-d-azur.gpx")
  })

  it("has an ASCII fallback for Content-Disposition", () => {
    expect(asciiFallback("2024-01-02-côte-d-azur.gpx")).toBe("2024-01-02-c_te-d-azur.gpx")
  })
})
