import { describe, expect, it } from "@effect/vitest"
import { computeActivity } from "../../../../src/services/import/ActivityMetrics.ts"
import { ActivityFileError } from "../../../../src/services/import/parsers/ActivityFileError.ts"
import { workoutSummary } from "../../../../src/services/import/parsers/gpxSummary.ts"
import { gpxSport } from "../../../../src/services/import/parsers/parseGpx.ts"
import { parseActivityFile } from "../../../../src/services/import/parsers/parseActivityFile.ts"
import type { FileFormat } from "../../../../src/schema/ParsedActivity.ts"

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text)

const rejection = async (text: string, format: FileFormat, name: string): Promise<string> => {
  const error = await parseActivityFile(utf8(text), format, name).then(
    () => {
      throw new Error(`${name} parsed, expected a rejection`)
    },
    (e: unknown) => e
  )
  expect(error).toBeInstanceOf(ActivityFileError)
  return (error as ActivityFileError).message
}

const trackpoint = (time: string, extra: string) => `<Trackpoint><Time>${time}</Time>${extra}</Trackpoint>`

const TCX = `   
<?xml version="1.0" encoding="UTF-8"?>
<TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2" xmlns:ns3="http://www.garmin.com/xmlschemas/ActivityExtension/v2">
  <Activities>
    <Activity Sport="Biking">
      <Id>2021-06-01T10:00:00Z</Id>
      <Lap StartTime="2021-06-01T10:00:00Z">
        <TotalTimeSeconds>60</TotalTimeSeconds><DistanceMeters>300</DistanceMeters><MaximumSpeed>6.5</MaximumSpeed><Calories>10</Calories>
        <AverageHeartRateBpm><Value>120</Value></AverageHeartRateBpm><MaximumHeartRateBpm><Value>130</Value></MaximumHeartRateBpm>
        <Track>
          ${trackpoint("2021-06-01T10:00:00Z", "<Position><LatitudeDegrees>46.5</LatitudeDegrees><LongitudeDegrees>7.5</LongitudeDegrees></Position><AltitudeMeters>0</AltitudeMeters><DistanceMeters>0</DistanceMeters><HeartRateBpm><Value>110</Value></HeartRateBpm><Cadence>80</Cadence><Extensions><ns3:TPX><ns3:Speed>5</ns3:Speed><ns3:Watts>200</ns3:Watts></ns3:TPX></Extensions>")}
          ${trackpoint("2021-06-01T10:00:30Z", "<AltitudeMeters>512.5</AltitudeMeters><DistanceMeters>150</DistanceMeters><HeartRateBpm><Value>125</Value></HeartRateBpm>")}
        </Track>
      </Lap>
      <Lap StartTime="2021-06-01T10:01:00Z">
        <TotalTimeSeconds>40.5</TotalTimeSeconds><DistanceMeters>200</DistanceMeters><Calories>7</Calories>
        <MaximumHeartRateBpm><Value>140</Value></MaximumHeartRateBpm>
        <Track>${trackpoint("2021-06-01T10:01:00Z", "<DistanceMeters>300</DistanceMeters>")}</Track>
        <Track>${trackpoint("2021-06-01T11:01:10+01:00", "<DistanceMeters>400</DistanceMeters>")}${trackpoint("2021-06-01T10:01:20.500Z", "<DistanceMeters>500</DistanceMeters>")}</Track>
      </Lap>
      <Creator><Name>Edge 520</Name></Creator>
    </Activity>
  </Activities>
</TrainingCenterDatabase>`

