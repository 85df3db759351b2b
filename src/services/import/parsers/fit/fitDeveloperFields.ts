/**
 * Developer fields: values a sensor app (a Stryd foot pod, a Connect IQ data field) stores beside
 * the FIT profile's own fields. Each is declared by a `field_description` message (name, units,
 * and optionally the native field it stands for); fit-file-parser decodes the values into each
 * message under the description's `field_name`, e.g. `record["Power"]`.
 *
 * This module says which of those names carry a record's power or cadence, or a session's
 * average or maximum power, so that the parser can use them where the native field is missing.
 */
type Msg = Record<string, unknown>

/** The developer-field names (keys of the decoded messages) to read, best first. */
export interface DeveloperFieldKeys {
  /** record: power, W */
  readonly power: ReadonlyArray<string>
  /** record: cadence, rpm (the native record field's unit) */
  readonly cadence: ReadonlyArray<string>
  /** session: avg_power, W */
  readonly averagePower: ReadonlyArray<string>
  /** session: max_power, W */
  readonly maxPower: ReadonlyArray<string>
}

export const NO_DEVELOPER_FIELDS: DeveloperFieldKeys = { power: [], cadence: [], averagePower: [], maxPower: [] }

interface Target {
  readonly message: "record" | "session"
  /** FIT profile field number in that message (field_description.native_field_num) */
  readonly nativeField: number
  /** normalised names (lower case, letters and digits only) that mean this field */
  readonly names: ReadonlySet<string>
  /** normalised units that fit; an empty or absent unit also fits */
  readonly units: ReadonlySet<string>
}

const WATTS = new Set(["w", "watt", "watts"])
const CADENCE_UNITS = new Set(["rpm", "spm", "stepsmin", "strides", "stridesmin"])

const TARGETS: { readonly [K in keyof DeveloperFieldKeys]: Target } = {
  power: { message: "record", nativeField: 7, names: new Set(["power", "runningpower"]), units: WATTS },
  cadence: { message: "record", nativeField: 4, names: new Set(["cadence", "runningcadence"]), units: CADENCE_UNITS },
  averagePower: { message: "session", nativeField: 20, names: new Set(["avgpower", "averagepower"]), units: WATTS },
  maxPower: { message: "session", nativeField: 21, names: new Set(["maxpower", "maximumpower"]), units: WATTS }
}

/** FIT global message numbers of the messages a description may name as its native message. */
const MESSAGE_NUMBERS: Readonly<Record<Target["message"], number>> = { record: 20, session: 18 }

const normalise = (value: unknown): string =>
  typeof value === "string" ? value.toLowerCase().replace(/[^a-z0-9]/g, "") : ""

const nativeMessageIs = (d: Msg, message: Target["message"]): boolean =>
  d["native_mesg_num"] === message || d["native_mesg_num"] === MESSAGE_NUMBERS[message]

/** The description declares itself the native field (native_mesg_num + native_field_num). */
const declaresNative = (d: Msg, target: Target): boolean =>
  nativeMessageIs(d, target.message) && d["native_field_num"] === target.nativeField

/**
 * Its name and units say it is that quantity ("Power" in "Watts", "Cadence" in "RPM"). Names
 * such as "Form Power" or "Air Power" (Stryd's components of running power) do not match.
 */
const namedLike = (d: Msg, target: Target): boolean => {
  const message = d["native_mesg_num"]
  if (message !== undefined && message !== null && !nativeMessageIs(d, target.message)) return false
  const units = typeof d["units"] === "string" ? d["units"].trim() : ""
  return target.names.has(normalise(d["field_name"])) && (units === "" || target.units.has(normalise(units)))
}

const keysFor = (descriptions: ReadonlyArray<Msg>, target: Target): Array<string> => {
  const keys: Array<string> = []
  const add = (d: Msg): void => {
    const name = d["field_name"]
    if (typeof name === "string" && name !== "" && !keys.includes(name)) keys.push(name)
  }
  descriptions.filter((d) => declaresNative(d, target)).forEach(add)
  descriptions.filter((d) => !declaresNative(d, target) && namedLike(d, target)).forEach(add)
  return keys
}

/** Which developer fields of this file stand for record power and cadence and session power totals. */
export const developerFieldKeys = (descriptions: ReadonlyArray<Msg> | undefined): DeveloperFieldKeys => {
  if (descriptions === undefined || descriptions.length === 0) return NO_DEVELOPER_FIELDS
  return {
    power: keysFor(descriptions, TARGETS.power),
    cadence: keysFor(descriptions, TARGETS.cadence),
    averagePower: keysFor(descriptions, TARGETS.averagePower),
    maxPower: keysFor(descriptions, TARGETS.maxPower)
  }
}

/** The first finite value among those developer fields of a message, or null. */
export const developerValue = (message: Msg, keys: ReadonlyArray<string>): number | null => {
  for (const key of keys) {
    const value = message[key]
    if (typeof value === "number" && Number.isFinite(value)) return value
  }
  return null
}
