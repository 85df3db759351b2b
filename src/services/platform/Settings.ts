import * as Config from "effect/Config"
import * as ConfigError from "effect/ConfigError"
import * as Cron from "effect/Cron"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as fs from "node:fs"
import * as path from "node:path"

/**
 * Parsers of configuration values read from the environment, shared by the daemon and the
 * connectors so that every variable is read one way: booleans, durations, sizes, ranges,
 * choices, URLs, addresses, secrets with their `_FILE` variant and variables with an
 * alternative name. Each parser is a `Config`, so `Config.all` reports every problem at once;
 * a variable without a default is required (`Config.option` makes it optional).
 *
 * One rule for every variable: a blank value (empty or whitespace) is the same as an unset one.
 * Messages name the variable the value came from.
 */

/** Where a value may come from besides its own name. */
export interface Source {
  /** Other names of the same variable (e.g. POLAR_CLIENT_ID for PROVIDER_A_CLIENT_ID). */
  readonly aliases?: ReadonlyArray<string>
  /** Also read `<NAME>_FILE`: the value is the content of that file (for secrets). */
  readonly file?: boolean
}

export interface Options<A> extends Source {
  readonly default?: A
}

/** A raw value and the variable it came from (`X`, `X_FILE`, or an alias). */
interface Found {
  readonly from: string
  readonly value: string
  readonly secret: boolean
}

const isBlank = (value: Option.Option<string>): value is Option.None<string> =>
  Option.isNone(value) || value.value.trim() === ""

const errorMessage = (cause: unknown): string => {
  const code = (cause as NodeJS.ErrnoException | undefined)?.code
  return code !== undefined ? code : String(cause)
}

/** Content of a `_FILE` variable: trailing newlines stripped; unreadable or empty is an error. */
const readValueFile = (variable: string, file: string): Either.Either<string, string> => {
  let content: string
  try {
    content = fs.readFileSync(file.trim(), "utf8")
  } catch (cause) {
    return Either.left(`${variable}: cannot read "${file.trim()}" (${errorMessage(cause)})`)
  }
  const value = content.replace(/[\r\n]+$/, "")
  return value.trim() === "" ? Either.left(`${variable}: "${file.trim()}" is empty`) : Either.right(value)
}

const combine = (messages: ReadonlyArray<string>): ConfigError.ConfigError =>
  messages.map((m) => ConfigError.InvalidData([], m)).reduce((l, r) => ConfigError.And(l, r))

/**
 * The raw value of a variable: its own name first, then its aliases, each with its `_FILE`
 * variant when asked. `X` and `X_FILE` both set is an error; names that disagree are an error.
 */
const lookup = (name: string, source: Source): Config.Config<Option.Option<Found>> => {
  const names = [name, ...(source.aliases ?? [])]
  const variables = names.flatMap((n) => (source.file === true ? [n, `${n}_FILE`] : [n]))
  return Config.all(variables.map((v) => Config.option(Config.string(v)))).pipe(
    Config.mapOrFail((values) => {
      const problems: Array<string> = []
      const found: Array<Found> = []
      const valueOf = (variable: string) => values[variables.indexOf(variable)] ?? Option.none<string>()
      for (const n of names) {
        const direct = valueOf(n)
        const file = source.file === true ? valueOf(`${n}_FILE`) : Option.none<string>()
        if (!isBlank(direct) && !isBlank(file)) {
          problems.push(`${n} and ${n}_FILE are both set: keep only one`)
        } else if (!isBlank(file)) {
          Either.match(readValueFile(`${n}_FILE`, file.value), {
            onLeft: (message) => problems.push(message),
            onRight: (value) => found.push({ from: `${n}_FILE`, value, secret: true })
          })
        } else if (!isBlank(direct)) {
          found.push({ from: n, value: direct.value.trim(), secret: source.file === true })
        }
      }
      const first = found[0]
      if (first !== undefined) {
        const other = found.find((f) => f.value !== first.value)
        if (other !== undefined) {
          problems.push(`${first.from} and ${other.from} are both set, to different values: keep only one`)
        }
      }
      return problems.length > 0 ? Either.left(combine(problems)) : Either.right(Option.fromNullable(first))
    })
  )
}

