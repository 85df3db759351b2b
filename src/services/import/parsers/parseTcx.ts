import type { DeviceTotals, ParsedActivity, ParsedLap, ParsedRacePart } from "../../../schema/ParsedActivity.ts"
import { ActivityFileError } from "./ActivityFileError.ts"
import { buildSamples, checkSampleCount, dropBackwardGlitches, emptyRow, parseNumber, type SampleRow } from "./samples.ts"
import { resolveSportName } from "./sportNames.ts"
import { child, children, parseIsoTime, readXml, rootOf, text, type XmlDocument, type XmlNode } from "./xml.ts"

const fail = (message: string): never => {
  throw new ActivityFileError({ message })
}

const num = (node: unknown, name: string): number | null => parseNumber(text(node, name))

/** TCX Activity@Sport: Running, Biking, Other, or an exact vocabulary name; anything else Workout. */
const tcxSport = (sport: string | null) => {
  if (sport === null) return "Workout" as const
  if (sport.toLowerCase() === "biking") return "Ride" as const
  return resolveSportName(sport) ?? "Workout"
}

/** TPX / LX extension values: fields of the first element of that name under Extensions. */
const extension = (node: XmlNode, container: string): XmlNode | undefined => child(child(node, "Extensions"), container)

const sumOrNull = (values: ReadonlyArray<number | null>): number | null => {
  const present = values.filter((v): v is number => v !== null)
  return present.length === 0 ? null : present.reduce((a, b) => a + b, 0)
}

/**
 * Elapsed (wall-clock) time, as FIT total_elapsed_time: from the first trackpoint (the activity's
 * start) to the later of the last trackpoint and the end of the last lap that began by then (lap
 * StartTime + TotalTimeSeconds: a lap's timer can run past its last trackpoint). Pauses count,
 * unlike in the laps' TotalTimeSeconds, the device timer. Never less than that timer total: a
 * file whose trackpoints cover only part of its laps still lasted at least as long as its timer.
 */
const wallClockSeconds = (
  times: ReadonlyArray<number>,
  laps: ReadonlyArray<ParsedLap>,
  timerSeconds: number | null
): number | null => {
  const first = times[0]
  const last = times[times.length - 1]
  if (first === undefined || last === undefined) return timerSeconds
  let end = last
  for (const lap of laps) {
    if (lap.timerSeconds !== null && lap.startTime <= last) end = Math.max(end, lap.startTime + lap.timerSeconds * 1000)
  }
  return Math.max((end - first) / 1000, timerSeconds ?? 0)
}

/**
 * The trackpoints of a lap's tracks as rows, each track a segment, appended to `rows`; the time
 * of the lap's first trackpoint. A function of its own, apart from the lap and totals reading
 * around it, so that the optimizing compiler takes this loop alone.
 */
const appendLapRows = (doc: XmlDocument, lap: XmlNode, rows: Array<SampleRow>): number | null => {
  let firstPointTime: number | null = null
  for (const track of children(lap, "Track")) {
    let firstOfTrack = true
    for (const tp of doc.points(track)) {
      const t = parseIsoTime(text(tp, "Time"))
      if (t === null) continue
      const row = emptyRow(t)
      const position = child(tp, "Position")
      // positions are checked as the samples are built, which counts the impossible ones
      row.lat = num(position, "LatitudeDegrees")
      row.lng = num(position, "LongitudeDegrees")
      row.altitude = num(tp, "AltitudeMeters")
      row.distance = num(tp, "DistanceMeters")
      row.heartRate = num(child(tp, "HeartRateBpm"), "Value")
      const tpx = extension(tp, "TPX")
      row.cadence = num(tp, "Cadence") ?? num(tpx, "RunCadence")
      row.speed = num(tpx, "Speed")
      row.power = num(tpx, "Watts")
      row.segmentStart = firstOfTrack
      firstOfTrack = false
      firstPointTime ??= t
      rows.push(row)
    }
  }
  return firstPointTime
}