describe("parseActivityFile (TCX built in code)", () => {
  it("reads sport, device, trackpoints with TPX extensions, laps, lap-sum totals and a segment per Track", async () => {
    const [a, ...rest] = await parseActivityFile(utf8(TCX), "tcx", "ride.tcx")
    expect(rest).toHaveLength(0)
    const t0 = Date.parse("2021-06-01T10:00:00Z")
    expect(a!.format).toBe("tcx")
    expect(a!.sportType).toBe("Ride")
    expect(a!.deviceName).toBe("Edge 520")
    expect(a!.startTime).toBe(t0)
    const s = a!.samples
    expect(s.time).toEqual([t0, t0 + 30_000, t0 + 60_000, t0 + 70_000, t0 + 80_500])
    expect(s.lat).toEqual([46.5, null, null, null, null])
    expect(s.lng).toEqual([7.5, null, null, null, null])
    // the exact-0 altitude is "none" because the file has real altitudes
    expect(s.altitude).toEqual([null, 512.5, null, null, null])
    expect(s.distance).toEqual([0, 150, 300, 400, 500])
    expect(s.heartRate).toEqual([110, 125, null, null, null])
    expect(s.cadence).toEqual([80, null, null, null, null])
    expect(s.speed).toEqual([5, null, null, null, null])
    expect(s.power).toEqual([200, null, null, null, null])
    expect(s.segmentStarts).toEqual([2, 3])
    expect(a!.totals.distanceMeters).toBe(500)
    // the last lap's timer runs to 10:01:40.5, past its last trackpoint (10:01:20.5)
    expect(a!.totals.elapsedSeconds).toBe(100.5)
    expect(a!.totals.timerSeconds).toBe(100.5)
    expect(a!.totals.calories).toBe(17)
    expect(a!.totals.maxHeartRate).toBe(140)
    expect(a!.laps).toHaveLength(2)
    expect(a!.laps[0]).toEqual({
      startTime: t0, elapsedSeconds: null, timerSeconds: 60, distanceMeters: 300, ascentMeters: null, averageSpeed: null,
      maxSpeed: 6.5, averageHeartRate: 120, maxHeartRate: 130, calories: 10
    })
  })

  it("gives wall-clock elapsed time (pauses included) and the laps' TotalTimeSeconds as the timer", async () => {
    const lap = (start: string, seconds: number, points: string) =>
      `<Lap StartTime="${start}"><TotalTimeSeconds>${seconds}</TotalTimeSeconds><Track>${points}</Track></Lap>`
    const tcx = (laps: string) =>
      `<?xml version="1.0"?><TrainingCenterDatabase><Activities><Activity Sport="Running">${laps}</Activity></Activities></TrainingCenterDatabase>`
    const totals = async (laps: string) => (await parseActivityFile(utf8(tcx(laps)), "tcx", "t.tcx"))[0]!.totals
    // a treadmill run paused for 10 min: timer 60 s, 12 min on the clock from the first to the last trackpoint
    const paused = lap("2021-06-01T10:00:00Z", 60, [
      trackpoint("2021-06-01T10:00:00Z", ""), trackpoint("2021-06-01T10:00:30Z", ""),
      trackpoint("2021-06-01T10:11:40Z", ""), trackpoint("2021-06-01T10:12:00Z", "")
    ].join(""))
    expect(await totals(paused)).toMatchObject({ elapsedSeconds: 720, timerSeconds: 60 })
    // a few trackpoints but a long lap: the lap's end, and never less than the timer
    const sparse = lap("2021-06-01T10:00:00Z", 3600, trackpoint("2021-06-01T10:00:00Z", "") + trackpoint("2021-06-01T10:00:04Z", ""))
    expect(await totals(sparse)).toMatchObject({ elapsedSeconds: 3600, timerSeconds: 3600 })
    // trackpoints covering only the end of a lap that began 15 min earlier (Fitbit export)
    const tail = lap("2021-06-01T10:00:00Z", 1200, trackpoint("2021-06-01T10:15:00Z", "") + trackpoint("2021-06-01T10:20:00Z", ""))
    expect(await totals(tail)).toMatchObject({ elapsedSeconds: 1200, timerSeconds: 1200 })
    // a lap starting after the last trackpoint (a bogus StartTime) does not stretch the activity
    const bogus = lap("2021-06-01T10:00:00Z", 60, trackpoint("2021-06-01T10:00:00Z", "") + trackpoint("2021-06-01T10:01:00Z", "")) +
      lap("2021-06-02T10:00:00Z", 30, "")
    expect(await totals(bogus)).toMatchObject({ elapsedSeconds: 90, timerSeconds: 90 })
    const [parsed] = await parseActivityFile(utf8(tcx(paused)), "tcx", "t.tcx")
    const draft = computeActivity(parsed!, { filename: "t.tcx", fallbackTimeZone: "UTC" })
    expect(draft).toMatchObject({ elapsedTimeInSeconds: 720, movingTimeInSeconds: 60 })
  })

  it("gives one activity per <Activity> and maps TCX sports (Running, Other, exact names, unknown)", async () => {
    const activity = (sport: string, time: string) =>
      `<Activity Sport="${sport}"><Lap StartTime="${time}"><Track>${trackpoint(time, "")}</Track></Lap></Activity>`
    const doc = `<?xml version="1.0"?><TrainingCenterDatabase><Activities>${activity("Running", "2021-01-01T08:00:00Z")}${activity("Other", "2021-01-02T08:00:00Z")}${activity("TrailRun", "2021-01-03T08:00:00Z")}${activity("Quidditch", "2021-01-04T08:00:00Z")}</Activities></TrainingCenterDatabase>`
    const activities = await parseActivityFile(utf8(doc), "tcx", "multi.tcx")
    expect(activities.map((a) => a.sportType)).toEqual(["Run", "Workout", "TrailRun", "Workout"])
  })

  it("refuses a Courses file, DOCTYPE, truncated XML and plain text", async () => {
    expect(await rejection(`<?xml version="1.0"?><TrainingCenterDatabase><Courses><Course><Name>x</Name></Course></Courses></TrainingCenterDatabase>`, "tcx", "c.tcx"))
      .toBe('"c.tcx" is a course, not an activity')
    expect(await rejection(`<?xml version="1.0"?><!DOCTYPE foo [<!ENTITY x "y">]><TrainingCenterDatabase/>`, "tcx", "d.tcx"))
      .toBe('"d.tcx" declares a DOCTYPE: XML with DOCTYPE or entity declarations is refused')
    expect(await rejection(TCX.slice(0, 900), "tcx", "t.tcx")).toMatch(/^"t\.tcx" is truncated or not well-formed XML/)
    expect(await rejection("Error: cannot open file", "tcx", "p.tcx")).toBe('"p.tcx" is not XML')
    expect(await rejection(`<?xml version="1.0"?><TrainingCenterDatabase><Activities><Activity Sport="Running"><Lap><Track><Trackpoint><DistanceMeters>1</DistanceMeters></Trackpoint></Track></Lap></Activity></Activities></TrainingCenterDatabase>`, "tcx", "n.tcx"))
      .toBe('"n.tcx" contains no trackpoints with a time')
  })
})