/**
 * A setting: the value parsed from its variable, the default when unset, or a "required"
 * problem when there is no default. `parse` returns the value or what it must be.
 */
const setting = <A>(
  name: string,
  options: Options<A>,
  parse: (raw: string, from: string) => Either.Either<A, string>
): Config.Config<A> =>
  lookup(name, options).pipe(
    Config.mapOrFail((found) => {
      if (Option.isNone(found)) {
        return "default" in options
          ? Either.right(options.default as A)
          : Either.left(ConfigError.MissingData([], `${name} is required`))
      }
      const { from, secret, value } = found.value
      return Either.mapLeft(parse(value, from), (expected) =>
        ConfigError.InvalidData([], secret ? `${from} ${expected}` : `${from} ${expected}, got "${value}"`))
    })
  )

/** Text, trimmed. */
export const text = (name: string, options: Options<string> = {}): Config.Config<string> =>
  setting(name, options, (raw) => Either.right(raw))

/** A secret: also read from `<NAME>_FILE` (trailing newline stripped); never echoed in messages. */
export const secret = (name: string, options: Omit<Options<never>, "file" | "default"> = {}): Config.Config<Redacted.Redacted> =>
  setting(name, { ...options, file: true }, (raw) => Either.right(Redacted.make(raw)))

/** A comma-separated list; blank items dropped. */
export const list = (name: string, options: Options<ReadonlyArray<string>> = {}): Config.Config<ReadonlyArray<string>> =>
  setting(name, options, (raw) => Either.right(raw.split(",").map((s) => s.trim()).filter((s) => s !== "")))

/** A folder or file path, resolved against the working directory. */
export const filePath = (name: string, options: Options<string> = {}): Config.Config<string> =>
  setting(name, options, (raw) => Either.right(raw)).pipe(Config.map((p) => path.resolve(p)))

/**
 * A folder the process creates when missing, resolved against the working directory. A
 * configured one whose parent folder does not exist is refused: such a path is a typo or a
 * missing volume, and files written there would go where nothing looks. The default is
 * always accepted (created at start).
 */
export const folderInExisting = (name: string, options: Options<string> = {}): Config.Config<string> =>
  setting(name, options, (raw) => {
    const folder = path.resolve(raw)
    const parent = path.dirname(folder)
    return fs.existsSync(folder) || fs.existsSync(parent)
      ? Either.right(raw)
      : Either.left(`must be a folder whose parent exists (${parent} does not): create it, or correct the path`)
  }).pipe(Config.map((p) => path.resolve(p)))

const TRUE = ["true", "1", "yes", "on"]
const FALSE = ["false", "0", "no", "off"]

/** true/1/yes/on or false/0/no/off, any case. */
export const boolean = (name: string, options: Options<boolean> = {}): Config.Config<boolean> =>
  setting(name, options, (raw) => {
    const v = raw.toLowerCase()
    if (TRUE.includes(v)) return Either.right(true)
    if (FALSE.includes(v)) return Either.right(false)
    return Either.left("must be true or false")
  })

export interface IntegerOptions extends Options<number> {
  readonly min?: number
  readonly max?: number
}

const rangeText = (min: number | undefined, max: number | undefined) =>
  min !== undefined && max !== undefined
    ? ` from ${min} to ${max}`
    : min !== undefined
    ? ` of at least ${min}`
    : max !== undefined
    ? ` of at most ${max}`
    : ""

/** A whole number, optionally within `min`..`max`. */
export const integer = (name: string, options: IntegerOptions = {}): Config.Config<number> =>
  setting(name, options, (raw) => {
    const n = Number(raw)
    const inRange = (options.min === undefined || n >= options.min) && (options.max === undefined || n <= options.max)
    return /^-?\d+$/.test(raw) && Number.isSafeInteger(n) && inRange
      ? Either.right(n)
      : Either.left(`must be a whole number${rangeText(options.min, options.max)}`)
  })

/** One of `values`, matched without regard to case; the value is returned as spelled in `values`. */
export const oneOf = <const A extends string>(
  name: string,
  values: ReadonlyArray<A>,
  options: Options<NoInfer<A>> = {}
): Config.Config<A> =>
  setting(name, options, (raw) => {
    const match = values.find((v) => v.toLowerCase() === raw.toLowerCase())
    return match !== undefined ? Either.right(match) : Either.left(`must be one of ${values.join(", ")}`)
  })

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }

