import { Command, Options } from "@effect/cli"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as readline from "node:readline"
import { ProgramFailed } from "../../services/platform/ProgramErrors.ts"
import { checkSettings, type InvalidSettings } from "../../services/platform/Settings.ts"
import { PolarAuthorization } from "./PolarAuthorization.ts"
import { polarConfig, type PolarConfigShape } from "./PolarConfig.ts"
import type { PolarServices } from "./PolarDaemon.ts"
import { PolarSync } from "./PolarSync.ts"
import { WebhookKeeper } from "./WebhookKeeper.ts"

/**
 * The connector's subcommands: `login` authorizes from a terminal, `sync-once [--dry-run]`
 * runs one cycle, `status` prints the running process's status, `webhook register|show|delete`
 * manage the webhook. Each command checks the configuration first (every problem printed,
 * exit code 1); a command that fails says why in one sentence (`ProgramFailed`, exit code 1).
 * The services they run on, and their logging, come from the program's composition.
 */

/** How the connector's lines and failures start: its name. */
export const POLAR = "waymark-polar"

const print = (text: string) => Effect.sync(() => void process.stdout.write(`${text}\n`))
const printJson = (value: unknown) => print(JSON.stringify(value, null, 2))

/** The validated configuration, or every problem with it. */
export const checkedPolarConfig = checkSettings(polarConfig)

/** Runs `program` with the connector's services and logging, after the configuration check; its failures as `ProgramFailed`. */
export type WithPolarServices = <A, E extends { readonly message: string }>(
  program: (config: PolarConfigShape) => Effect.Effect<A, E, PolarServices>
) => Effect.Effect<A, ProgramFailed | InvalidSettings>

/** One line from the terminal; fails when the input ends first. */
const readLine = (prompt: string) =>
  Effect.async<string, ProgramFailed>((resume) => {
    const rl = readline.createInterface({ input: process.stdin, output: process.stderr, terminal: false })
    let answered = false
    rl.once("line", (line) => {
      answered = true
      rl.close()
      resume(Effect.succeed(line))
    })
    rl.once("close", () => {
      if (!answered) resume(Effect.fail(new ProgramFailed({ message: "no code was entered" })))
    })
    process.stderr.write(prompt)
    return Effect.sync(() => rl.close())
  })

/** The code from what was pasted: the code itself, or the whole address Polar redirected to (its state must match). */
export const codeFrom = (input: string, state: string): Either<string> => {
  const text = input.trim()
  if (!/[?&]code=/.test(text)) return text === "" ? { error: "no code was entered" } : { code: text }
  const params = new URLSearchParams(text.slice(text.indexOf("?") + 1))
  const given = params.get("state")
  if (given !== null && given !== state) return { error: "the address carries another authorization's state: start `login` again" }
  const error = params.get("error")
  if (error !== null) return { error: `Polar answered: ${error}` }
  const code = params.get("code")
  return code === null || code === "" ? { error: "the address carries no code" } : { code }
}
type Either<A> = { readonly code: A } | { readonly error: string }

/** The subcommands, run on the services `withServices` gives them. */
export const makePolarSubcommands = (withServices: WithPolarServices) => {
  const login = Command.make("login", {}, () =>
    withServices(() =>
      Effect.gen(function*() {
        const authorization = yield* PolarAuthorization
        const { state, url } = yield* authorization.begin
        yield* print(`Open this address in a browser and authorize the connector:\n\n  ${url}\n`)
        yield* print("Polar then redirects the browser; paste the code it carries (or the whole address).")
        const pasted = codeFrom(yield* readLine("code: "), state)
        if ("error" in pasted) return yield* new ProgramFailed({ message: pasted.error })
        yield* authorization.consume(state)
        const done = yield* authorization.complete(pasted.code)
        if (done._tag === "ConsentRequired") {
          return yield* new ProgramFailed({
            message: `authorized as Polar user ${done.polarUser}, but Polar refuses access: ${done.message}; accept the mandatory consents in Polar Flow`
          })
        }
        yield* print(`Authorized as Polar user ${done.polarUser}${done.newlyRegistered ? "" : " (already registered)"}.`)
      })
    )).pipe(Command.withDescription("Authorize from a terminal: prints Polar's address, reads the code back"))

  const syncOnce = Command.make(
    "sync-once",
    { dryRun: Options.boolean("dry-run").pipe(Options.withDescription("list what would be downloaded; write nothing")) },
    ({ dryRun }) =>
      withServices((config) =>
        Effect.gen(function*() {
          const sync = yield* PolarSync
          const dry = dryRun || config.dryRun
          if (!dry) yield* sync.prepare
          yield* printJson(yield* sync.cycle({ dryRun: dry }))
        })
      )
  ).pipe(Command.withDescription("Run one cycle and print its counts"))

  const status = Command.make("status", {}, () =>
    Effect.gen(function*() {
      const config = yield* checkedPolarConfig
      if (Option.isNone(config.httpAddr)) {
        return yield* new ProgramFailed({ message: "HTTP_ADDR is off: the running connector serves no status" })
      }
      const { host, port } = config.httpAddr.value
      const reachable = host === "0.0.0.0" ? "127.0.0.1" : host === "::" ? "[::1]" : host.includes(":") ? `[${host}]` : host
      const url = `http://${reachable}:${port}/status`
      const body = yield* Effect.tryPromise({
        try: async () => {
          const response = await fetch(url, { signal: AbortSignal.timeout(10_000) })
          return { status: response.status, text: await response.text() }
        },
        catch: (cause) =>
          new ProgramFailed({ message: `no answer from ${url} (${cause instanceof Error ? cause.message : String(cause)}): is the connector running?` })
      })
      if (body.status !== 200) return yield* new ProgramFailed({ message: `${url} answered ${body.status}` })
      yield* print(JSON.stringify(JSON.parse(body.text), null, 2))
    })).pipe(Command.withDescription("Print the status of the running connector"))

  const webhookRegister = Command.make("register", {}, () =>
    withServices((config) =>
      Effect.gen(function*() {
        if (Option.isNone(config.webhookUrl)) return yield* new ProgramFailed({ message: "set WEBHOOK_URL first" })
        const url = config.webhookUrl.value
        const keeper = yield* WebhookKeeper
        const registered = yield* keeper.register(url).pipe(
          Effect.mapError((e) =>
            new ProgramFailed({
              message: `${e.message} (Polar pings ${url} first: the connector must be running and reachable there)`
            })
          )
        )
        yield* printJson({ id: registered.id, url: registered.url, active: true })
      })
    )).pipe(Command.withDescription("Register (or re-activate) the EXERCISE webhook for WEBHOOK_URL"))

  const webhookShow = Command.make("show", {}, () =>
    withServices(() => Effect.flatMap(WebhookKeeper, (keeper) => Effect.flatMap(keeper.show, printJson))))
    .pipe(Command.withDescription("Show the client's webhook at Polar and the one stored here"))

  const webhookDelete = Command.make("delete", {}, () =>
    withServices(() =>
      Effect.gen(function*() {
        const ids = yield* Effect.flatMap(WebhookKeeper, (keeper) => keeper.remove)
        yield* print(ids.length === 0 ? "Polar has no webhook for this client." : `Deleted the webhook ${ids.join(", ")}.`)
      })
    )).pipe(Command.withDescription("Delete the client's webhook at Polar and forget its signing key"))

  const webhook = Command.make("webhook").pipe(
    Command.withSubcommands([webhookRegister, webhookShow, webhookDelete]),
    Command.withDescription("Manage the EXERCISE webhook")
  )

  return [login, syncOnce, status, webhook] as const
}