const GPX = `<?xml version="1.0" encoding="UTF-8"?>
<gpx version="1.1" creator="StravaGPX Android" xmlns="http://www.topografix.com/GPX/1/1" xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v1">
  <metadata><name>Evening run</name><desc>easy</desc></metadata>
  <trk>
    <name>Track name</name><type></type>
    <trkseg>
      <trkpt lat="46.5" lon="7.5"><ele>500.5</ele><time>2021-06-01T18:00:00Z</time>
        <extensions><gpxtpx:TrackPointExtension><gpxtpx:hr>140</gpxtpx:hr><gpxtpx:cad>85</gpxtpx:cad><gpxtpx:atemp>18</gpxtpx:atemp></gpxtpx:TrackPointExtension><power>250</power></extensions></trkpt>
      <trkpt lat="46.5001" lon="7.5001"><ele>501</ele></trkpt>
      <trkpt lat="0" lon="0"><ele>20000</ele><time>2021-06-01T20:00:05.250+02:00</time><extensions><gpxdata:heartrate>145</gpxdata:heartrate></extensions></trkpt>
    </trkseg>
    <trkseg>
      <trkpt lat="46.51" lon="7.51"><time>2021-06-01T18:10:00Z</time></trkpt>
      <trkpt lat="46.52" lon="7.52"><time>2021-06-01T18:10:05Z</time></trkpt>
    </trkseg>
    <trkseg><trkpt lat="46.53" lon="7.53"><time>2021-06-01T18:20:00Z</time></trkpt></trkseg>
  </trk>
  <trk><type>9</type></trk>
</gpx>`