/**
 * Durations: a plain number of seconds (`900`), or numbers with units `ms`, `s`, `m`, `h`,
 * `d`, `w`, possibly chained (`15m`, `720h`, `30d`, `1h30m`).
 */
export const parseDuration = (raw: string): Option.Option<Duration.Duration> => {
  const s = raw.trim().toLowerCase()
  if (/^\d+(\.\d+)?$/.test(s)) return Option.some(Duration.seconds(Number(s)))
  if (!/^(\d+(\.\d+)?\s*(ms|s|m|h|d|w)\s*)+$/.test(s)) return Option.none()
  let millis = 0
  for (const [, n, unit] of s.matchAll(/(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)/g)) millis += Number(n) * DURATION_UNITS[unit!]!
  return Option.some(Duration.millis(millis))
}

/** Short form of a duration for messages: `90s`, `15m`, `6h`, `30d`. */
export const formatDuration = (duration: Duration.DurationInput): string => {
  const ms = Duration.toMillis(duration)
  for (const [unit, size] of [["d", 86_400_000], ["h", 3_600_000], ["m", 60_000], ["s", 1000]] as const) {
    if (ms >= size && ms % size === 0) return `${ms / size}${unit}`
  }
  return `${ms}ms`
}

/** A duration written as the variables are (`900`, `15m`) or as Effect reads it (`"15 minutes"`, millis). */
export type DurationValue = Duration.DurationInput | string

const toDuration = (input: DurationValue): Duration.Duration =>
  typeof input === "string"
    ? Option.getOrElse(parseDuration(input), () => Duration.decode(input as Duration.DurationInput))
    : Duration.decode(input)

export interface DurationOptions extends Options<DurationValue> {
  readonly min?: DurationValue
  readonly max?: DurationValue
}

/** A duration (see parseDuration), optionally within `min`..`max`. */
export const duration = (name: string, options: DurationOptions = {}): Config.Config<Duration.Duration> => {
  const min = options.min === undefined ? undefined : toDuration(options.min)
  const max = options.max === undefined ? undefined : toDuration(options.max)
  return setting(name, options, (raw): Either.Either<DurationValue, string> =>
    Option.match(parseDuration(raw), {
      onNone: () => Either.left("must be a duration: seconds (900) or a number with a unit (15m, 12h, 30d)"),
      onSome: (d) =>
        min !== undefined && Duration.lessThan(d, min)
          ? Either.left(`must be at least ${formatDuration(min)}`)
          : max !== undefined && Duration.greaterThan(d, max)
          ? Either.left(`must be at most ${formatDuration(max)}`)
          : Either.right(d)
    })).pipe(Config.map(toDuration))
}

const SIZE_UNITS: Record<string, number> = { "": 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3 }

/** php.ini-style sizes: `20M`, `512K`, `1G` or a plain number of bytes. */
export const parseSize = (raw: string): Option.Option<number> => {
  const match = /^\s*(\d+)\s*([KMG]?)B?\s*$/i.exec(raw)
  if (!match) return Option.none()
  return Option.some(Number(match[1]) * SIZE_UNITS[match[2]!.toUpperCase()]!)
}

/** A size in bytes, above 0 (see parseSize); the default is given in bytes. */
export const size = (name: string, options: Options<number> = {}): Config.Config<number> =>
  setting(name, options, (raw) =>
    Option.match(parseSize(raw), {
      onNone: () => Either.left("must be a size such as 20M, 512K or 1048576"),
      onSome: (bytes) => bytes > 0 ? Either.right(bytes) : Either.left("must be above 0")
    }))

/** An http(s) URL, without trailing slashes. */
export const url = (name: string, options: Options<string> = {}): Config.Config<string> =>
  setting(name, options, (raw) => {
    try {
      const u = new URL(raw)
      if (u.protocol === "http:" || u.protocol === "https:") return Either.right(raw.replace(/\/+$/, ""))
    } catch {
      // not a URL
    }
    return Either.left("must be an http(s) URL")
  })

export interface Address {
  readonly host: string
  readonly port: number
}

