import { Command, Options } from "@effect/cli"
import { type Cause, Effect, Layer, Option } from "effect"
import * as readline from "node:readline"
import { announceStop, failingWith, ProgramFailed, sayOnConsole, settings } from "../../runtime/EntryPoint.ts"
import { describeStartupFailure } from "../../services/platform/StartupFailure.ts"
import { VERSION } from "../../services/platform/version.ts"
import { PolarAuthorization } from "./PolarAuthorization.ts"
import { polarConfig, type PolarConfigShape } from "./PolarConfig.ts"
import { loggingFor, PolarServicesLive, runProcess } from "./PolarDaemon.ts"
import { PolarSync } from "./PolarSync.ts"
import { WebhookKeeper } from "./WebhookKeeper.ts"
import { applyProcessSettings } from "./ProcessSettings.ts"

/**
 * The connector's command line: without a subcommand it runs the process; `login`
 * authorizes from a terminal, `sync-once [--dry-run]` runs one cycle, `status` prints the
 * running process's status, `webhook register|show|delete` manage the webhook. Each command
 * checks the configuration first (EntryPoint: every problem printed, exit code 1); a command
 * that fails says why in one sentence (`ProgramFailed`, exit code 1).
 */

/** How the connector's lines and failures start: its name. */
export const POLAR = "waymark-polar"

const print = (text: string) => Effect.sync(() => void process.stdout.write(`${text}\n`))
const printJson = (value: unknown) => print(JSON.stringify(value, null, 2))

/** The validated configuration, or every problem with it. */
const checkedConfig = settings(polarConfig)

/** Runs `program` with the connector's services and logging, after the configuration check. */
const withServices = <A, E extends { readonly message: string }>(
  program: (config: PolarConfigShape) => Effect.Effect<A, E, Layer.Layer.Success<typeof PolarServicesLive>>
) =>
  Effect.gen(function*() {
    const config = yield* checkedConfig
    for (const note of applyProcessSettings(config)) yield* Effect.logInfo(note)
    return yield* program(config).pipe(
      Effect.provide(PolarServicesLive),
      Effect.mapError((e): ProgramFailed => e instanceof ProgramFailed ? e : new ProgramFailed({ message: e.message })),
      Effect.provide(loggingFor(config))
    )
  })

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
    const config = yield* checkedConfig
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

export const polarSubcommands = [login, syncOnce, status, webhook] as const

/** The connector's own sentence for a failed run: a busy port named with HTTP_ADDR. */
const runFailure = (config: PolarConfigShape) => (cause: Cause.Cause<unknown>) =>
  describeStartupFailure(cause, {
    port: Option.match(config.httpAddr, { onNone: () => 0, onSome: (a) => a.port }),
    host: Option.match(config.httpAddr, { onNone: () => "", onSome: (a) => a.host }),
    storageDir: config.stateDir,
    watchDir: config.watchDir,
    program: "The Polar connector",
    listenSetting: { name: "HTTP_ADDR", holds: "host:port (or off)" }
  })

export const polarCommand = Command.make("polar", {}, () =>
  Effect.gen(function*() {
    const config = yield* checkedConfig
    const notes = applyProcessSettings(config)
    yield* Effect.forEach(notes, (note) => Effect.logInfo(note)).pipe(
      Effect.zipRight(runProcess),
      failingWith(runFailure(config)),
      announceStop(`the Polar connector v${VERSION}`, sayOnConsole(POLAR)),
      Effect.provide(loggingFor(config))
    )
  })).pipe(
    Command.withDescription("Polar connector: delivers Polar exercises into the watch folder (runs until stopped)"),
    Command.withSubcommands(polarSubcommands)
  )
