/**
 * Test helper run as a child process: saves a new state (or token set) with rename blocked,
 * so that the parent can kill it between the temporary write and the rename.
 * Usage: node --import tsx interruptedWrite.ts <state|tokens> <file> <value>
 */
import fs from "node:fs"
import { syncBuiltinESMExports } from "node:module"
import * as path from "node:path"
import { Effect, Schema } from "effect"

const [kind, file, value] = process.argv.slice(2) as [string, string, string]

fs.renameSync = () => {
  process.stdout.write("renaming\n")
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0)
}
syncBuiltinESMExports()

const { makeStateFile } = await import("../../../src/connectors/kit/StateFile.ts")
const { makeTokenStore } = await import("../../../src/connectors/kit/TokenStore.ts")

await Effect.runPromise(
  kind === "state"
    ? Effect.flatMap(
      makeStateFile(Schema.Struct({ value: Schema.String }), { file, version: 1, initial: { value: "" } }),
      (state) => state.save({ value })
    )
    : Effect.flatMap(
      makeTokenStore(Schema.Struct({ accessToken: Schema.String }), { directory: path.dirname(file), fileName: path.basename(file) }),
      (tokens) => tokens.save({ accessToken: value })
    )
)
