import { describe, expect, it } from "@effect/vitest"
import { ActivityFileError } from "../../../../src/services/import/parsers/ActivityFileError.ts"
import { developerFieldKeys } from "../../../../src/services/import/parsers/fit/fitDeveloperFields.ts"
import { mapFitSport } from "../../../../src/services/import/parsers/fit/fitSport.ts"
import { parseActivityFile } from "../../../../src/services/import/parsers/parseActivityFile.ts"
import {
  at,
  type DeveloperFieldSpec,
  developerDataMessages,
  encodeFit,
  fileId,
  type FitMessage,
  Mesg,
  pack12,
  rideFit,
  semicircles,
  T0
} from "./fitFixtures.ts"

const rejection = async (bytes: Uint8Array, name = "x.fit"): Promise<ActivityFileError> => {
  const error = await parseActivityFile(bytes, "fit", name).then(
    () => {
      throw new Error(`${name} parsed, expected a rejection`)
    },
    (e: unknown) => e
  )
  expect(error).toBeInstanceOf(ActivityFileError)
  return error as ActivityFileError
}

describe("parseActivityFile (FIT fixtures built in code)", () => {
  it("reads session totals, sport, device, UTC offset, workout name, laps and start position", async () => {
    const [a, ...rest] = await parseActivityFile(rideFit(), "fit", "ride.fit")
    expect(rest).toHaveLength(0)
    expect(a!.format).toBe("fit")
    expect(a!.sportType).toBe("MountainBikeRide")
    expect(a!.deviceName).toBe("Garmin Edge 530")
    expect(a!.name).toBe("Hill repeats")
    expect(a!.description).toBe("4 x 5 min")
    expect(a!.startTime).toBe(T0)
    expect(a!.utcOffsetSeconds).toBe(7200)
    expect(a!.startLatLng![0]).toBeCloseTo(47.5, 6)
    expect(a!.startLatLng![1]).toBeCloseTo(8.25, 6)
    expect(a!.totals).toEqual({
      distanceMeters: 1500, elapsedSeconds: 300, timerSeconds: 290, ascentMeters: 30, calories: 60, workJoules: 54000,
      averageHeartRate: 130, maxHeartRate: 150, averagePower: 210, maxPower: 260, averageCadence: 85,
      averageSpeed: 5.17, maxSpeed: 7.5, strokes: null
    })
    expect(a!.laps).toEqual([{
      startTime: T0, elapsedSeconds: 300, timerSeconds: 290, distanceMeters: 1500, ascentMeters: 30,
      averageSpeed: 5.17, maxSpeed: 7.5, averageHeartRate: 130, maxHeartRate: 150, calories: 60, strokes: null, strokeType: null
    }])
  })

  it("gives positions in degrees, treats 0/0 as no fix and merges records sharing a timestamp", async () => {
    const [a] = await parseActivityFile(rideFit(), "fit", "ride.fit")
    const s = a!.samples
    expect(s.time).toEqual([T0, T0 + 1000, T0 + 2000, T0 + 300_000])
    expect(s.lat[0]).toBeCloseTo(47.5, 6)
    expect(s.lng[0]).toBeCloseTo(8.25, 6)
    expect(s.lat[1]).toBeNull()
    expect(s.lng[1]).toBeNull()
    // the two records at +2 s are one sample: position from the first, heart rate and power from the second
    expect(s.lat[2]).toBeCloseTo(47.5001, 6)
    expect(s.heartRate).toEqual([110, 112, 115, 150])
    expect(s.power).toEqual([180, 190, 200, 250])
    expect(s.cadence).toEqual([80, 81, null, 90])
    expect(s.altitude).toEqual([400, 401, 402, 430])
    expect(s.distance).toEqual([0, 5, 10, 1500])
    expect(s.speed).toEqual([5, 5, 5.5, 6])
    expect(s.temperature).toEqual([21, null, null, null])
    expect(s.segmentStarts).toEqual([])
    for (const column of [s.lat, s.lng, s.altitude, s.distance, s.speed, s.heartRate, s.cadence, s.power, s.temperature]) {
      expect(column).toHaveLength(s.time.length)
    }
  })

  it("takes the start from the first record and startLatLng null when the session has neither, and ignores a 0/0 start position", async () => {
    const bytes = encodeFit([
      fileId("activity", 2691),
      [Mesg["RECORD"]!, { timestamp: at(5), heartRate: 100 }],
      [Mesg["RECORD"]!, { timestamp: at(6), heartRate: 101 }],
      [Mesg["SESSION"]!, { timestamp: at(6), sport: "running", subSport: "trail", startPositionLat: 0, startPositionLong: 0 }]
    ])
    const [a] = await parseActivityFile(bytes, "fit", "trail.fit")
    expect(a!.startTime).toBe(T0 + 5000)
    expect(a!.startLatLng).toBeNull()
    expect(a!.sportType).toBe("TrailRun")
    expect(a!.deviceName).toBe("Garmin Forerunner 935")
    expect(a!.utcOffsetSeconds).toBeNull()
    expect(a!.totals.distanceMeters).toBeNull()
    expect(a!.name).toBeNull()
  })

  it("drops a device UTC offset beyond ±14 h", async () => {
    const bytes = encodeFit([
      fileId(),
      [Mesg["RECORD"]!, { timestamp: at(0), heartRate: 100 }],
      [Mesg["SESSION"]!, { timestamp: at(1), startTime: at(0), sport: "cycling" }],
      [Mesg["ACTIVITY"]!, { timestamp: at(1), localTimestamp: Math.round((T0 + 1000) / 1000) - 631_065_600 + 15 * 3600 }]
    ])
    const [a] = await parseActivityFile(bytes, "fit", "offset.fit")
    expect(a!.utcOffsetSeconds).toBeNull()
  })

  it("splits a multi-sport FIT into one activity per sport session, dropping the transition", async () => {
    const session = (start: number, end: number, sport: string, subSport: number, distance: number): FitMessage =>
      [Mesg["SESSION"]!, { timestamp: at(end), startTime: at(start), sport, subSport, totalElapsedTime: end - start, totalDistance: distance }]
    const lap = (start: number, end: number): FitMessage =>
      [Mesg["LAP"]!, { timestamp: at(end), startTime: at(start), totalElapsedTime: end - start }]
    const bytes = encodeFit([
      fileId("activity", 2691),
      ...[0, 10, 20, 30, 40, 50, 60].map((t): FitMessage => [Mesg["RECORD"]!, { timestamp: at(t), heartRate: 100 + t }]),
      lap(0, 20), lap(20, 30), lap(30, 60),
      session(0, 20, "swimming", 18, 500),
      session(20, 30, "transition", 0, 50),
      session(30, 60, "running", 0, 300)
    ])
    const activities = await parseActivityFile(bytes, "fit", "tri.fit")
    expect(activities.map((a) => a.sportType)).toEqual(["OpenWaterSwim", "Run"])
    expect(activities.map((a) => a.startTime)).toEqual([T0, T0 + 30_000])
    expect(activities[0]!.samples.heartRate).toEqual([100, 110])
    expect(activities[1]!.samples.heartRate).toEqual([130, 140, 150, 160])
    expect(activities.map((a) => a.totals.distanceMeters)).toEqual([500, 300])
    expect(activities.map((a) => a.laps.map((l) => l.startTime))).toEqual([[T0], [T0 + 30_000]])
  })

  it("merges the heart rates of hr messages in a chained FIT segment into the records by timestamp", async () => {
    const activity = encodeFit([
      fileId(),
      ...Array.from({ length: 11 }, (_, t): FitMessage => [Mesg["RECORD"]!, { timestamp: at(t), distance: t }]),
      [Mesg["SESSION"]!, { timestamp: at(10), startTime: at(0), sport: "swimming", subSport: 17 }]
    ])
    // Strap: anchor at T0 (event 500 s) with 90 bpm, then 8 values every 0.5 s (event 500.5 .. 504 s).
    const events = Array.from({ length: 8 }, (_, k) => Math.round((500 + 0.5 * (k + 1)) * 1024) & 0xfff)
    const strap = encodeFit([
      [Mesg["HR"]!, { timestamp: at(0), fractionalTimestamp: 0, eventTimestamp: [500], filteredBpm: [90] }],
      [Mesg["HR"]!, { filteredBpm: [100, 101, 102, 103, 104, 105, 106, 107], eventTimestamp12: pack12(events) }]
    ])
    const chained = new Uint8Array(activity.length + strap.length)
    chained.set(activity, 0)
    chained.set(strap, activity.length)
    const [a] = await parseActivityFile(chained, "fit", "swim.fit")
    // (t-1, t] averages, rounded; then the last strap value carried forward for at most 5 s
    expect(a!.samples.heartRate).toEqual([90, 101, 103, 105, 107, 107, 107, 107, 107, 107, null])
    expect(a!.sportType).toBe("Swim")
  })

  it("maps unknown sports to Workout and imports a course whose records carry timestamps", async () => {
    const unknown = encodeFit([
      fileId(),
      [Mesg["RECORD"]!, { timestamp: at(0), heartRate: 100 }],
      [Mesg["SESSION"]!, { timestamp: at(1), startTime: at(0), sport: 200 }]
    ])
    expect((await parseActivityFile(unknown, "fit", "u.fit"))[0]!.sportType).toBe("Workout")
    const course = encodeFit([
      fileId("course"),
      [Mesg["COURSE"]!, { name: "Loop", sport: "cycling" }],
      [Mesg["RECORD"]!, { timestamp: at(0), positionLat: semicircles(45), positionLong: semicircles(6) }],
      [Mesg["RECORD"]!, { timestamp: at(10), positionLat: semicircles(45.001), positionLong: semicircles(6) }]
    ])
    const [c] = await parseActivityFile(course, "fit", "course.fit")
    expect(c!.sportType).toBe("Ride")
    expect(c!.name).toBe("Loop")
    expect(c!.samples.time).toEqual([T0, T0 + 10_000])
  })

  it("refuses empty, random, truncated and non-FIT bytes with a message naming the problem", async () => {
    expect((await rejection(new Uint8Array(0), "e.fit")).message).toBe('"e.fit" is empty (0 bytes)')
    let seed = 42
    const random = Uint8Array.from({ length: 4096 }, () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) & 0xff)
    expect((await rejection(random, "r.fit")).message).toBe('"r.fit" is not a FIT file (no ".FIT" signature)')
    const ride = rideFit()
    expect((await rejection(ride.slice(0, ride.length - 40), "t.fit")).message)
      .toMatch(/^"t\.fit" is truncated: the file ends before its declared data size/)
    expect((await rejection(new TextEncoder().encode("<gpx></gpx>"), "g.fit")).message).toMatch(/is not a FIT file/)
  })

  it("refuses FIT files that are not activities, naming what they are", async () => {
    const workout = encodeFit([fileId("workout"), [Mesg["WORKOUT"]!, { wktName: "Plan", sport: "running" }]])
    expect((await rejection(workout, "w.fit")).message).toBe('"w.fit" is a FIT workout (a planned workout) file, not an activity')
    const courseWithoutTimes = encodeFit([fileId("course"), [Mesg["RECORD"]!, { positionLat: semicircles(45), positionLong: semicircles(6) }]])
    expect((await rejection(courseWithoutTimes, "c.fit")).message).toBe('"c.fit" is a FIT course file, not an activity')
  })

  it("refuses a file whose timestamps count from device power-on (before 1998)", async () => {
    const bytes = encodeFit([
      fileId(),
      [Mesg["RECORD"]!, { timestamp: 5000, heartRate: 100 }],
      [Mesg["SESSION"]!, { timestamp: 5010, startTime: 5000, sport: "running" }]
    ])
    expect((await rejection(bytes, "d.fit")).message).toBe('"d.fit" has no real start date: its timestamps count from device power-on')
  })
})

