import FitParser, { FitEncoder } from "fit-file-parser"
import type { DeviceTotals, ParsedActivity, ParsedLap, ParsedLength, ParsedRacePart } from "../../../../schema/ParsedActivity.ts"
import { MAX_SAMPLES } from "../../../../schema/ActivityLimits.ts"
import type { SportType } from "../../../../schema/SportType.ts"
import { isStrokeType } from "../../../../schema/SwimStroke.ts"
import { ActivityFileError } from "../ActivityFileError.ts"
import { buildSamples, checkSampleCount, dropBackwardGlitches, emptyRow, finite, type SampleRow, validLatLng } from "../samples.ts"
import { type DeveloperFieldKeys, developerFieldKeys, developerValue } from "./fitDeveloperFields.ts"
import { fitDeviceName } from "./fitDevice.ts"
import { countFitMessages, FIT_MESG_HR, FIT_MESG_RECORD } from "./fitMessageCounts.ts"
import { expandStrapHeartRates, mergeStrapHeartRates } from "./fitHeartRate.ts"
import { recoverFitSegment, type RecoveredSegment } from "./fitRecovery.ts"
import { FIT_SPORT_TRANSITION, FIT_SUB_SPORT_COMMUTING, fitSportId, fitSubSportId, makerSport, mapFitSport } from "./fitSport.ts"
import { sportWords } from "../sportNames.ts"

type Msg = Record<string, unknown>

interface DecodedFit {
  readonly file_ids?: ReadonlyArray<Msg>
  readonly sessions?: ReadonlyArray<Msg>
  readonly laps?: ReadonlyArray<Msg>
  readonly lengths?: ReadonlyArray<Msg>
  /** let go once the samples are read (see parseFit) */
  records?: ReadonlyArray<Msg> | undefined
  readonly sports?: ReadonlyArray<Msg>
  readonly field_descriptions?: ReadonlyArray<Msg>
  /** every message by type, records included: let go with them */
  messages?: Readonly<Record<string, ReadonlyArray<Msg> | undefined>> | undefined
  readonly activity?: Msg
  readonly workout?: Msg
  readonly course?: Msg
}

/**
 * FIT date_time values below 0x10000000 are not dates but seconds since the device was powered on
 * (FIT profile, type date_time). In epoch ms: (631065600 + 0x10000000) * 1000, i.e. 1998-07-03.
 */
const FIRST_REAL_FIT_TIME = (631_065_600 + 0x10000000) * 1000
const MAX_UTC_OFFSET_SECONDS = 14 * 3600
/** how far a record may lie outside its session's start and end and still belong to it */
const SESSION_MARGIN_MS = 60_000
/**
 * Messages a FIT file may hold, all segments together: fit-file-parser keeps each as an
 * object (about 190 bytes of heap apiece). A recording of MAX_SAMPLES records with its events,
 * laps and device messages, within the parse worker's heap.
 */
export const MAX_FIT_MESSAGES = Math.round(MAX_SAMPLES * 1.2)

/** What file_id.type says a non-activity FIT file is. */
const FILE_TYPE_LABELS: Readonly<Record<string, string>> = {
  "1": "device", device: "device", settings: "settings", sport: "sport settings", workout: "workout (a planned workout)",
  course: "course", schedules: "schedules", weight: "weight scale", totals: "totals", goals: "goals",
  blood_pressure: "blood pressure", monitoring_a: "monitoring", activity_summary: "activity summary",
  monitoring_daily: "daily monitoring", monitoring_b: "monitoring", segment: "segment", segment_list: "segment list",
  exd_configuration: "data screen configuration", "8": "locations", locations: "locations", "7": "locations"
}

const fail = (message: string): never => {
  throw new ActivityFileError({ message })
}

const time = (value: unknown): number | null => {
  if (!(value instanceof Date)) return null
  const t = value.getTime()
  return Number.isFinite(t) ? t : null
}
const realTime = (value: unknown): number | null => {
  const t = time(value)
  return t !== null && t >= FIRST_REAL_FIT_TIME ? t : null
}

interface Segment {
  readonly bytes: Uint8Array
  readonly headerSize: number
  readonly dataSize: number
  /** its header declares no data although records follow: they are read up to the file's end */
  readonly sizeUntrusted?: boolean
}