/** `host:port`, `[ipv6]:port` or `:port` (all interfaces); `None` for `off`. */
export const parseAddress = (raw: string): Either.Either<Option.Option<Address>, void> => {
  const s = raw.trim()
  if (s.toLowerCase() === "off") return Either.right(Option.none())
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:\s[\]]*)):(\d{1,5})$/.exec(s)
  const port = Number(match?.[3])
  if (!match || port > 65535) return Either.left(undefined)
  return Either.right(Option.some({ host: match[1] ?? (match[2] === "" ? "0.0.0.0" : match[2]!), port }))
}

/** A listening address `host:port`, or `off` (None). The default is written as the variable would be. */
export const address = (name: string, options: Options<string> = {}): Config.Config<Option.Option<Address>> => {
  const parse = (raw: string) => Either.mapLeft(parseAddress(raw), () => "must be host:port or off")
  const { default: fallback, ...source } = options
  return setting(
    name,
    fallback === undefined ? source : { ...source, default: Either.getOrThrow(parseAddress(fallback)) },
    parse
  )
}

/** An IANA time zone (a leading `:` as in glibc's TZ is dropped); unset means the system's. */
export const timeZone = (name: string): Config.Config<string> =>
  setting(name, { default: Intl.DateTimeFormat().resolvedOptions().timeZone }, (raw) => {
    const zone = raw.replace(/^:/, "")
    try {
      new Intl.DateTimeFormat("en-US", { timeZone: zone })
      return Either.right(zone)
    } catch {
      return Either.left("must be an IANA time zone such as Europe/Brussels")
    }
  })

/**
 * A 5-field cron expression that `Cron.parse` accepts; with `seconds`, also one of 6 fields whose
 * first is the second (`7 * * * * *`: at second 7 of every minute), which the documented 5-field
 * form never needs but lets a test have a run come within seconds rather than at the next minute.
 */
export const cron = (name: string, options: Options<string> & { readonly seconds?: boolean } = {}): Config.Config<string> =>
  setting(name, options, (raw) => {
    const expression = raw.split(/\s+/).join(" ")
    const fields = expression.split(" ").length
    return (fields === 5 || (fields === 6 && options.seconds === true)) && Either.isRight(Cron.parse(expression))
      ? Either.right(expression)
      : Either.left("must be a 5-field cron expression")
  })

/** Flattens a ConfigError into one line per problem. */
export const configProblems = (error: ConfigError.ConfigError): Array<string> => {
  const line = (p: Array<string>, message: string) => [p.length > 0 ? `${p.join(".")}: ${message}` : message]
  return ConfigError.reduceWithContext(error, undefined, {
    andCase: (_, l: Array<string>, r: Array<string>) => [...l, ...r],
    orCase: (_, l: Array<string>, r: Array<string>) => [...l, ...r],
    invalidDataCase: (_, p, message) => line(p, message),
    missingDataCase: (_, p, message) => line(p, message),
    sourceUnavailableCase: (_, p, message) => line(p, message),
    unsupportedCase: (_, p, message) => line(p, message)
  })
}

/** The configuration could not be read: every problem, one line each. */
export class InvalidSettings extends Data.TaggedError("InvalidSettings")<{
  readonly problems: ReadonlyArray<string>
}> {
  override get message() {
    const n = this.problems.length
    return `invalid configuration (${n} problem${n === 1 ? "" : "s"}):\n${this.problems.map((p) => `  - ${p}`).join("\n")}`
  }
}

/** Reads a configuration; any problem fails with InvalidSettings listing all of them. */
export const load = <A>(config: Config.Config<A>): Effect.Effect<A, InvalidSettings> =>
  Effect.mapError(config, (error) => new InvalidSettings({ problems: configProblems(error) }))

/**
 * A program's settings checked before anything runs: the configuration and `moreProblems`
 * (checks across settings), every problem at once in one InvalidSettings.
 */
export const checkSettings = <A>(
  config: Config.Config<A>,
  moreProblems: () => ReadonlyArray<string> = () => []
): Effect.Effect<A, InvalidSettings> =>
  Effect.either(load(config)).pipe(
    Effect.flatMap((loaded) => {
      const problems = [...(Either.isLeft(loaded) ? loaded.left.problems : []), ...moreProblems()]
      return Either.isRight(loaded) && problems.length === 0 ? Effect.succeed(loaded.right) : Effect.fail(new InvalidSettings({ problems }))
    })
  )