describe("parseActivityFile (GPX built in code)", () => {
  it("reads timed points, recursive extensions, names, creator, sport code and a segment per trkseg of 2+ timed points", async () => {
    const [a, ...rest] = await parseActivityFile(utf8(GPX), "gpx", "run.gpx")
    expect(rest).toHaveLength(0)
    const t0 = Date.parse("2021-06-01T18:00:00Z")
    expect(a!.format).toBe("gpx")
    expect(a!.sportType).toBe("Run") // first non-empty trk/type: Strava code 9
    expect(a!.name).toBe("Evening run")
    expect(a!.description).toBe("easy")
    expect(a!.deviceName).toBe("StravaGPX Android")
    expect(a!.startTime).toBe(t0)
    const s = a!.samples
    // the point without time is skipped; +02:00 and milliseconds are honoured
    expect(s.time).toEqual([t0, t0 + 5250, t0 + 600_000, t0 + 605_000, t0 + 1_200_000])
    expect(s.lat).toEqual([46.5, null, 46.51, 46.52, 46.53]) // 0/0 = no fix
    expect(s.altitude).toEqual([500.5, null, null, null, null]) // 20000 m is out of range
    expect(s.heartRate).toEqual([140, 145, null, null, null]) // an undeclared gpxdata: prefix is tolerated
    expect(s.cadence).toEqual([85, null, null, null, null])
    expect(s.power).toEqual([250, null, null, null, null])
    expect(s.temperature).toEqual([18, null, null, null, null])
    expect(s.segmentStarts).toEqual([2])
    expect(a!.totals.distanceMeters).toBeNull()
  })

  it("makes a ride whose track lies in Watopia (open sea near the Solomon Islands) a VirtualRide in Zwift, located nowhere, whatever its creator", async () => {
    // a Watopia loop, about every 10 s, exported by an app that names neither Zwift nor the world
    const points = Array.from({ length: 60 }, (_, i) =>
      `<trkpt lat="${(-11.65 - i * 0.0003).toFixed(5)}" lon="${(166.95 + i * 0.0004).toFixed(5)}"><time>2024-03-01T18:${String(Math.floor(i / 6)).padStart(2, "0")}:${String((i % 6) * 10).padStart(2, "0")}Z</time></trkpt>`)
    const doc = `<gpx version="1.1" creator="SomeExporter"><trk><type>cycling</type><trkseg>${points.join("")}</trkseg></trk></gpx>`
    const [ride] = await parseActivityFile(utf8(doc), "gpx", "evening.gpx")
    expect([ride!.sportType, ride!.worldType]).toEqual(["VirtualRide", "zwift"])
    const draft = computeActivity(ride!, { filename: "evening.gpx", fallbackTimeZone: "UTC" })
    expect([draft.location, draft.passedThroughCountries]).toEqual([{ countryCode: null, state: null, city: null }, []])
    // the same track in a real place is a real ride
    const [real] = await parseActivityFile(utf8(doc.replaceAll("lat=\"-11.", "lat=\"-12.")), "gpx", "real.gpx")
    expect([real!.sportType, real!.worldType]).toEqual(["Ride", undefined])
  })

  it("reads GPX 1.0, takes the trk name without metadata and maps sport words", async () => {
    const doc = `<gpx version="1.0" creator="GPSBabel"><trk><name>Commute</name><desc>to work</desc><type>cycling</type><trkseg><trkpt lat="1" lon="2"><time>2010-01-01T10:00:00</time><speed>4.5</speed></trkpt></trkseg></trk></gpx>`
    const [a] = await parseActivityFile(utf8(doc), "gpx", "old.gpx")
    expect(a!.sportType).toBe("Ride")
    expect(a!.name).toBe("Commute")
    expect(a!.description).toBe("to work")
    expect(a!.startTime).toBe(Date.parse("2010-01-01T10:00:00Z")) // no zone designator: UTC
    expect(a!.samples.speed).toEqual([4.5])
  })

  it("takes total calories from <calories> in the track extensions, summed over the tracks", async () => {
    const point = (time: string) => `<trkpt lat="46.5" lon="7.5"><time>${time}</time></trkpt>`
    const doc = `<gpx version="1.1" creator="App" xmlns:x="urn:x">
      <trk><name>Morning</name><extensions><x:calories>120</x:calories></extensions>
        <trkseg>${point("2021-06-01T08:00:00Z")}${point("2021-06-01T08:10:00Z")}</trkseg></trk>
      <trk><extensions><x:Stats><x:Calories unit="kcal">30.4</x:Calories><x:Distance>10</x:Distance></x:Stats></extensions>
        <trkseg>${point("2021-06-01T08:20:00Z")}</trkseg></trk>
    </gpx>`
    const [a] = await parseActivityFile(utf8(doc), "gpx", "cal.gpx")
    expect(a!.totals.calories).toBe(150)
    expect(a!.name).toBe("Morning")
    const draft = computeActivity(a!, { filename: "cal.gpx", fallbackTimeZone: "UTC" })
    expect(draft.calories).toBe(150)
    // without any <calories>, none
    expect((await parseActivityFile(utf8(GPX), "gpx", "run.gpx"))[0]!.totals.calories).toBeNull()
  })

  it("reads a FitoTrack workout summary in <metadata><name> as distance, times, calories and description, not as the name", async () => {
    const summary = "Workout(id=182775413781138, uuid=68cfcda9-fa21-4a95-b2a1-fcf228705550, start=1785743210127, end=1785746832700, " +
      "activeDuration=3512996, comment=Walked to the market, distance=4995.375465210002, repetitions=0, energy=1696923.2514277645, " +
      "workoutTypeId=walking, intervalSetUsedId=-1)"
    const doc = `<gpx version="1.1" creator="FitoTrack"><metadata><name>${summary}</name><desc></desc></metadata>
      <trk><trkseg><trkpt lat="51" lon="3.7"><time>2026-08-03T07:46:55Z</time></trkpt><trkpt lat="51.001" lon="3.701"><time>2026-08-03T07:47:55Z</time></trkpt></trkseg></trk></gpx>`
    const [a] = await parseActivityFile(utf8(doc), "gpx", "fito.gpx")
    expect(a!.name).toBeNull()
    expect(a!.description).toBe("Walked to the market")
    expect(a!.totals).toMatchObject({ distanceMeters: 4995.375465210002, elapsedSeconds: 3623, timerSeconds: 3513, calories: 406 })
    const draft = computeActivity(a!, { filename: "fito.gpx", fallbackTimeZone: "UTC" })
    expect(draft).toMatchObject({ calories: 406, distanceInMeter: 4995, elapsedTimeInSeconds: 3623, movingTimeInSeconds: 3513, sportType: "Walk", name: "Morning Walk" })
  })

  it("parses workout summaries strictly: other names are names, implausible values are dropped one by one", () => {
    for (const name of ["Morning Ride", "Workout", "Workout()", "Workout(hard)", "Ride (with Bob)", "Route(start=1785743210127)", "Workout(id=1, uuid=x)"]) {
      expect(workoutSummary(name), name).toBeNull()
    }
    expect(workoutSummary("Workout(start=1785743210127, comment=Ran fast, then walked (slowly), distance=1000)"))
      .toEqual({ distanceMeters: 1000, elapsedSeconds: null, timerSeconds: null, calories: null, description: "Ran fast, then walked (slowly)", sport: null })
    expect(workoutSummary("workout(distance=-5, energy=999999999, activeDuration=0, start=1785743210, end=1785746832, comment=)"))
      .toEqual({ distanceMeters: null, elapsedSeconds: null, timerSeconds: null, calories: null, description: null, sport: null })
    expect(workoutSummary("Workout(distance=99999999, energy=NaN, start=1785746832700, end=1785743210127)"))
      .toEqual({ distanceMeters: null, elapsedSeconds: null, timerSeconds: null, calories: null, description: null, sport: null })
    expect(workoutSummary(`Workout(distance=1${"0".repeat(5000)})`)).toBeNull()
  })

  it.each([
    ["1", "Ride"], ["4", "Hike"], ["9", "Run"], ["10", "Walk"], ["16", "Swim"], ["99", "Workout"], ["running", "Run"], ["biking", "Ride"],
    ["walking", "Walk"], ["hiking", "Hike"], ["swimming", "Swim"], ["VirtualRide", "VirtualRide"], ["road_biking", "Ride"],
    ["unheard-of", "Workout"]
  ] as const)("trk/type %s -> %s", (type, expected) => {
    expect(gpxSport(type)).toBe(expected)
  })

  it("refuses files without timed track points, routes, DOCTYPE and non-XML", async () => {
    // one point, no time: no route either
    expect(await rejection(`<gpx><trk><trkseg><trkpt lat="1" lon="2"/></trkseg></trk></gpx>`, "gpx", "n.gpx"))
      .toBe('"n.gpx" has no track points with a time')
    expect(await rejection(`<gpx><rte><rtept lat="1" lon="2"/></rte></gpx>`, "gpx", "r.gpx"))
      .toBe('"r.gpx" is a route (<rte> only), not a recorded activity')
    expect(await rejection(`<?xml version="1.0"?>\n<!DOCTYPE gpx SYSTEM "http://x/gpx.dtd"><gpx/>`, "gpx", "d.gpx"))
      .toBe('"d.gpx" declares a DOCTYPE: XML with DOCTYPE or entity declarations is refused')
    expect(await rejection(`<gpx><!ENTITY a "b"></gpx>`, "gpx", "e.gpx")).toMatch(/declares a DOCTYPE/)
    expect(await rejection("", "gpx", "z.gpx")).toBe('"z.gpx" is empty (0 bytes)')
    expect(await rejection("GPSBabel error: no such file", "gpx", "x.gpx")).toBe('"x.gpx" is not XML')
    expect(await rejection(`<kml><Document/></kml>`, "gpx", "k.gpx")).toBe('"k.gpx" is not a GPX file (root element <kml>)')
  })

  it("reads each track point on its own as the XML says it: entities, CDATA, comments, prefixes, single quotes; refuses a point that does not close as it opens", async () => {
    const doc = `<gpx creator="a &amp; b"><trk><trkseg>
      <trkpt lat='46.5' lon="7.5"><!-- a fix --><ele><![CDATA[512.5]]></ele><time>2021-06-01T10:00:00Z</time>
        <extensions><ns3:TrackPointExtension><ns3:hr>&#49;20</ns3:hr><ns3:cad>8&#x30;</ns3:cad></ns3:TrackPointExtension></extensions></trkpt>
      <!-- between two points -->
      <trkpt lat="46.501" lon="7.5"><ele>513</ele><time>2021-06-01T10:00:10Z</time></trkpt>
    </trkseg></trk></gpx>`
    const [a] = await parseActivityFile(utf8(doc), "gpx", "entities.gpx")
    expect(a!.deviceName).toBe("a & b")
    expect([a!.samples.lat, a!.samples.altitude, a!.samples.heartRate, a!.samples.cadence]).toEqual([[46.5, 46.501], [512.5, 513], [120, null], [80, null]])
    expect(await rejection(doc.replace("</ele><time>2021-06-01T10:00:10Z", "</elevation><time>2021-06-01T10:00:10Z"), "gpx", "bad.gpx"))
      .toMatch(/^"bad\.gpx" is not well-formed XML: <\/elevation> closes <ele> \(line 5\)/)
    expect(await rejection(doc.replace("&#49;20", "&nbsp;20"), "gpx", "nbsp.gpx")).toMatch(/^"nbsp\.gpx" is not well-formed XML: "&nbsp;" is no character reference/)
    expect(await rejection(doc.slice(0, doc.indexOf("<time>2021-06-01T10:00:10Z")), "gpx", "cut.gpx")).toMatch(/^"cut\.gpx" is truncated or not well-formed XML/)
  })

  it("reads a track segment of 150,000 points (two days at one point per second) whole", async () => {
    const points = Array.from({ length: 150_000 }, (_, i) =>
      `<trkpt lat="46.${i}" lon="7.5"><time>${new Date(Date.UTC(2021, 0, 1) + i * 1000).toISOString()}</time></trkpt>`).join("")
    const [a] = await parseActivityFile(utf8(`<gpx><trk><trkseg>${points}</trkseg></trk></gpx>`), "gpx", "big.gpx")
    expect(a!.samples.time).toHaveLength(150_000)
    expect(a!.samples.time.at(-1)! - a!.samples.time[0]!).toBe(149_999_000)
  })
})