/** Checks the first FIT header and splits the byte stream into its chained FIT segments. */
const splitSegments = (bytes: Uint8Array, name: string): Array<Segment> => {
  if (bytes.length === 0) fail(`"${name}" is empty (0 bytes)`)
  if (bytes.length < 12) fail(`"${name}" is not a FIT file (${bytes.length} bytes, shorter than a FIT header)`)
  const signature = String.fromCharCode(bytes[8]!, bytes[9]!, bytes[10]!, bytes[11]!)
  if (signature !== ".FIT") fail(`"${name}" is not a FIT file (no ".FIT" signature)`)
  const segments: Array<Segment> = []
  let offset = 0
  while (offset + 12 <= bytes.length) {
    const headerSize = bytes[offset]!
    const view = new DataView(bytes.buffer, bytes.byteOffset + offset, 12)
    const dataSize = view.getUint32(4, true)
    const sig = String.fromCharCode(bytes[offset + 8]!, bytes[offset + 9]!, bytes[offset + 10]!, bytes[offset + 11]!)
    if (sig !== ".FIT" || (headerSize !== 12 && headerSize !== 14)) {
      if (offset === 0) fail(`"${name}" has a corrupt FIT header (header size ${headerSize}, expected 12 or 14)`)
      break // trailing bytes after the last segment are ignored
    }
    const end = offset + headerSize + dataSize
    if (end > bytes.length) {
      if (offset === 0) {
        fail(`"${name}" is truncated: the file ends before its declared data size (${bytes.length - headerSize} of ${dataSize} data bytes present). Copy or download it again, or export it again from the device or its app.`)
      }
      break // a truncated chained segment only loses strap heart rates
    }
    if (dataSize === 0) {
      if (offset === 0) {
        // a header that declares no data before records: what follows is read as far as it goes
        segments.push({ bytes, headerSize, dataSize: bytes.length - headerSize, sizeUntrusted: true })
      }
      break
    }
    segments.push({ bytes: bytes.subarray(offset, Math.min(end + 2, bytes.length)), headerSize, dataSize })
    offset = end + 2
  }
  return segments
}

const crcMatches = (segment: Segment): boolean => {
  const end = segment.headerSize + segment.dataSize
  if (segment.bytes.length < end + 2) return false
  const stored = segment.bytes[end]! | (segment.bytes[end + 1]! << 8)
  return stored === FitEncoder.calculateCRC(segment.bytes.subarray(0, end))
}

/**
 * The first segment decoded, its damaged stretches skipped (fitRecovery) when the decoder stops
 * at an invalid record or the header's data size cannot be trusted; `repairs` names what was skipped.
 */
const decodeRecovering = (segment: Segment, name: string, repairs: Array<string>, badArchitecture: boolean): DecodedFit => {
  if (badArchitecture && !segment.sizeUntrusted) {
    return decodeRecovered(recoverFitSegment(segment.bytes, segment.headerSize, segment.headerSize + segment.dataSize), name, repairs)
  }
  if (!segment.sizeUntrusted) {
    try {
      return decode(segment, name)
    } catch (e) {
      const recovered = recoverFitSegment(segment.bytes, segment.headerSize, segment.headerSize + segment.dataSize)
      if (recovered.skipped.length === 0 && recovered.architectureFixed.length === 0) throw e
      return decodeRecovered(recovered, name, repairs)
    }
  }
  repairs.push(`its FIT header declares no data: the ${segment.dataSize.toLocaleString("en-US")} bytes after it were read as records`)
  return decodeRecovered(recoverFitSegment(segment.bytes, segment.headerSize, segment.bytes.length), name, repairs)
}

const decodeRecovered = (recovered: RecoveredSegment, name: string, repairs: Array<string>): DecodedFit => {
  const skippedBytes = recovered.skipped.reduce((total, s) => total + s.length, 0)
  if (skippedBytes > 0) {
    const where = recovered.skipped.slice(0, 3).map((s) => `${s.length.toLocaleString("en-US")} at byte ${s.at.toLocaleString("en-US")}`).join(", ")
    repairs.push(
      `damaged FIT data skipped: ${skippedBytes.toLocaleString("en-US")} of ${recovered.dataBytes.toLocaleString("en-US")} bytes in ${recovered.skipped.length} stretch${
        recovered.skipped.length === 1 ? "" : "es"
      } (${where}${recovered.skipped.length > 3 ? ", …" : ""}); the records around them were kept`
    )
  }
  if (recovered.architectureFixed.length > 0) {
    repairs.push(`${recovered.architectureFixed.length} FIT definition${recovered.architectureFixed.length === 1 ? "" : "s"} with an invalid architecture byte (at byte ${
      recovered.architectureFixed.slice(0, 3).map((at) => at.toLocaleString("en-US")).join(", ")
    }) read as little-endian`)
  }
  const view = new DataView(recovered.bytes.buffer, recovered.bytes.byteOffset, recovered.bytes.byteLength)
  return decode({ bytes: recovered.bytes, headerSize: 14, dataSize: view.getUint32(4, true) }, name)
}

