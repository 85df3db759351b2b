import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Option, Redacted, Schema } from "effect"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { type JsonFileError, writeFileAtomic } from "../../../src/connectors/kit/JsonFile.ts"
import { makeStateFile } from "../../../src/connectors/kit/StateFile.ts"
import { makeTokenStore } from "../../../src/connectors/kit/TokenStore.ts"
import { tempDirs } from "../../support/tempDirs.ts"

const HELPER = fileURLToPath(new URL("./interruptedWrite.ts", import.meta.url))

const tempDir = tempDirs("waymark-kit-files-")

/** Runs the helper, which blocks in rename; kills it (SIGKILL) once the temporary file is written. */
const killBeforeRename = (kind: "state" | "tokens", file: string, value: string) =>
  new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", HELPER, kind, file, value], { stdio: ["ignore", "pipe", "pipe"] })
    let stderr = ""
    child.stderr.on("data", (chunk) => (stderr += chunk))
    child.stdout.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("renaming")) child.kill("SIGKILL")
    })
    child.on("exit", (_, signal) =>
      signal === "SIGKILL" ? resolve() : reject(new Error(`the helper ended without reaching rename: ${stderr}`)))
  })

const Ledger = Schema.Struct({ value: Schema.String })
const ledgerAt = (file: string) => makeStateFile(Ledger, { file, version: 1, initial: { value: "initial" } })

const failureMessage = <A>(effect: Effect.Effect<A, JsonFileError>) =>
  Effect.map(Effect.flip(effect), (e) => e.message)

describe("writeFileAtomic", () => {
  it("replaces the content and leaves no temporary file; the mode is set whatever the umask", () => {
    const dir = tempDir()
    const file = path.join(dir, "a.json")
    fs.writeFileSync(file, "old")
    const umask = process.umask(0o077)
    try {
      writeFileAtomic(file, "new", 0o644)
    } finally {
      process.umask(umask)
    }
    expect(fs.readFileSync(file, "utf8")).toBe("new")
    expect(fs.statSync(file).mode & 0o777).toBe(0o644)
    expect(fs.readdirSync(dir)).toEqual(["a.json"])
  })
})

describe("StateFile", () => {
  it.effect("starts from the initial state without a file; saves as { version, ...content }", () =>
    Effect.gen(function*() {
      const file = path.join(tempDir(), "state", "ledger.json")
      const state = yield* ledgerAt(file)
      expect(yield* state.get).toEqual({ value: "initial" })
      expect(fs.existsSync(file)).toBe(false)
      yield* state.save({ value: "one" })
      expect(JSON.parse(fs.readFileSync(file, "utf8"))).toEqual({ version: 1, value: "one" })
      expect(yield* state.modify((s) => ({ value: `${s.value}+two` }))).toEqual({ value: "one+two" })
      expect(yield* Effect.map(ledgerAt(file), (s) => s.get).pipe(Effect.flatten)).toEqual({ value: "one+two" })
    }))

  it.live("a kill between the temporary write and the rename leaves the old content; the leftover is discarded at load", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const file = path.join(dir, "ledger.json")
      yield* Effect.flatMap(ledgerAt(file), (s) => s.save({ value: "old" }))
      yield* Effect.promise(() => killBeforeRename("state", file, "new"))
      const leftovers = fs.readdirSync(dir).filter((n) => n !== "ledger.json")
      expect(leftovers).toHaveLength(1)
      expect(fs.readFileSync(path.join(dir, leftovers[0]!), "utf8")).toContain("new")
      expect(JSON.parse(fs.readFileSync(file, "utf8"))).toEqual({ version: 1, value: "old" })

      const state = yield* ledgerAt(file)
      expect(yield* state.get).toEqual({ value: "old" })
      expect(fs.readdirSync(dir)).toEqual(["ledger.json"])
    }))

  it.effect("invalid JSON is refused, naming the file; the file is left as it was", () =>
    Effect.gen(function*() {
      const file = path.join(tempDir(), "ledger.json")
      fs.writeFileSync(file, '{"version":1,"value":')
      const message = yield* failureMessage(ledgerAt(file))
      expect(message).toContain(file)
      expect(message).toMatch(/not valid JSON/)
      expect(fs.readFileSync(file, "utf8")).toBe('{"version":1,"value":')
    }))

  it.effect("an unknown or missing version is refused, naming the file", () =>
    Effect.gen(function*() {
      const file = path.join(tempDir(), "ledger.json")
      fs.writeFileSync(file, JSON.stringify({ version: 2, value: "x" }))
      const message = yield* failureMessage(ledgerAt(file))
      expect(message).toContain(file)
      expect(message).toMatch(/has version 2, but this program reads version 1/)
      fs.writeFileSync(file, JSON.stringify({ value: "x" }))
      expect(yield* failureMessage(ledgerAt(file))).toMatch(/has version null/)
      fs.writeFileSync(file, "[1]")
      expect(yield* failureMessage(ledgerAt(file))).toMatch(/does not hold a JSON object/)
    }))

  it.effect("content that does not match the schema is refused, naming the file and the field", () =>
    Effect.gen(function*() {
      const file = path.join(tempDir(), "ledger.json")
      fs.writeFileSync(file, JSON.stringify({ version: 1, value: 42 }))
      const message = yield* failureMessage(ledgerAt(file))
      expect(message).toContain(file)
      expect(message).toContain("value")
    }))

  it.effect("a damaged file nested 100,000 deep, or megabytes long, is refused in one short line naming the file and the field, never the value", () =>
    Effect.gen(function*() {
      const file = path.join(tempDir(), "ledger.json")
      fs.writeFileSync(file, `{"version":1,"value":${"[".repeat(100_000)}${"]".repeat(100_000)}}`)
      const deep = yield* failureMessage(ledgerAt(file))
      expect(deep).toBe(`${file} does not hold what was expected (value: expected string, got an array of 1 item); fix or remove it`)

      fs.writeFileSync(file, JSON.stringify({ version: "v".repeat(4_000_000), value: "x" }))
      const versioned = yield* failureMessage(ledgerAt(file))
      expect(versioned).toContain(file)
      expect(versioned.length).toBeLessThan(file.length + 200)
    }))
})

