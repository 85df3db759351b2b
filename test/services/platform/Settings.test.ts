import { describe, expect, it } from "@effect/vitest"
import { Config, ConfigProvider, Duration, Effect, Either, Option, Redacted } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Settings from "../../../src/services/platform/Settings.ts"
import { tempDirs } from "../../support/tempDirs.ts"

/** Reads `config` from `env`: the value, or every problem line. */
const read = <A>(config: Config.Config<A>, env: Record<string, string>): Either.Either<A, ReadonlyArray<string>> =>
  Effect.runSync(
    Settings.load(config).pipe(
      Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))),
      Effect.mapError((e) => e.problems),
      Effect.either
    )
  )

const value = <A>(config: Config.Config<A>, env: Record<string, string>): A => Either.getOrThrow(read(config, env))
const problems = <A>(config: Config.Config<A>, env: Record<string, string>) => Either.flip(read(config, env)).pipe(Either.getOrThrow)

const tempDir = tempDirs("waymark-settings-")

const tempFile = (content: string) => {
  const dir = tempDir()
  const file = path.join(dir, "value")
  fs.writeFileSync(file, content)
  return file
}

describe("Settings", () => {
  it("reports every problem at once, each naming its variable", () => {
    const config = Config.all({
      interval: Settings.duration("POLL_INTERVAL", { default: "900" }),
      jitter: Settings.integer("POLL_JITTER_PCT", { default: 10, min: 0, max: 100 }),
      conflict: Settings.oneOf("ON_CONFLICT", ["skip", "overwrite"], { default: "skip" }),
      dryRun: Settings.boolean("DRY_RUN", { default: false }),
      clientId: Settings.text("PROVIDER_A_CLIENT_ID")
    })
    expect(problems(config, { POLL_INTERVAL: "nope", POLL_JITTER_PCT: "101", ON_CONFLICT: "replace", DRY_RUN: "maybe" })).toEqual([
      'POLL_INTERVAL must be a duration: seconds (900) or a number with a unit (15m, 12h, 30d), got "nope"',
      'POLL_JITTER_PCT must be a whole number from 0 to 100, got "101"',
      'ON_CONFLICT must be one of skip, overwrite, got "replace"',
      'DRY_RUN must be true or false, got "maybe"',
      "PROVIDER_A_CLIENT_ID is required"
    ])
  })

  it("a blank variable is the same as an unset one", () => {
    expect(value(Settings.integer("PORT", { default: 8080 }), { PORT: "  " })).toBe(8080)
    expect(value(Config.option(Settings.url("PUBLIC_URL")), { PUBLIC_URL: "" })).toEqual(Option.none())
    expect(problems(Settings.text("CLIENT_ID"), { CLIENT_ID: " " })).toEqual(["CLIENT_ID is required"])
  })

  it("booleans: true/1/yes/on and false/0/no/off, any case", () => {
    for (const raw of ["true", "1", "yes", "on", "TRUE", "Yes", " On "]) expect(value(Settings.boolean("B"), { B: raw })).toBe(true)
    for (const raw of ["false", "0", "no", "off", "FALSE", "No", "OFF"]) expect(value(Settings.boolean("B"), { B: raw })).toBe(false)
    expect(value(Settings.boolean("B", { default: true }), {})).toBe(true)
    expect(problems(Settings.boolean("B"), { B: "2" })).toEqual(['B must be true or false, got "2"'])
  })

  it("durations: plain seconds or numbers with units, chained; ranges checked", () => {
    const ms = (raw: string) => Option.map(Settings.parseDuration(raw), Duration.toMillis)
    expect(ms("900")).toEqual(Option.some(900_000))
    expect(ms("15m")).toEqual(Option.some(900_000))
    expect(ms("720h")).toEqual(Option.some(720 * 3_600_000))
    expect(ms("30d")).toEqual(Option.some(30 * 86_400_000))
    expect(ms("1h30m")).toEqual(Option.some(5_400_000))
    expect(ms("250ms")).toEqual(Option.some(250))
    expect(ms("1.5s")).toEqual(Option.some(1500))
    for (const bad of ["", "m", "15 minutes", "-5", "5y", "1h 30"]) expect(ms(bad)).toEqual(Option.none())
    expect(Duration.toSeconds(value(Settings.duration("D", { default: "6h" }), {}))).toBe(21_600)
    expect(problems(Settings.duration("D", { min: "1s" }), { D: "0" })).toEqual(['D must be at least 1s, got "0"'])
    expect(problems(Settings.duration("D", { max: "1d" }), { D: "25h" })).toEqual(['D must be at most 1d, got "25h"'])
  })

  it("sizes: 20M, 512K, 1G, bytes; above 0", () => {
    expect(value(Settings.size("S"), { S: "20M" })).toBe(20 * 1024 * 1024)
    expect(value(Settings.size("S"), { S: "512k" })).toBe(512 * 1024)
    expect(value(Settings.size("S"), { S: "1GB" })).toBe(1024 ** 3)
    expect(value(Settings.size("S"), { S: "1048576" })).toBe(1048576)
    expect(value(Settings.size("S", { default: 42 }), {})).toBe(42)
    expect(problems(Settings.size("S"), { S: "lots" })).toEqual(['S must be a size such as 20M, 512K or 1048576, got "lots"'])
    expect(problems(Settings.size("S"), { S: "0" })).toEqual(['S must be above 0, got "0"'])
  })

  it("integers: whole numbers within their range", () => {
    expect(value(Settings.integer("N", { min: -5 }), { N: "-3" })).toBe(-3)
    expect(problems(Settings.integer("N", { min: 1 }), { N: "0" })).toEqual(['N must be a whole number of at least 1, got "0"'])
    expect(problems(Settings.integer("N"), { N: "1.5" })).toEqual(['N must be a whole number, got "1.5"'])
  })

  it("one-of choices answer the value as spelled in the list", () => {
    expect(value(Settings.oneOf("MODE", ["files", "externalApi"]), { MODE: "EXTERNALAPI" })).toBe("externalApi")
  })

  it("URLs: http(s) only, trailing slashes dropped", () => {
    expect(value(Settings.url("U"), { U: "https://example.com/base//" })).toBe("https://example.com/base")
    expect(problems(Settings.url("U"), { U: "ftp://example.com" })).toEqual(['U must be an http(s) URL, got "ftp://example.com"'])
  })

  it("addresses: host:port, [ipv6]:port, :port, or off", () => {
    const addr = (raw: string) => value(Settings.address("HTTP_ADDR"), { HTTP_ADDR: raw })
    expect(addr("0.0.0.0:8080")).toEqual(Option.some({ host: "0.0.0.0", port: 8080 }))
    expect(addr("localhost:0")).toEqual(Option.some({ host: "localhost", port: 0 }))
    expect(addr("[::1]:9000")).toEqual(Option.some({ host: "::1", port: 9000 }))
    expect(addr(":8085")).toEqual(Option.some({ host: "0.0.0.0", port: 8085 }))
    expect(addr("OFF")).toEqual(Option.none())
    expect(value(Settings.address("HTTP_ADDR", { default: "0.0.0.0:8080" }), {})).toEqual(Option.some({ host: "0.0.0.0", port: 8080 }))
    for (const bad of ["8080", "host:", "host:70000", "a:b:1"]) {
      expect(problems(Settings.address("HTTP_ADDR"), { HTTP_ADDR: bad })).toEqual([`HTTP_ADDR must be host:port or off, got "${bad}"`])
    }
  })

  it("lists: comma separated, blank items dropped", () => {
    expect(value(Settings.list("SPORTS", { default: [] }), {})).toEqual([])
    expect(value(Settings.list("SPORTS"), { SPORTS: "RUNNING, ,CYCLING " })).toEqual(["RUNNING", "CYCLING"])
  })

  it("cron expressions: 5 fields that parse", () => {
    expect(value(Settings.cron("C"), { C: "0  2 * * *" })).toBe("0 2 * * *")
    expect(problems(Settings.cron("C"), { C: "0 2 * *" })).toEqual(['C must be a 5-field cron expression, got "0 2 * *"'])
    expect(problems(Settings.cron("C"), { C: "61 2 * * *" })).toEqual(['C must be a 5-field cron expression, got "61 2 * * *"'])
  })

  describe("secrets and their _FILE variant", () => {
    it("reads X_FILE with its trailing newline stripped", () => {
      const file = tempFile("s3cret\n")
      expect(Redacted.value(value(Settings.secret("CLIENT_SECRET"), { CLIENT_SECRET_FILE: file }))).toBe("s3cret")
      expect(Redacted.value(value(Settings.secret("CLIENT_SECRET"), { CLIENT_SECRET: " direct " }))).toBe("direct")
      expect(Redacted.value(value(Settings.secret("CLIENT_SECRET"), { CLIENT_SECRET_FILE: tempFile("a b\r\n\n") }))).toBe("a b")
    })

    it("X and X_FILE both set is an error", () => {
      expect(problems(Settings.secret("CLIENT_SECRET"), { CLIENT_SECRET: "x", CLIENT_SECRET_FILE: tempFile("x") })).toEqual([
        "CLIENT_SECRET and CLIENT_SECRET_FILE are both set: keep only one"
      ])
    })

    it("an unreadable or empty file is an error naming it; the secret never shows", () => {
      const missing = path.join(os.tmpdir(), "waymark-no-such-secret")
      expect(problems(Settings.secret("CLIENT_SECRET"), { CLIENT_SECRET_FILE: missing })).toEqual([
        `CLIENT_SECRET_FILE: cannot read "${missing}" (ENOENT)`
      ])
      const empty = tempFile("\n")
      expect(problems(Settings.secret("CLIENT_SECRET"), { CLIENT_SECRET_FILE: empty })).toEqual([`CLIENT_SECRET_FILE: "${empty}" is empty`])
      const dir = path.dirname(empty)
      expect(problems(Settings.secret("CLIENT_SECRET"), { CLIENT_SECRET_FILE: dir })).toEqual([
        `CLIENT_SECRET_FILE: cannot read "${dir}" (EISDIR)`
      ])
    })

    it("a missing required secret names the variable", () => {
      expect(problems(Settings.secret("CLIENT_SECRET"), {})).toEqual(["CLIENT_SECRET is required"])
      expect(value(Config.option(Settings.secret("CLIENT_SECRET")), {})).toEqual(Option.none())
    })
  })

  describe("aliases", () => {
    const clientId = Settings.text("PROVIDER_A_CLIENT_ID", { aliases: ["POLAR_CLIENT_ID"] })

    it("either name gives the value; both set to the same value is fine", () => {
      expect(value(clientId, { PROVIDER_A_CLIENT_ID: "a" })).toBe("a")
      expect(value(clientId, { POLAR_CLIENT_ID: "b" })).toBe("b")
      expect(value(clientId, { PROVIDER_A_CLIENT_ID: "c", POLAR_CLIENT_ID: "c" })).toBe("c")
    })

    it("both set and different is an error", () => {
      expect(problems(clientId, { PROVIDER_A_CLIENT_ID: "a", POLAR_CLIENT_ID: "b" })).toEqual([
        "PROVIDER_A_CLIENT_ID and POLAR_CLIENT_ID are both set, to different values: keep only one"
      ])
    })

    it("messages name the variable the value came from", () => {
      expect(problems(Settings.integer("PROVIDER_A_MAX", { aliases: ["POLAR_MAX"] }), { POLAR_MAX: "x" })).toEqual([
        'POLAR_MAX must be a whole number, got "x"'
      ])
    })

    it("aliases of a secret have their _FILE variant too", () => {
      const secret = Settings.secret("PROVIDER_A_CLIENT_SECRET", { aliases: ["POLAR_CLIENT_SECRET"] })
      expect(Redacted.value(value(secret, { POLAR_CLIENT_SECRET_FILE: tempFile("k\n") }))).toBe("k")
      expect(problems(secret, { PROVIDER_A_CLIENT_SECRET: "a", POLAR_CLIENT_SECRET_FILE: tempFile("b") })).toEqual([
        "PROVIDER_A_CLIENT_SECRET and POLAR_CLIENT_SECRET_FILE are both set, to different values: keep only one"
      ])
    })
  })

  it("InvalidSettings renders every problem on its own line", () => {
    const error = new Settings.InvalidSettings({ problems: ["A is required", "B must be true or false, got \"x\""] })
    expect(error.message).toBe('invalid configuration (2 problems):\n  - A is required\n  - B must be true or false, got "x"')
  })
})
