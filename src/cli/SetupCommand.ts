import { Command, Options } from "@effect/cli"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { generateApiKey } from "../services/platform/ApiKey.ts"
import { envFilePath, writeApiKey } from "../services/platform/EnvFile.ts"

/**
 * `app:setup`: writes a fresh API key into the `.env` of the working directory (which `npm
 * start` and `docker compose` read) and prints it, so that the first API call already has it.
 */
export const setupCommand = Command.make(
  "app:setup",
  {
    force: Options.boolean("force").pipe(Options.withDescription("replace a SERVICE_API_KEY already in .env (clients using it are locked out)"))
  },
  ({ force }) =>
    Effect.gen(function*() {
      const file = envFilePath()
      const written = yield* Effect.try({
        try: () => writeApiKey(file, generateApiKey(), { force }),
        catch: (e) => new Error(`Could not write ${file}: ${(e as Error).message}`)
      })
      const head = written._tag === "Kept"
        ? `${file} already holds an API key: kept (pass --force to replace it).`
        : `Wrote a new API key to ${file} (readable by you only).`
      yield* Console.log(
        [
          head,
          "",
          `  SERVICE_API_KEY=${written.key}`,
          "",
          "`npm start` reads it from .env. Send it as \"Authorization: Bearer <key>\"; for the README walk-through:",
          "",
          `  export KEY=${written.key}`,
          ""
        ].join("\n")
      )
    })
).pipe(Command.withDescription("Write a fresh API key into ./.env (kept if one is there, unless --force) and print it"))