const parseActivity = (doc: XmlDocument, activity: XmlNode, author: string | null): ParsedActivity | null => {
  const rows: Array<SampleRow> = []
  const laps: Array<ParsedLap> = []
  const lapNodes = children(activity, "Lap")
  for (const lap of lapNodes) {
    const firstPointTime = appendLapRows(doc, lap, rows)
    const start = parseIsoTime(text(lap, "@_StartTime")) ?? firstPointTime
    if (start === null) continue
    // TotalTimeSeconds is the lap's timer (pauses left out); its wall-clock time runs to the next lap
    laps.push({
      startTime: start,
      elapsedSeconds: null,
      timerSeconds: num(lap, "TotalTimeSeconds"),
      distanceMeters: num(lap, "DistanceMeters"),
      ascentMeters: null,
      averageSpeed: num(extension(lap, "LX"), "AvgSpeed"),
      maxSpeed: num(lap, "MaximumSpeed"),
      averageHeartRate: num(child(lap, "AverageHeartRateBpm"), "Value"),
      maxHeartRate: num(child(lap, "MaximumHeartRateBpm"), "Value"),
      calories: num(lap, "Calories")
    })
  }
  if (rows.length === 0) return null
  // Exact-0 altitudes are "no altitude" when the activity has real (non-zero) altitudes (a Suunto quirk).
  if (rows.some((r) => r.altitude !== null && r.altitude !== 0)) {
    for (const r of rows) if (r.altitude === 0) r.altitude = null
  }
  const repairs: Array<string> = []
  const samples = buildSamples(dropBackwardGlitches(rows, repairs), repairs)
  const lapMaxHr = laps.map((l) => l.maxHeartRate).filter((v): v is number => v !== null)
  // the laps' AverageHeartRateBpm are the device's own averages (over every reading it took,
  // not only those it wrote as trackpoints): their mean weighted by each lap's timer time. Like
  // the device's session average, it leaves out the rests (laps without distance) between the
  // laps that moved (a pool swim's lengths: 126 bpm where the rests bring it down to 118)
  const moved = laps.some((l) => (l.distanceMeters ?? 0) > 0)
  let hrWeighted = 0
  let hrSeconds = 0
  for (const lap of laps) {
    if (lap.averageHeartRate === null || lap.averageHeartRate <= 0 || lap.timerSeconds === null) continue
    if (moved && !((lap.distanceMeters ?? 0) > 0)) continue
    hrWeighted += lap.averageHeartRate * lap.timerSeconds
    hrSeconds += lap.timerSeconds
  }
  // Lap TotalTimeSeconds is the device's timer time (pauses excluded): it is also the moving
  // time, as FIT total_timer_time is; samples alone undercount it (pool swims have no
  // per-trackpoint distance, smart recording leaves gaps).
  const lapSeconds = sumOrNull(lapNodes.map((l) => num(l, "TotalTimeSeconds")))
  const totals: DeviceTotals = {
    distanceMeters: sumOrNull(lapNodes.map((l) => num(l, "DistanceMeters"))),
    elapsedSeconds: wallClockSeconds(samples.time, laps, lapSeconds),
    timerSeconds: lapSeconds,
    ascentMeters: null,
    calories: sumOrNull(lapNodes.map((l) => num(l, "Calories"))),
    workJoules: null,
    averageHeartRate: hrSeconds > 0 ? hrWeighted / hrSeconds : null,
    maxHeartRate: lapMaxHr.length > 0 ? Math.max(...lapMaxHr) : null,
    averagePower: null,
    maxPower: null,
    averageCadence: null,
    averageSpeed: null,
    maxSpeed: null
  }
  return {
    format: "tcx",
    sportType: tcxSport(text(activity, "@_Sport")),
    name: null,
    description: text(activity, "Notes"),
    deviceName: text(child(activity, "Creator"), "Name") ?? author,
    startTime: samples.time[0]!,
    utcOffsetSeconds: null,
    totals,
    startLatLng: null,
    samples,
    laps,
    repairs,
    ...(text(activity, "@_Sport") === null ? { sportUnknown: true } : {})
  }
}