const decode = (segment: Segment, name: string): DecodedFit => {
  let result: DecodedFit | undefined
  let error: unknown
  try {
    // Copy the segment into an ArrayBuffer of its own: fit-file-parser reads a view's whole backing
    // store, and a Buffer's slice() is a view (of Node's shared pool for a small file read): the constructor copies.
    const copy = new Uint8Array(segment.bytes).buffer
    new FitParser({ mode: "list", force: true, lengthUnit: "m", speedUnit: "m/s", temperatureUnit: "celsius" })
      .parse(copy, (err, data) => {
        error = err
        result = data as unknown as DecodedFit | undefined
      })
  } catch (e) {
    error = e
  }
  if (result === undefined) {
    const detail = error instanceof Error ? error.message : typeof error === "string" ? error : "unknown error"
    fail(`"${name}" is corrupt: the FIT data cannot be decoded (${detail}). Export it again from the device or its app.`)
  }
  return result!
}

/** A swim's stroke as the FIT profile names it, or null. */
const strokeOf = (value: unknown) => (isStrokeType(value) ? value : null)

/** One length of a pool swim; null without a start. */
const lengthOf = (length: Msg): ParsedLength | null => {
  const elapsed = finite(length["total_elapsed_time"]) ?? finite(length["total_timer_time"])
  const start = realTime(length["start_time"])
  if (start === null || elapsed === null) return null
  return {
    startTime: start,
    elapsedSeconds: elapsed,
    active: length["length_type"] !== "idle" && length["length_type"] !== 0,
    strokes: finite(length["total_strokes"]),
    strokeType: strokeOf(length["swim_stroke"])
  }
}

const lapOf = (lap: Msg): ParsedLap | null => {
  const elapsed = finite(lap["total_elapsed_time"])
  const timer = finite(lap["total_timer_time"])
  const distance = finite(lap["total_distance"])
  const end = realTime(lap["timestamp"])
  const start = realTime(lap["start_time"]) ?? (end !== null && elapsed !== null ? end - elapsed * 1000 : null)
  if (start === null) return null
  const avgSpeed = finite(lap["enhanced_avg_speed"]) ?? finite(lap["avg_speed"]) ??
    (distance !== null && timer !== null && timer > 0 ? distance / timer : null)
  return {
    startTime: start,
    elapsedSeconds: elapsed,
    timerSeconds: timer,
    distanceMeters: distance,
    ascentMeters: finite(lap["total_ascent"]),
    averageSpeed: avgSpeed,
    maxSpeed: finite(lap["enhanced_max_speed"]) ?? finite(lap["max_speed"]),
    averageHeartRate: finite(lap["avg_heart_rate"]),
    maxHeartRate: finite(lap["max_heart_rate"]),
    calories: finite(lap["total_calories"]),
    // a swim lap's cycles are its strokes (read as such only for a swim)
    strokes: finite(lap["total_strokes"]) ?? finite(lap["total_cycles"]),
    strokeType: strokeOf(lap["swim_stroke"])
  }
}

const NO_TOTALS: DeviceTotals = {
  distanceMeters: null, elapsedSeconds: null, timerSeconds: null, ascentMeters: null, calories: null, workJoules: null,
  averageHeartRate: null, maxHeartRate: null, averagePower: null, maxPower: null, averageCadence: null,
  averageSpeed: null, maxSpeed: null
}