const PolarToken = Schema.Struct({
  accessToken: Schema.Redacted(Schema.String),
  xUserId: Schema.Number,
  signingKey: Schema.optional(Schema.String)
})

const WahooToken = Schema.Struct({ accessToken: Schema.String, refreshToken: Schema.String, expiresAt: Schema.Number })

describe("TokenStore", () => {
  it.effect("no file means no token yet; a saved token is on disk (mode 0600) before save returns, and read back at start", () =>
    Effect.gen(function*() {
      const dir = path.join(tempDir(), "tokens")
      const store = yield* makeTokenStore(WahooToken, { directory: dir })
      expect(yield* store.get).toEqual(Option.none())
      expect(fs.statSync(dir).mode & 0o777).toBe(0o700)
      yield* store.save({ accessToken: "a1", refreshToken: "r1", expiresAt: 7200 })
      const file = path.join(dir, "tokens.json")
      expect(fs.statSync(file).mode & 0o777).toBe(0o600)
      expect(JSON.parse(fs.readFileSync(file, "utf8"))).toEqual({ accessToken: "a1", refreshToken: "r1", expiresAt: 7200 })
      const again = yield* makeTokenStore(WahooToken, { directory: dir })
      expect(yield* again.get).toEqual(Option.some({ accessToken: "a1", refreshToken: "r1", expiresAt: 7200 }))
    }))

  it.effect("generic over the shape: a Polar token without refresh token, with redacted access token", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const store = yield* makeTokenStore(PolarToken, { directory: dir, fileName: "polar.json" })
      yield* store.save({ accessToken: Redacted.make("secret"), xUserId: 475 })
      yield* store.update((current) => Effect.succeed({ ...Option.getOrThrow(current), signingKey: "k" }))
      const stored = JSON.parse(fs.readFileSync(path.join(dir, "polar.json"), "utf8"))
      expect(stored).toEqual({ accessToken: "secret", xUserId: 475, signingKey: "k" })
    }))

  it.effect("an unreadable or invalid token file is an error naming it, not a reset", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const file = path.join(dir, "tokens.json")
      fs.writeFileSync(file, "not json")
      const message = yield* failureMessage(makeTokenStore(WahooToken, { directory: dir }))
      expect(message).toContain(file)
      expect(fs.readFileSync(file, "utf8")).toBe("not json")
      fs.writeFileSync(file, JSON.stringify({ accessToken: "a" }))
      expect(yield* failureMessage(makeTokenStore(WahooToken, { directory: dir }))).toMatch(/refreshToken/)
      fs.rmSync(file)
      fs.mkdirSync(file)
      expect(yield* failureMessage(makeTokenStore(WahooToken, { directory: dir }))).toContain(`cannot read ${file} (EISDIR)`)
    }))

  it.live("update runs one refresh at a time: a single-use refresh token is spent once", () =>
    Effect.gen(function*() {
      const store = yield* makeTokenStore(WahooToken, { directory: tempDir() })
      yield* store.save({ accessToken: "a0", refreshToken: "r0", expiresAt: 0 })
      const spent = new Set<string>()
      const refresh = store.update((current) =>
        Effect.gen(function*() {
          const tokens = Option.getOrThrow(current)
          if (tokens.expiresAt > 0) return tokens // fresh: someone refreshed meanwhile
          if (spent.has(tokens.refreshToken)) return yield* Effect.fail("refresh token replayed")
          spent.add(tokens.refreshToken)
          yield* Effect.sleep("10 millis")
          return { accessToken: "a1", refreshToken: "r1", expiresAt: 7200 }
        })
      )
      const results = yield* Effect.all([refresh, refresh, refresh], { concurrency: "unbounded" })
      expect(results.map((t) => t.refreshToken)).toEqual(["r1", "r1", "r1"])
      expect([...spent]).toEqual(["r0"])
    }))

  it.live("a kill between the temporary write and the rename keeps the previous tokens", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const file = path.join(dir, "tokens.json")
      const store = yield* makeTokenStore(Schema.Struct({ accessToken: Schema.String }), { directory: dir })
      yield* store.save({ accessToken: "old" })
      yield* Effect.promise(() => killBeforeRename("tokens", file, "new"))
      const again = yield* makeTokenStore(Schema.Struct({ accessToken: Schema.String }), { directory: dir })
      expect(yield* again.get).toEqual(Option.some({ accessToken: "old" }))
      expect(fs.readdirSync(dir)).toEqual(["tokens.json"])
    }))

  it.effect("a failed update stores nothing", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const store = yield* makeTokenStore(WahooToken, { directory: dir })
      yield* store.save({ accessToken: "a0", refreshToken: "r0", expiresAt: 0 })
      const exit = yield* Effect.exit(store.update(() => Effect.fail("cloud said no")))
      expect(Exit.isFailure(exit)).toBe(true)
      expect(JSON.parse(fs.readFileSync(path.join(dir, "tokens.json"), "utf8")).refreshToken).toBe("r0")
    }))
})
