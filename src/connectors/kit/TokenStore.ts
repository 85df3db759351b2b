import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import type * as Schema from "effect/Schema"
import * as path from "node:path"
import { decodeStored, discardTemporaries, ensureFolder, type JsonFileError, readJsonFile, writeJsonFile } from "./JsonFile.ts"

/**
 * A connector's OAuth tokens, kept in one JSON file (mode 0600) under the tokens folder and
 * held in memory. Generic over the token shape: Strava and Wahoo keep a rotating refresh
 * token, Polar an access token with its user id and webhook signing key.
 *
 * A new token set is on disk before `save` or `update` returns: a single-use refresh token
 * the cloud just rotated must survive a crash the next instant. No file means "nobody has
 * authorized yet"; a file that cannot be read or does not match the shape is an error naming
 * it, never a silent reset (that would throw away a token the cloud will not issue again).
 */
export interface TokenStore<A> {
  readonly file: string
  /** The tokens in memory (as loaded at start or last saved). */
  readonly get: Effect.Effect<Option.Option<A>>
  /** Reads the file again (another process, e.g. a `login` command, may have written it). */
  readonly reload: Effect.Effect<Option.Option<A>, JsonFileError>
  /** Stores a new token set: durable on disk, then in memory. */
  readonly save: (tokens: A) => Effect.Effect<void, JsonFileError>
  /**
   * Runs `f` on the current tokens with every other save and update held back, and stores
   * what it answers (unless it answers the very same object): the way to refresh a token
   * whose refresh token is single-use, so that two callers never spend it twice.
   */
  readonly update: <E, R>(
    f: (current: Option.Option<A>) => Effect.Effect<A, E, R>
  ) => Effect.Effect<A, E | JsonFileError, R>
}

export interface TokenStoreOptions {
  /** The tokens folder (created, mode 0700, when missing). */
  readonly directory: string
  readonly fileName?: string
}

export const TOKEN_FILE_MODE = 0o600

export const makeTokenStore = <A, I>(
  schema: Schema.Schema<A, I>,
  options: TokenStoreOptions
): Effect.Effect<TokenStore<A>, JsonFileError> =>
  Effect.gen(function*() {
    const file = path.resolve(options.directory, options.fileName ?? "tokens.json")
    const read = Effect.flatMap(readJsonFile(file), (json) =>
      Option.match(json, {
        onNone: () => Effect.succeed(Option.none<A>()),
        onSome: (value) => Effect.asSome(decodeStored(file, schema, value))
      }))

    yield* ensureFolder(file, 0o700)
    const discarded = yield* Effect.sync(() => discardTemporaries(file))
    if (discarded.length > 0) yield* Effect.logWarning(`discarded an unfinished write of ${file}: ${discarded.join(", ")}`)
    const current = yield* Ref.make(yield* read)
    const lock = yield* Effect.makeSemaphore(1)

    const write = (tokens: A) =>
      writeJsonFile(file, schema, tokens, { mode: TOKEN_FILE_MODE }).pipe(Effect.zipRight(Ref.set(current, Option.some(tokens))))

    return {
      file,
      get: Ref.get(current),
      reload: lock.withPermits(1)(Effect.tap(read, (tokens) => Ref.set(current, tokens))),
      save: (tokens) => lock.withPermits(1)(write(tokens)),
      update: (f) =>
        lock.withPermits(1)(
          Effect.gen(function*() {
            const before = yield* Ref.get(current)
            const after = yield* f(before)
            if (Option.isNone(before) || before.value !== after) yield* write(after)
            return after
          })
        )
    } satisfies TokenStore<A>
  })