/** Session totals; average and maximum power fall back to developer fields that stand for them. */
const totalsOf = (s: Msg, dev: DeveloperFieldKeys): DeviceTotals => ({
  distanceMeters: finite(s["total_distance"]),
  elapsedSeconds: finite(s["total_elapsed_time"]),
  timerSeconds: finite(s["total_timer_time"]),
  ascentMeters: finite(s["total_ascent"]),
  calories: finite(s["total_calories"]),
  workJoules: finite(s["total_work"]),
  averageHeartRate: finite(s["avg_heart_rate"]),
  maxHeartRate: finite(s["max_heart_rate"]),
  averagePower: finite(s["avg_power"]) ?? developerValue(s, dev.averagePower),
  maxPower: finite(s["max_power"]) ?? developerValue(s, dev.maxPower),
  averageCadence: finite(s["avg_cadence"]),
  averageSpeed: finite(s["enhanced_avg_speed"]) ?? finite(s["avg_speed"]),
  maxSpeed: finite(s["enhanced_max_speed"]) ?? finite(s["max_speed"]),
  // a swim's cycles are its strokes (read as such only for a swim)
  strokes: finite(s["total_strokes"]) ?? finite(s["total_cycles"])
})

/** One record as a sample; power and cadence fall back to developer fields (native fields win). */
const rowOf = (r: Msg, t: number, dev: DeveloperFieldKeys): SampleRow => {
  const row = emptyRow(t)
  // positions are checked as the samples are built, which counts the impossible ones
  row.lat = finite(r["position_lat"])
  row.lng = finite(r["position_long"])
  row.altitude = finite(r["enhanced_altitude"]) ?? finite(r["altitude"])
  row.distance = finite(r["distance"])
  row.speed = finite(r["enhanced_speed"]) ?? finite(r["speed"])
  row.heartRate = finite(r["heart_rate"])
  row.cadence = finite(r["cadence"]) ?? developerValue(r, dev.cadence)
  row.power = finite(r["power"]) ?? developerValue(r, dev.power)
  row.temperature = finite(r["temperature"])
  return row
}

/**
 * The records with a real time as rows; `deviceRelative` when some count from the device's
 * power-on instead. A function of its own, apart from the rest of parseFit, so that the
 * optimizing compiler takes this loop alone.
 */
const rowsOf = (records: ReadonlyArray<Msg>, dev: DeveloperFieldKeys) => {
  const rows: Array<SampleRow> = []
  let deviceRelative = false
  for (const r of records) {
    const t = time(r["timestamp"])
    if (t === null) continue
    if (t < FIRST_REAL_FIT_TIME) {
      deviceRelative = true
      continue
    }
    rows.push(rowOf(r, t, dev))
  }
  return { rows, deviceRelative }
}

const text = (value: unknown): string | null =>
  typeof value === "string" && value.trim() !== "" ? value.trim() : null

/** One sport session of the file, with the records and laps that belong to it. */
interface SessionSlice {
  readonly session: Msg | null
  readonly sport: SportType
  readonly from: number
  readonly to: number
  readonly laps: ReadonlyArray<Msg>
  /** its index among the race's parts (a multisport file) */
  readonly racePart?: number
}

/**
 * Records of a damaged file dated outside their session belong to another recording (a head unit
 * that reuses its memory leaves an older ride's records beside the damage): each slice keeps only
 * its session's time, and the records left out are named.
 */
const keepSessionRecords = (slices: Array<SessionSlice>, rows: ReadonlyArray<SampleRow>, repairs: Array<string>): void => {
  for (const [i, slice] of slices.entries()) {
    const start = slice.session !== null ? realTime(slice.session["start_time"]) : null
    const elapsed = slice.session !== null ? finite(slice.session["total_elapsed_time"]) : null
    if (start === null || elapsed === null || elapsed <= 0) continue
    const from = Math.max(slice.from, start - SESSION_MARGIN_MS)
    const to = Math.min(slice.to, start + elapsed * 1000 + SESSION_MARGIN_MS)
    slices[i] = { ...slice, from, to }
  }
  const outside = rows.filter((r) => !slices.some((slice) => r.time >= slice.from && r.time < slice.to)).length
  if (outside > 0) {
    repairs.push(`${outside.toLocaleString("en-US")} records dated outside the activity's session (another recording's) were left out`)
  }
}