export const parseTcx = (bytes: Uint8Array, name: string): ReadonlyArray<ParsedActivity> => {
  const doc = readXml(bytes, name, "Trackpoint")
  const root = rootOf(doc.root)
  if (root === null || root.name !== "TrainingCenterDatabase") {
    return fail(`"${name}" is not a TCX file (root element ${root === null ? "missing" : `<${root.name}>`})`)
  }
  // <Activity> elements directly under <Activities>, and the legs of a <MultiSportSession>.
  const container = child(root.node, "Activities")
  const activities = [
    ...children(container, "Activity"),
    ...children(container, "MultiSportSession").flatMap((session) =>
      [...children(session, "FirstSport"), ...children(session, "NextSport")].flatMap((leg) => children(leg, "Activity"))
    )
  ]
  if (activities.length === 0) {
    if (child(root.node, "Courses") !== undefined) return fail(`"${name}" is a course, not an activity`)
    return fail(`"${name}" contains no <Activity>`)
  }
  const trackpoints = activities.flatMap((a) => children(a, "Lap")).flatMap((lap) => children(lap, "Track"))
    .reduce((total, track) => total + doc.countPoints(track), 0)
  checkSampleCount(trackpoints, name, "trackpoints")
  // the application that wrote the file, when no device is named (Zwift, TrainerRoad)
  const author = text(child(root.node, "Author"), "Name")
  const parsedOf = new Map(activities.map((a) => [a, parseActivity(doc, a, author)]))
  const races = children(container, "MultiSportSession").map((session) => raceOf(session, parsedOf))
  const parsed = activities.flatMap((a) => {
    const activity = parsedOf.get(a)
    if (activity === null || activity === undefined) return []
    const race = races.find((r) => r !== null && r.legs.has(a))
    return [race === undefined || race === null ? activity : { ...activity, race: { parts: race.parts, part: race.legs.get(a)! } }]
  })
  if (parsed.length === 0) fail(`"${name}" contains no trackpoints with a time`)
  return parsed
}

/** Legs further apart than this are not one race (Garmin's test files chain a week's runs and rides in one session). */
const MAX_TRANSITION_MS = 3600 * 1000

/**
 * A <MultiSportSession> as a race: its legs (FirstSport, then each NextSport's Activity) and the
 * transitions between them (a NextSport's <Transition> lap, else the time between two legs);
 * null when it has fewer than two legs, or legs that do not follow each other within an hour.
 */
const raceOf = (session: XmlNode, parsedOf: ReadonlyMap<XmlNode, ParsedActivity | null>) => {
  const parts: Array<ParsedRacePart> = []
  const legs = new Map<XmlNode, number>()
  let end: number | null = null
  for (const sport of [...children(session, "FirstSport"), ...children(session, "NextSport")]) {
    const node = children(sport, "Activity")[0]
    const leg = node === undefined ? null : parsedOf.get(node) ?? null
    if (node === undefined || leg === null) continue
    const transition = child(sport, "Transition")
    const transitionStart = parseIsoTime(text(transition, "@_StartTime")) ?? end
    if (end !== null && leg.startTime - end > MAX_TRANSITION_MS) return null
    if (transitionStart !== null && leg.startTime > transitionStart) {
      parts.push({ sportType: null, startTime: transitionStart, elapsedSeconds: num(transition, "TotalTimeSeconds") ?? (leg.startTime - transitionStart) / 1000 })
    }
    legs.set(node, parts.length)
    parts.push({ sportType: leg.sportType, startTime: leg.startTime, elapsedSeconds: leg.totals.elapsedSeconds ?? 0 })
    end = leg.startTime + (leg.totals.elapsedSeconds ?? 0) * 1000
  }
  return legs.size >= 2 ? { parts, legs } : null
}
