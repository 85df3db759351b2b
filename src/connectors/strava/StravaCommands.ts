import { Args, Command, Options, Prompt } from "@effect/cli"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { WEBHOOK_PATH } from "./StravaWebhookRoutes.ts"
import { AppConfig } from "../../services/platform/AppConfig.ts"
import { channelFileLevel, inChannel, makeChannelFileLogger } from "../../services/platform/Logs.ts"
import { StoragePaths } from "../../services/platform/StoragePaths.ts"
import { StravaClient, type StravaError } from "./StravaClient.ts"
import { StravaImport } from "./StravaImport.ts"

/**
 * `app:external:*` commands: a full import, and the
 * webhook subscription of the external platform (create / view / delete). Their output is
 * written to stdout and to the `console-output` log channel (the import's progress lines also
 * to `daemon`).
 */

export class StravaCommandError extends Data.TaggedError("StravaCommandError")<{ readonly message: string }> {}

const say = (message: string) => Effect.logInfo(message).pipe(inChannel("console-output"))
const sayWarning = (message: string) => Effect.logWarning(message).pipe(inChannel("console-output"))
const sayError = (message: string) => Effect.logError(message).pipe(inChannel("console-output"))

/** Prints an error line and fails the command (exit code 1). */
const fail = (message: string) => sayError(message).pipe(Effect.zipRight(new StravaCommandError({ message })))

const ECHOED_CHANNELS = new Set(["console-output", "daemon"])

/** Terminal output of the commands: the message of every console-output / daemon line; other errors to stderr. */
const echoLogger = Logger.make<unknown, void>(({ annotations, logLevel, message }) => {
  const text = (Array.isArray(message) ? message : [message]).map((m) => (typeof m === "string" ? m : String(m))).join(" ")
  let channel: string | undefined
  for (const [k, v] of annotations) {
    if (k === "channel") channel = String(v)
    if (k === "echo" && v === false) return
  }
  if (channel !== undefined && ECHOED_CHANNELS.has(channel)) {
    if (LogLevel.greaterThanEqual(logLevel, LogLevel.Info)) {
      const prefix = LogLevel.greaterThanEqual(logLevel, LogLevel.Error) ? "[error] " : logLevel === LogLevel.Warning ? "[warning] " : ""
      process.stdout.write(`${prefix}${text}\n`)
    }
  } else if (LogLevel.greaterThanEqual(logLevel, LogLevel.Error)) {
    process.stderr.write(`[error] ${text}\n`)
  }
})

/** Logging of the CLI: the echo above plus every channel line into its daily file. */
export const CliLoggingLive = Layer.unwrapEffect(Effect.zipWith(StoragePaths, AppConfig, (paths, config) =>
  Layer.mergeAll(
    Logger.replace(Logger.defaultLogger, echoLogger),
    Logger.addScoped(makeChannelFileLogger(paths.logsDir)),
    Logger.minimumLogLevel(channelFileLevel(config.logLevel))
  )
))

const describeStravaError = (e: StravaError) => e.message

// ---------------------------------------------------------------------------------------

const importCommand = Command.make(
  "app:external:import",
  {
    ids: Options.text("ids").pipe(
      Options.withDescription("comma-separated Strava activity ids: import only these (a partial run)"),
      Options.optional
    )
  },
  ({ ids }) =>
    Effect.gen(function*() {
      const config = yield* AppConfig
      if (config.importMode !== "externalApi") {
        return yield* sayWarning(`IMPORT_MODE is "${config.importMode}": the Strava import runs only with IMPORT_MODE=externalApi`)
      }
      const strava = yield* StravaImport
      const idList = Option.map(ids, (raw) => raw.split(",").map((s) => s.trim()).filter((s) => s !== ""))
      if (Option.isSome(idList) && idList.value.some((s) => !/^\d+$/.test(s))) {
        return yield* fail(`--ids must be comma-separated activity ids, got "${Option.getOrElse(ids, () => "")}"`)
      }
      const report = yield* strava.run(
        Option.isSome(idList) ? { full: false, ids: idList.value.map(Number) } : { full: true }
      )
      // the summary is already on the terminal (daemon line): only the log file gets it again
      yield* say(report.message).pipe(Effect.annotateLogs("echo", false))
      if (report.outcome === "blocked" || report.outcome === "failed") {
        return yield* new StravaCommandError({ message: report.message })
      }
    })
).pipe(Command.withDescription("Run one Strava import now (a full run, or --ids for given activities)"))

