import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import type * as Schema from "effect/Schema"
import * as path from "node:path"
import { previewOf } from "./describeParseError.ts"
import { decodeStored, discardTemporaries, ensureFolder, JsonFileError, readJsonFile, writeJsonFile } from "./JsonFile.ts"

/**
 * A connector's versioned JSON state (ledger, sync history): `{ "version": n, ...content }`,
 * replaced atomically, held in memory. At load a temporary file left by a write cut off by a
 * crash is discarded; invalid JSON, another version or content that does not match the
 * schema refuse to start with a message naming the file, never a silent reset (a reset
 * ledger means downloading everything again). No file yet means the initial state.
 */
export interface StateFile<A> {
  readonly file: string
  readonly get: Effect.Effect<A>
  /** Stores a new state: durable on disk, then in memory. */
  readonly save: (state: A) => Effect.Effect<void, JsonFileError>
  /** Applies `f` to the current state and saves the result, one caller at a time. */
  readonly modify: (f: (state: A) => A) => Effect.Effect<A, JsonFileError>
}

export interface StateFileOptions<A> {
  readonly file: string
  /** The version this program writes and reads. */
  readonly version: number
  /** The state before the file exists. */
  readonly initial: A
  /** File mode (default 0644). */
  readonly mode?: number
}

export const makeStateFile = <A, I extends Readonly<Record<string, unknown>>>(
  schema: Schema.Schema<A, I>,
  options: StateFileOptions<A>
): Effect.Effect<StateFile<A>, JsonFileError> =>
  Effect.gen(function*() {
    const file = path.resolve(options.file)
    const mode = options.mode ?? 0o644
    const refuse = (message: string) => new JsonFileError({ file, message })

    const decode = (json: unknown): Effect.Effect<A, JsonFileError> => {
      if (typeof json !== "object" || json === null || Array.isArray(json)) {
        return Effect.fail(refuse(`${file} does not hold a JSON object; fix or remove it`))
      }
      const { version, ...content } = json as Record<string, unknown>
      if (version !== options.version) {
        return Effect.fail(refuse(
          `${file} has version ${previewOf(version ?? null)}, but this program reads version ${options.version}; ` +
            `refusing to start rather than lose it (move it away to start afresh)`
        ))
      }
      return decodeStored(file, schema, content)
    }

    yield* ensureFolder(file, 0o755)
    const discarded = yield* Effect.sync(() => discardTemporaries(file))
    if (discarded.length > 0) yield* Effect.logWarning(`discarded an unfinished write of ${file}: ${discarded.join(", ")}`)
    const loaded = yield* readJsonFile(file)
    const current = yield* Ref.make(Option.isSome(loaded) ? yield* decode(loaded.value) : options.initial)
    const lock = yield* Effect.makeSemaphore(1)

    const write = (state: A) =>
      writeJsonFile(file, schema, state, { mode, wrap: (encoded) => ({ version: options.version, ...encoded }) }).pipe(
        Effect.zipRight(Ref.set(current, state))
      )

    return {
      file,
      get: Ref.get(current),
      save: (state) => lock.withPermits(1)(write(state)),
      modify: (f) =>
        lock.withPermits(1)(Effect.flatMap(Ref.get(current), (state) => {
          const next = f(state)
          return Effect.as(write(next), next)
        }))
    } satisfies StateFile<A>
  })
