import { Encoder, Profile } from "@garmin/fitsdk"

/** Builds small FIT files in code with the Garmin FIT SDK encoder (test fixtures only). */
export const FIT_EPOCH_SECONDS = 631_065_600
export const T0 = Date.parse("2024-05-01T08:00:00Z")
export const at = (seconds: number): Date => new Date(T0 + seconds * 1000)
/** FIT local_date_time: seconds since the FIT epoch, as the encoder wants it */
export const fitSeconds = (date: Date): number => Math.round(date.getTime() / 1000) - FIT_EPOCH_SECONDS
export const semicircles = (degrees: number): number => Math.round((degrees * 2 ** 31) / 180)

export const Mesg = Profile.MesgNum as Record<string, number>

export type FitMessage = readonly [mesgNum: number, fields: Record<string, unknown>]

/** A developer field as its field_description message declares it (fitsdk field names). */
export interface DeveloperFieldSpec {
  readonly developerDataIndex: number
  readonly fieldDefinitionNumber: number
  /** FIT base type with its endian flag, e.g. 0x84 uint16, 0x02 uint8 */
  readonly fitBaseTypeId: number
  readonly fieldName: string
  readonly units?: string
  readonly nativeMesgNum?: number
  readonly nativeFieldNum?: number
}

/**
 * Encodes the messages; a message carries developer field values under `developerFields`, keyed
 * as in `developerFields` here (see developerDataMessages for the messages that declare them).
 */
export const encodeFit = (
  messages: ReadonlyArray<FitMessage>,
  developerFields: Readonly<Record<string, DeveloperFieldSpec>> = {}
): Uint8Array => {
  const fieldDescriptions = Object.fromEntries(Object.entries(developerFields).map(([key, spec]) => [key, {
    developerDataIdMesg: { developerDataIndex: spec.developerDataIndex },
    fieldDescriptionMesg: spec
  }]))
  const encoder = new Encoder({ fieldDescriptions })
  for (const [num, fields] of messages) encoder.onMesg(num, fields)
  return encoder.close()
}

/** The developer_data_id (one per developer data index) and field_description messages of these fields. */
export const developerDataMessages = (developerFields: Readonly<Record<string, DeveloperFieldSpec>>): Array<FitMessage> => {
  const specs = Object.values(developerFields)
  const indexes = [...new Set(specs.map((s) => s.developerDataIndex))]
  return [
    ...indexes.map((developerDataIndex): FitMessage => [Mesg["DEVELOPER_DATA_ID"]!, {
      developerDataIndex, applicationId: Array.from({ length: 16 }, (_, i) => i), applicationVersion: 1
    }]),
    ...specs.map((spec): FitMessage => [Mesg["FIELD_DESCRIPTION"]!, { ...spec }])
  ]
}

export const fileId = (type: string | number = "activity", product = 3121): FitMessage =>
  [Mesg["FILE_ID"]!, { type, manufacturer: "garmin", product, serialNumber: 1234, timeCreated: at(0) }]

/**
 * A 5-minute mountain-bike ride from an Edge 530: positions, heart rate, power, two records sharing
 * a timestamp, one 0/0 position, a lap, a session with totals, a workout name and an activity
 * message whose local_timestamp is 2 h ahead of UTC.
 */
export const rideFit = (): Uint8Array =>
  encodeFit([
    fileId(),
    [Mesg["WORKOUT"]!, { wktName: "Hill repeats", wktDescription: "4 x 5 min", sport: "cycling" }],
    [Mesg["RECORD"]!, { timestamp: at(0), positionLat: semicircles(47.5), positionLong: semicircles(8.25), altitude: 400, distance: 0, speed: 5, heartRate: 110, cadence: 80, power: 180, temperature: 21 }],
    [Mesg["RECORD"]!, { timestamp: at(1), positionLat: 0, positionLong: 0, altitude: 401, distance: 5, speed: 5, heartRate: 112, cadence: 81, power: 190 }],
    [Mesg["RECORD"]!, { timestamp: at(2), positionLat: semicircles(47.5001), positionLong: semicircles(8.2502), altitude: 402, distance: 10, speed: 5.5 }],
    [Mesg["RECORD"]!, { timestamp: at(2), heartRate: 115, power: 200 }],
    [Mesg["RECORD"]!, { timestamp: at(300), positionLat: semicircles(47.51), positionLong: semicircles(8.26), altitude: 430, distance: 1500, speed: 6, heartRate: 150, cadence: 90, power: 250 }],
    [Mesg["LAP"]!, { timestamp: at(300), startTime: at(0), totalElapsedTime: 300, totalTimerTime: 290, totalDistance: 1500, totalAscent: 30, avgSpeed: 5.17, maxSpeed: 7.5, avgHeartRate: 130, maxHeartRate: 150, totalCalories: 60 }],
    [Mesg["SESSION"]!, {
      timestamp: at(300), startTime: at(0), sport: "cycling", subSport: "mountain", startPositionLat: semicircles(47.5), startPositionLong: semicircles(8.25),
      totalElapsedTime: 300, totalTimerTime: 290, totalDistance: 1500, totalAscent: 30, totalCalories: 60, totalWork: 54000,
      avgHeartRate: 130, maxHeartRate: 150, avgPower: 210, maxPower: 260, avgCadence: 85, enhancedAvgSpeed: 5.17, enhancedMaxSpeed: 7.5
    }],
    [Mesg["ACTIVITY"]!, { timestamp: at(300), localTimestamp: fitSeconds(at(300 + 7200)), numSessions: 1 }]
  ])

/** Packs eight 12-bit values little-endian into the 12 bytes of hr.event_timestamp_12. */
export const pack12 = (values: ReadonlyArray<number>): Array<number> => {
  const bytes = new Array<number>(12).fill(0)
  values.forEach((v, k) => {
    const j = (3 * k) >> 1
    if (k % 2 === 0) {
      bytes[j] = v & 0xff
      bytes[j + 1] = bytes[j + 1]! | ((v >> 8) & 0x0f)
    } else {
      bytes[j] = bytes[j]! | ((v & 0x0f) << 4)
      bytes[j + 1] = (v >> 4) & 0xff
    }
  })
  return bytes
}