const UINT8 = 0x02
const UINT16 = 0x84

/** A foot pod's developer fields, as a Stryd Connect IQ app declares them (record 20 / session 18). */
const STRYD: Readonly<Record<string, DeveloperFieldSpec>> = {
  power: { developerDataIndex: 0, fieldDefinitionNumber: 0, fitBaseTypeId: UINT16, fieldName: "Power", units: "Watts", nativeMesgNum: 20, nativeFieldNum: 7 },
  cadence: { developerDataIndex: 0, fieldDefinitionNumber: 2, fitBaseTypeId: UINT8, fieldName: "Cadence", units: "RPM", nativeMesgNum: 20, nativeFieldNum: 4 },
  formPower: { developerDataIndex: 0, fieldDefinitionNumber: 8, fitBaseTypeId: UINT16, fieldName: "Form Power", units: "Watts", nativeMesgNum: 20 },
  avgPower: { developerDataIndex: 1, fieldDefinitionNumber: 14, fitBaseTypeId: UINT16, fieldName: "Avg Power", units: "Watts", nativeMesgNum: 18, nativeFieldNum: 20 },
  maxPower: { developerDataIndex: 1, fieldDefinitionNumber: 21, fitBaseTypeId: UINT16, fieldName: "Max Power", units: "Watts", nativeMesgNum: 18, nativeFieldNum: 21 }
}