export const parseFit = (bytes: Uint8Array, name: string): ReadonlyArray<ParsedActivity> => {
  const segments = splitSegments(bytes, name)
  const first = segments[0]!
  // judged before decoding: the decoder's time and memory grow with these counts
  const counts = segments.map((segment) => countFitMessages(segment.bytes, segment.headerSize, segment.dataSize))
  const messageCount = counts.reduce((total, c) => total + c.messages, 0)
  if (messageCount > MAX_FIT_MESSAGES) {
    fail(`"${name}" has ${messageCount.toLocaleString("en-US")} FIT messages (at most ${MAX_FIT_MESSAGES.toLocaleString("en-US")})`)
  }
  checkSampleCount(counts[0]!.byGlobal.get(FIT_MESG_RECORD) ?? 0, name, "records")
  const repairs: Array<string> = []
  const fit = decodeRecovering(first, name, repairs, counts[0]!.badArchitecture)
  const recovered = repairs.length > 0
  const fileId = fit.file_ids?.[0]
  const fileType = fileId?.["type"]
  let records = fit.records ?? []
  const sessions = fit.sessions ?? []
  const isCourse = fileType === "course" || fileType === 6
  if (fileType !== undefined && fileType !== "activity" && fileType !== 4) {
    const label = FILE_TYPE_LABELS[String(fileType)] ?? `type ${String(fileType).replace(/_/g, " ")}`
    // A course whose records carry timestamps is a recorded track: imported (sport from the course message).
    const timedRecords = records.some((r) => realTime(r["timestamp"]) !== null)
    if (!(isCourse && timedRecords)) fail(`"${name}" is a FIT ${label} file, not an activity`)
  }
  if (sessions.length === 0 && records.length === 0) fail(`"${name}" contains no activity data (no session and no record messages)`)
  // a header that declares no data has no checksum to trust either: its records are what it holds
  if (sessions.length === 0 && !isCourse && !first.sizeUntrusted && !crcMatches(first)) {
    fail(`"${name}" is truncated: it ends without its activity summary (no session message, and its checksum does not match). Copy or download it again, or export it again from the device or its app.`)
  }

  // Strap heart rates: `hr` messages of this segment and of the chained segments after it.
  const hrMessages: Array<Msg> = [...(fit.messages?.["hr"] ?? [])]
  for (const [i, segment] of segments.entries()) {
    // decoding a segment costs as much as the first one: only those holding hr messages are
    if (i === 0 || (counts[i]!.byGlobal.get(FIT_MESG_HR) ?? 0) === 0) continue
    try {
      for (const m of decode(segment, name).messages?.["hr"] ?? []) hrMessages.push(m)
    } catch {
      // A damaged chained segment only loses strap heart rates.
    }
  }

  const dev = developerFieldKeys(fit.field_descriptions)
  const read = rowsOf(records, dev)
  let deviceRelative = read.deviceRelative
  const rows = dropBackwardGlitches(read.rows, repairs) as Array<SampleRow>
  // the decoded records are the largest part of a long file: let them go before the columns are built
  records = []
  fit.records = undefined
  fit.messages = undefined
  rows.sort((a, b) => a.time - b.time)
  if (hrMessages.length > 0) mergeStrapHeartRates(rows, expandStrapHeartRates(hrMessages))

  const sessionStarts = sessions.map((s) => realTime(s["start_time"]))
  if (sessions.some((s) => time(s["start_time"]) !== null && realTime(s["start_time"]) === null)) deviceRelative = true
  if (rows.length === 0 && sessionStarts.every((t) => t === null)) {
    fail(deviceRelative
      ? `"${name}" has no real start date: its timestamps count from device power-on`
      : `"${name}" has no timestamps: neither its session nor its records say when it started`)
  }

  const laps = fit.laps ?? []
  const lengths = (fit.lengths ?? []).map(lengthOf).filter((l): l is ParsedLength => l !== null)
  const slices: Array<SessionSlice> = []
  const raceParts: Array<ParsedRacePart> = []
  if (sessions.length <= 1) {
    const s = sessions[0] ?? null
    const sportMessage = fit.sports?.[0]
    const sessionSport = s !== null ? mapFitSport(s["sport"], s["sub_sport"], s["sport_profile_name"]) : "Workout"
    // a session that says no more than generic: the file's sport message, else what its maker's devices are for
    const sport = sessionSport !== "Workout"
      ? sessionSport
      : [mapFitSport(fit.course?.["sport"] ?? sportMessage?.["sport"], sportMessage?.["sub_sport"], sportMessage?.["name"])]
        .find((named) => named !== "Workout") ?? makerSport(fileId?.["manufacturer"]) ?? "Workout"
    slices.push({ session: s, sport, from: -Infinity, to: Infinity, laps })
  } else {
    // Multi-sport: one activity per sport session, transitions dropped; each session owns the
    // records from its start to the start of the next session.
    const order = sessions
      .map((s, i) => ({ s, start: sessionStarts[i] ?? null }))
      .filter((x): x is { s: Msg; start: number } => x.start !== null)
      .sort((a, b) => a.start - b.start)
    order.forEach(({ s, start }, i) => {
      const to = i + 1 < order.length ? order[i + 1]!.start : Infinity
      const transition = fitSportId(s["sport"]) === FIT_SPORT_TRANSITION
      const sport = mapFitSport(s["sport"], s["sub_sport"], s["sport_profile_name"])
      raceParts.push({
        sportType: transition ? null : sport,
        startTime: start,
        elapsedSeconds: finite(s["total_elapsed_time"]) ?? (Number.isFinite(to) ? (to - start) / 1000 : 0)
      })
      if (transition) return
      const from = i === 0 ? -Infinity : start
      const firstLap = finite(s["first_lap_index"])
      const numLaps = finite(s["num_laps"])
      const ownLaps = firstLap !== null && numLaps !== null && firstLap + numLaps <= laps.length
        ? laps.slice(firstLap, firstLap + numLaps)
        : laps.filter((l) => {
          const t = realTime(l["start_time"])
          return t !== null && t >= from && t < to
        })
      slices.push({ session: s, sport, from, to, laps: ownLaps, racePart: raceParts.length - 1 })
    })
    if (slices.length === 0) fail(`"${name}" contains only transition sessions, no sport session`)
  }

  if (recovered) keepSessionRecords(slices, rows, repairs)

  const activity = fit.activity
  const localTs = time(activity?.["local_timestamp"])
  const activityTs = time(activity?.["timestamp"])
  const offset = localTs !== null && activityTs !== null ? Math.round((localTs - activityTs) / 1000) : null
  const utcOffsetSeconds = offset !== null && Math.abs(offset) <= MAX_UTC_OFFSET_SECONDS ? offset : null
  const deviceName = fitDeviceName(fileId)
  const workoutName = text(fit.workout?.["wkt_name"]) ?? (isCourse ? text(fit.course?.["name"]) : null)
  const description = text(fit.workout?.["wkt_description"])

  // a sport session without a real start (no record, its start counted from power-on) is left
  // out and named; the file is refused only when no session has one
  const undated: Array<string> = []
  const activities = slices.flatMap((slice, index): Array<ParsedActivity> => {
    const own = slice.from === -Infinity && slice.to === Infinity
      ? rows
      : rows.filter((r) => r.time >= slice.from && r.time < slice.to)
    const sliceRepairs: Array<string> = []
    const samples = buildSamples(own, sliceRepairs)
    const sessionStart = slice.session !== null ? realTime(slice.session["start_time"]) : null
    const startTime = sessionStart ?? samples.time[0]
    if (startTime === undefined) {
      undated.push(`dropped activity ${index + 1} of ${slices.length} (${sportWords(slice.sport)}), which has no real start date`)
      return []
    }
    const s = slice.session
    // a pool's length and the lengths swum in it, whatever the sport says (a swim labelled otherwise may be corrected by hand)
    const poolLength = s !== null ? finite(s["pool_length"]) : null
    const ownLengths = poolLength !== null ? lengths.filter((l) => l.startTime >= slice.from && l.startTime < slice.to) : []
    const legs = raceParts.filter((p) => p.sportType !== null).length
    return [{
      format: "fit",
      sportType: slice.sport,
      name: workoutName,
      description,
      deviceName,
      startTime: startTime!,
      utcOffsetSeconds,
      totals: s !== null ? totalsOf(s, dev) : NO_TOTALS,
      startLatLng: s !== null ? validLatLng(finite(s["start_position_lat"]), finite(s["start_position_long"])) : null,
      samples,
      laps: slice.laps.map(lapOf).filter((l): l is ParsedLap => l !== null),
      repairs: sliceRepairs,
      ...(poolLength !== null && poolLength > 0 ? { poolLengthMeters: poolLength, lengths: ownLengths } : {}),
      ...(slice.racePart !== undefined && legs >= 2 ? { race: { parts: raceParts, part: slice.racePart } } : {}),
      ...(s !== null && fitSubSportId(s["sub_sport"]) === FIT_SUB_SPORT_COMMUTING ? { commute: true } : {})
    }]
  })
  const [firstActivity, ...others] = activities
  if (firstActivity === undefined) return fail(`"${name}" has no real start date: its timestamps count from device power-on`)
  return [{ ...firstActivity, repairs: [...repairs, ...undated, ...(firstActivity.repairs ?? [])] }, ...others]
}
