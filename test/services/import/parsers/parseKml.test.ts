import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { checkActivityFileName, formatOf } from "../../../../src/services/import/files/ActivityFileName.ts"
import { looksTruncated } from "../../../../src/services/import/looksTruncated.ts"
import { ActivityFileError } from "../../../../src/services/import/parsers/ActivityFileError.ts"
import { parseActivityFile } from "../../../../src/services/import/parsers/parseActivityFile.ts"
import { parseKml } from "../../../../src/services/import/parsers/parseKml.ts"
import { kmlOfKmz, parseKmz } from "../../../../src/services/import/parsers/parseKmz.ts"
import { CORPUS_DIR, CORPUS_MISSING_MESSAGE, readCorpusFile } from "../../../support/corpus.ts"
import { kmlOf } from "../../../support/kmlOf.ts"
import { zipBuffer } from "../../../support/zipWriter.ts"

if (!CORPUS_DIR) console.log(CORPUS_MISSING_MESSAGE)

const utf8 = (text: string) => new TextEncoder().encode(text)
const refusal = (run: () => unknown): string => {
  try {
    run()
  } catch (e) {
    expect(e).toBeInstanceOf(ActivityFileError)
    return (e as ActivityFileError).message
  }
  throw new Error("parsed, expected a refusal")
}

/** A KML 2.3 file as OpenTracks writes it and FitTrackee exports it: when and coord interleaved, two tracks, a first when without position. */
const OPEN_TRACKS = `<?xml version="1.0" encoding="UTF-8"?>
<kml xmlns="http://www.opengis.net/kml/2.3" xmlns:gx="http://www.google.com/kml/ext/2.3" xmlns:atom="http://www.w3.org/2005/Atom" xmlns:opentracks="http://opentracksapp.com/xmlschemas/v1">
  <Document>
    <name><![CDATA[just a workout]]></name>
    <atom:generator><![CDATA[OpenTracks]]></atom:generator>
    <Schema id="schema"><gx:SimpleArrayField name="heartrate" type="float"><displayName>Heart rate</displayName></gx:SimpleArrayField></Schema>
    <Placemark>
      <name><![CDATA[Evening walk]]></name>
      <description><![CDATA[along the river & back]]></description>
      <icon><![CDATA[WALK]]></icon>
      <ExtendedData><Data name="type"><value><![CDATA[hiking]]></value></Data></ExtendedData>
      <MultiTrack>
        <altitudeMode>absolute</altitudeMode>
        <Track>
          <when>2018-03-13T13:43:45+01:00</when><coord/>
          <when>2018-03-13T13:44:45+01:00</when><coord>6.07367 44.68095 998</coord>
          <when>2018-03-13T13:44:50+01:00</when><coord>6.07367 44.68091 998</coord>
          <when>2018-03-13T13:45:00+01:00</when><coord>6.07364 44.6808 994</coord>
          <ExtendedData><SchemaData schemaUrl="#schema">
            <gx:SimpleArrayData name="heartrate"><gx:value></gx:value><gx:value>92</gx:value><gx:value>87</gx:value><gx:value>88</gx:value></gx:SimpleArrayData>
            <gx:SimpleArrayData name="cadence"><gx:value>0</gx:value><gx:value>50</gx:value><gx:value>52</gx:value><gx:value>51</gx:value></gx:SimpleArrayData>
          </SchemaData></ExtendedData>
        </Track>
        <Track>
          <when>2018-03-13T13:46:30+01:00</when><coord>6.07364 44.67977 987</coord>
          <when>2018-03-13T13:46:35+01:00</when><coord>6.07367 44.67972 987</coord>
        </Track>
      </MultiTrack>
    </Placemark>
  </Document>
</kml>`