describe("FIT developer fields (power and cadence from a foot pod)", () => {
  const run = (session: Record<string, unknown>): Uint8Array =>
    encodeFit([
      fileId("activity", 3113),
      ...developerDataMessages(STRYD),
      [Mesg["RECORD"]!, { timestamp: at(0), heartRate: 120, developerFields: { power: 250, cadence: 85, formPower: 60 } }],
      // native power and cadence win over the developer fields
      [Mesg["RECORD"]!, { timestamp: at(1), power: 300, cadence: 90, developerFields: { power: 251, cadence: 86, formPower: 61 } }],
      // only a component of running power: not the power
      [Mesg["RECORD"]!, { timestamp: at(2), heartRate: 121, developerFields: { formPower: 62 } }],
      [Mesg["RECORD"]!, { timestamp: at(3), heartRate: 122, developerFields: { power: 270 } }],
      [Mesg["SESSION"]!, { timestamp: at(3), startTime: at(0), sport: "running", subSport: "treadmill", totalElapsedTime: 3, totalTimerTime: 3, ...session }]
    ], STRYD)

  it("takes a record's power and cadence from the developer fields that stand for them when the native fields are missing", async () => {
    const [a] = await parseActivityFile(run({ developerFields: { avgPower: 257, maxPower: 270 } }), "fit", "stryd.fit")
    expect(a!.samples.power).toEqual([250, 300, null, 270])
    expect(a!.samples.cadence).toEqual([85, 90, null, null])
    expect(a!.samples.heartRate).toEqual([120, null, 121, 122])
    expect(a!.totals).toMatchObject({ averagePower: 257, maxPower: 270 })
  })

  it("keeps the session's native power totals over developer fields", async () => {
    const [a] = await parseActivityFile(run({ avgPower: 240, maxPower: 310, developerFields: { avgPower: 257, maxPower: 270 } }), "fit", "stryd.fit")
    expect(a!.totals).toMatchObject({ averagePower: 240, maxPower: 310 })
  })

  it("recognises developer power and cadence by native field, else by name and units", () => {
    const d = (fields: Record<string, unknown>) => ({ developer_data_index: 0, field_definition_number: 0, ...fields })
    const keys = developerFieldKeys([
      d({ field_name: "Form Power", units: "Watts" }),
      d({ field_name: "Air Power", units: "W" }),
      d({ field_name: "power", units: "%" }), // a percentage, not watts
      d({ field_name: "Power", units: "Watts" }), // older Stryd: no native field declared
      d({ field_name: "RP_Power", units: "Watts", native_mesg_num: "record", native_field_num: 7 }),
      d({ field_name: "Lap Power", units: "Watts", native_mesg_num: "lap" }),
      d({ field_name: "Cadence", units: "RPM" }),
      d({ field_name: "Stroke Rate", units: "spm", native_mesg_num: "record", native_field_num: 4 }),
      d({ field_name: "Avg Power", units: "Watts", native_mesg_num: "session", native_field_num: 20 }),
      d({ field_name: "Max Power", units: "Watts" })
    ])
    // a declared native field comes first, then the names
    expect(keys.power).toEqual(["RP_Power", "Power"])
    expect(keys.cadence).toEqual(["Stroke Rate", "Cadence"])
    expect(keys.averagePower).toEqual(["Avg Power"])
    expect(keys.maxPower).toEqual(["Max Power"])
    expect(developerFieldKeys(undefined)).toEqual({ power: [], cadence: [], averagePower: [], maxPower: [] })
  })
})