const webhooksCreate = Command.make("app:external:webhooks-create", {}, () =>
  Effect.gen(function*() {
    const config = yield* AppConfig
    if (!config.webhooksEnabled) {
      return yield* sayWarning("Webhooks are not enabled: set WEBHOOKS_ENABLED=true (and WEBHOOKS_VERIFY_TOKEN) first")
    }
    if (config.importMode !== "externalApi") {
      return yield* sayWarning(`IMPORT_MODE is "${config.importMode}": webhooks work only with IMPORT_MODE=externalApi`)
    }
    if (Option.isNone(config.webhooksVerifyToken)) {
      return yield* fail("WEBHOOKS_VERIFY_TOKEN is not set: choose a secret verify token first")
    }
    const callbackUrl = `${config.appUrl.replace(/\/+$/, "")}${WEBHOOK_PATH}`
    const client = yield* StravaClient
    yield* say(`Creating the webhook subscription for ${callbackUrl} ...`)
    const created = yield* client.createSubscription(callbackUrl, Redacted.value(config.webhooksVerifyToken.value)).pipe(
      Effect.catchAll((e) => fail(`Could not create the webhook subscription: ${describeStravaError(e)}`))
    )
    yield* say(`Webhook subscription created: id ${created.id}, callback URL ${callbackUrl}`)
  })).pipe(Command.withDescription("Create the webhook subscription of the external platform (callback APP_URL/external/webhook)"))

const webhooksView = Command.make("app:external:webhooks-view", {}, () =>
  Effect.gen(function*() {
    const client = yield* StravaClient
    const subscriptions = yield* client.listSubscriptions().pipe(
      Effect.catchAll((e) => fail(`Could not read the webhook subscriptions: ${describeStravaError(e)}`))
    )
    if (subscriptions.length === 0) return yield* say("No webhook subscriptions found")
    for (const s of subscriptions) {
      yield* say(
        [
          `ID: ${s.id}`,
          `Application ID: ${s.application_id ?? ""}`,
          `Callback URL: ${s.callback_url ?? ""}`,
          `Created At: ${s.created_at ?? ""}`,
          `Updated At: ${s.updated_at ?? ""}`
        ].join(" | ")
      )
    }
  })).pipe(Command.withDescription("Show the webhook subscription of the external platform and its id"))

const webhooksDelete = Command.make(
  "app:external:webhooks-delete",
  {
    subscriptionId: Args.integer({ name: "subscription-id" }).pipe(Args.withDescription("the id shown by webhooks-view")),
    yes: Options.boolean("yes").pipe(Options.withAlias("y"), Options.withDescription("do not ask for confirmation"))
  },
  ({ subscriptionId, yes }) =>
    Effect.gen(function*() {
      const confirmed = yes ||
        (yield* Prompt.confirm({ message: `Delete webhook subscription ${subscriptionId}?`, initial: false }))
      if (!confirmed) return yield* say("Cancelled: nothing deleted")
      const client = yield* StravaClient
      yield* client.deleteSubscription(subscriptionId).pipe(
        Effect.catchAll((e) => fail(`Could not delete webhook subscription ${subscriptionId}: ${describeStravaError(e)}`))
      )
      yield* say(`Webhook subscription ${subscriptionId} deleted`)
    })
).pipe(Command.withDescription("Delete a webhook subscription of the external platform (asks for confirmation)"))

/** The commands, each building `layer` when it runs (the composition gives it); add them to the root command. */
export const makeStravaCommands = <E>(
  layer: Layer.Layer<AppConfig | StravaClient | StravaImport, E, never>
) =>
  [
    Command.provide(importCommand, layer),
    Command.provide(webhooksCreate, layer),
    Command.provide(webhooksView, layer),
    Command.provide(webhooksDelete, layer)
  ] as const