describe("parseKml", () => {
  it("reads an OpenTracks track: each when with its coord and array values by index, each Track a segment, named and typed by its Placemark", () => {
    const [walk, ...rest] = parseKml(utf8(OPEN_TRACKS), "walk.kml")
    expect(rest).toHaveLength(0)
    const t = (hms: string) => Date.parse(`2018-03-13T${hms}+01:00`)
    expect(walk!.format).toBe("kml")
    expect(walk!.name).toBe("Evening walk")
    expect(walk!.description).toBe("along the river & back")
    expect(walk!.sportType).toBe("Hike")
    expect(walk!.deviceName).toBe("OpenTracks")
    expect(walk!.startTime).toBe(t("13:43:45"))
    const s = walk!.samples
    expect(s.time).toEqual([t("13:43:45"), t("13:44:45"), t("13:44:50"), t("13:45:00"), t("13:46:30"), t("13:46:35")])
    expect(s.lat).toEqual([null, 44.68095, 44.68091, 44.6808, 44.67977, 44.67972])
    expect(s.lng).toEqual([null, 6.07367, 6.07367, 6.07364, 6.07364, 6.07367])
    expect(s.altitude).toEqual([null, 998, 998, 994, 987, 987])
    expect(s.heartRate).toEqual([null, 92, 87, 88, null, null])
    expect(s.cadence).toEqual([0, 50, 52, 51, null, null])
    expect(s.segmentStarts).toEqual([4])
  })

  it.skipIf(!CORPUS_DIR)("a corpus GPX written as Google Earth's gx:Track and as OpenTracks' Track gives the GPX's own samples", async () => {
    const [gpx] = await parseActivityFile(readCorpusFile("gpx/garmin-connect-run-hr.gpx"), "gpx", "run.gpx")
    for (const writer of ["googleEarth", "openTracks"] as const) {
      const [kml, ...rest] = parseKml(utf8(kmlOf({ samples: gpx!.samples, writer, name: "Lunch run", type: "running" })), "run.kml")
      expect(rest).toHaveLength(0)
      expect(kml!.sportType).toBe("Run")
      expect(kml!.name).toBe("Lunch run")
      for (const field of ["time", "lat", "lng", "altitude", "heartRate"] as const) expect(kml!.samples[field], `${writer} ${field}`).toEqual(gpx!.samples[field])
    }
  })

  it("times a LineString by its Placemark's TimeSpan, at an even pace along the line", () => {
    const [line] = parseKml(utf8(`<kml xmlns="http://www.opengis.net/kml/2.2"><Document><Placemark><name>Commute</name>
      <TimeSpan><begin>2024-05-01T08:00:00Z</begin><end>2024-05-01T08:03:00Z</end></TimeSpan>
      <LineString><coordinates>6,45,400 6,45.001,401
        6,45.003,402</coordinates></LineString></Placemark></Document></kml>`), "line.kml")
    const t0 = Date.parse("2024-05-01T08:00:00Z")
    expect(line!.name).toBe("Commute")
    expect(line!.samples.time).toEqual([t0, t0 + 60_000, t0 + 180_000])
    expect(line!.samples.lat).toEqual([45, 45.001, 45.003])
    expect(line!.samples.altitude).toEqual([400, 401, 402])
  })

  it("tracks of Placemarks more than a day apart are activities of their own, each named by its Placemark", () => {
    const placemark = (name: string, day: string) => `<Placemark><name>${name}</name><gx:Track>
      <when>${day}T08:00:00Z</when><when>${day}T08:00:10Z</when><gx:coord>6 45 0</gx:coord><gx:coord>6 45.001 0</gx:coord></gx:Track></Placemark>`
    const activities = parseKml(utf8(`<kml xmlns:gx="http://www.google.com/kml/ext/2.2"><Document><name>My tracks</name><Folder>
      ${placemark("Wednesday", "2024-05-08")}${placemark("Monday", "2024-05-06")}</Folder></Document></kml>`), "week.kml")
    expect(activities.map((a) => [a.name, new Date(a.startTime).toISOString()])).toEqual([
      ["Monday", "2024-05-06T08:00:00.000Z"],
      ["Wednesday", "2024-05-08T08:00:00.000Z"]
    ])
  })

  it("refuses what is not a timed KML recording, saying why", () => {
    expect(refusal(() => parseKml(utf8("<gpx><trk/></gpx>"), "x.kml"))).toBe(`"x.kml" is not a KML file (root element <gpx>)`)
    expect(refusal(() => parseKml(utf8(`<kml><Document><Placemark><LineString><coordinates>6,45 6,46</coordinates></LineString></Placemark></Document></kml>`), "route.kml")))
      .toMatch(/^"route\.kml" holds no timed track/)
    expect(refusal(() => parseKml(utf8(`<!DOCTYPE kml [<!ENTITY x "y">]><kml/>`), "evil.kml"))).toMatch(/declares a DOCTYPE/)
    expect(refusal(() => parseKml(utf8(OPEN_TRACKS.slice(0, 900)), "cut.kml"))).toMatch(/^"cut\.kml" is (truncated or )?not well-formed XML/)
  })
})