describe("FIT sport mapping", () => {
  it.each([
    ["running", "generic", "Run"], ["running", "trail", "TrailRun"], ["running", "treadmill", "VirtualRun"],
    ["cycling", "road", "Ride"], ["cycling", "gravel_cycling", "GravelRide"], ["cycling", "virtual_activity", "VirtualRide"],
    ["cycling", "indoor_cycling", "VirtualRide"], ["cycling", "e_bike_mountain", "EBikeRide"], ["cycling", "downhill", "MountainBikeRide"],
    ["fitness_equipment", "indoor_rowing", "VirtualRow"], ["fitness_equipment", "elliptical", "Elliptical"],
    ["swimming", "lap_swimming", "Swim"], ["swimming", "open_water", "OpenWaterSwim"], ["walking", "generic", "Walk"],
    ["hiking", "generic", "Hike"], ["training", "strength_training", "WeightTraining"], ["training", "yoga", "Yoga"],
    ["alpine_skiing", "backcountry", "BackcountrySki"], ["rowing", "generic", "Rowing"], ["generic", "generic", "Workout"]
  ] as const)("%s / %s -> %s (names)", (sport, subSport, expected) => {
    expect(mapFitSport(sport, subSport)).toBe(expected)
  })

  it.each([
    [1, 45, "VirtualRun"], [2, 12, "Handcycle"], [2, 127, "EBikeRide"], [0, 70, "HighIntensityIntervalTraining"],
    [64, 94, "Squash"], [64, 85, "Padel"], [14, 0, "Snowboard"], [15, 14, "VirtualRow"], [37, 0, "StandUpPaddling"],
    [83, 0, "Dance"], [65, 0, "Wheelchair"], [19, 0, "Canoeing"], [254, 0, "Workout"], [3, 0, "Workout"]
  ] as const)("%i / %i -> %s (numbers)", (sport, subSport, expected) => {
    expect(mapFitSport(sport, subSport)).toBe(expected)
  })

  it("resolves a generic sport through its sport_profile_name alias", () => {
    expect(mapFitSport("generic", "generic", "Trail Run")).toBe("TrailRun")
    expect(mapFitSport("generic", "generic", "My thing")).toBe("Workout")
  })
})