describe("parseKmz", () => {
  it("reads the KML of a KMZ (doc.kml beside its images) as a KML, of the kmz format", async () => {
    const kmz = zipBuffer([{ name: "files/photo.jpg", data: "not read" }, { name: "doc.kml", data: OPEN_TRACKS }])
    const [walk] = await parseKmz(kmz, "walk.kmz")
    expect(walk!.format).toBe("kmz")
    expect(walk!.samples.time).toHaveLength(6)
    expect(Buffer.from(await kmlOfKmz(zipBuffer([{ name: "other.kml", data: "<kml/>", deflate: false }]), "a.kmz")).toString()).toBe("<kml/>")
  })

  it("refuses a KMZ without a KML, and what is no zip", async () => {
    await expect(parseKmz(zipBuffer([{ name: "photo.jpg", data: "x" }]), "empty.kmz")).rejects.toThrow(`"empty.kmz" is a KMZ without a KML document (doc.kml)`)
    await expect(parseKmz(utf8(OPEN_TRACKS), "plain.kmz")).rejects.toThrow(/^"plain\.kmz" is not a readable KMZ \(zip\) file/)
  })
})

describe("KML and KMZ as activity files", () => {
  it("parseActivityFile reads each by its format, repaired and named as a GPX is", async () => {
    const [kml] = await parseActivityFile(utf8(OPEN_TRACKS), "kml", "walk.kml")
    const [kmz] = await parseActivityFile(zipBuffer([{ name: "doc.kml", data: OPEN_TRACKS }]), "kmz", "walk.kmz", "Walk")
    expect([kml!.format, kml!.sportType, kml!.name]).toEqual(["kml", "Hike", "Evening walk"])
    // the sport the athlete gave the file elsewhere wins over the file's own
    expect([kmz!.format, kmz!.sportType]).toEqual(["kmz", "Walk"])
    expect(kmz!.samples.time).toEqual(kml!.samples.time)
    await expect(parseActivityFile(utf8(OPEN_TRACKS), "kmz", "walk.kmz")).rejects.toBeInstanceOf(ActivityFileError)
  })

  it("names ending in .kml or .kmz (gzipped or not) are activity files, stored lowercased", () => {
    expect(formatOf("Walk.KML")).toBe("kml")
    expect(formatOf("walk.kmz")).toBe("kmz")
    expect(formatOf("walk.kml.gz")).toBe("kml")
    expect(checkActivityFileName("Walk.KMZ")).toEqual(Either.right({ name: "Walk.kmz", format: "kmz" }))
    expect(formatOf("walk.kml.zip")).toBeNull()
  })

  it("a KMZ or KML cut short looks truncated (a copy under way), a whole one does not", () => {
    const kmz = zipBuffer([{ name: "doc.kml", data: OPEN_TRACKS }])
    expect(looksTruncated("kmz", kmz)).toBe(false)
    expect(looksTruncated("kmz", kmz.subarray(0, kmz.length - 30))).toBe(true)
    expect(looksTruncated("kmz", utf8("<kml/>"))).toBe(false)
    expect(looksTruncated("kml", utf8(OPEN_TRACKS))).toBe(false)
    expect(looksTruncated("kml", utf8(OPEN_TRACKS.slice(0, 900)))).toBe(true)
  })
})
