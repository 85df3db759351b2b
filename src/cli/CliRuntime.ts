import { Command, HelpDoc, Usage, ValidationError } from "@effect/cli"
import * as Terminal from "@effect/platform/Terminal"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Cause, ConfigError, Data, Effect, Layer, Option } from "effect"
import { configProblems } from "../services/platform/AppConfig.ts"
import { VERSION } from "../version.ts"

/**
 * How the command line behaves as a tool: exit code 0 (done), 1 (the command failed) or 2
 * (it was called wrongly: a usage error, or a confirmation it cannot ask for); one plain
 * line per error on stderr; no colour codes when stdout is not a terminal or NO_COLOR is set;
 * never a prompt without a terminal.
 */
export const EXIT_OK = 0
export const EXIT_FAILURE = 1
export const EXIT_USAGE = 2

/** A prompt was needed while stdin is not a terminal. */
export class NoTerminal extends Data.TaggedError("NoTerminal") {}

const ANSI = /\u001b\[[0-9;]*[A-Za-z]/g

export const useColour = (env: NodeJS.ProcessEnv = process.env): boolean =>
  process.stdout.isTTY === true && (env["NO_COLOR"] === undefined || env["NO_COLOR"] === "")

const strip = (args: ReadonlyArray<unknown>) => args.map((a) => (typeof a === "string" ? a.replace(ANSI, "") : a))

/** The terminal, except that reading input without a terminal stops the command instead of waiting forever. */
const PromptOnlyOnTerminal = Layer.effect(
  Terminal.Terminal,
  Effect.map(Terminal.Terminal, (terminal): Terminal.Terminal =>
    process.stdin.isTTY === true ? terminal : { ...terminal, readInput: Effect.die(new NoTerminal()) })
).pipe(Layer.provide(NodeContext.layer))

const commandNamed = (commands: ReadonlyArray<Command.Command<any, any, any, any>>, name: string | undefined) =>
  commands.find((c) => Command.getNames(c).pipe((names) => name !== undefined && [...names].includes(name)))

/** "Usage: waymark <command> [options] <args>" of the command named in argv, or of the whole tool. */
const usageLine = (commands: ReadonlyArray<Command.Command<any, any, any, any>>, name: string | undefined) => {
  const command = commandNamed(commands, name)
  if (command === undefined) {
    const names = commands.flatMap((c) => [...Command.getNames(c)])
    return `Usage: waymark <command> [options], one of: ${names.join(", ")}\nMore: npm run cli -- --help`
  }
  const usage = HelpDoc.toAnsiText(Usage.getHelp(Command.getUsage(command))).replace(ANSI, "").replace(/\s+/g, " ").trim()
  return `Usage: waymark ${usage}\nMore: npm run cli -- ${name} --help`
}

const plainMessage = (error: unknown): string => {
  if (ConfigError.isConfigError(error)) return `invalid configuration: ${configProblems(error).join("; ")}`
  if (error instanceof Error || (typeof error === "object" && error !== null && "message" in error)) {
    return String((error as { message: unknown }).message).split("\n")[0]!
  }
  return String(error)
}

/** Runs the command line and exits with its code. */
export const runCommandLine = (
  root: Command.Command<any, any, any, any>,
  commands: ReadonlyArray<Command.Command<any, any, any, any>>,
  argv: ReadonlyArray<string>
) => {
  let code = EXIT_OK
  const exitWith = (next: number, line?: string) =>
    Effect.sync(() => {
      code = next
      if (line !== undefined) process.stderr.write(`${line}\n`)
    })
  const program = Command.run(root, { name: "waymark", version: `v${VERSION}` })(argv).pipe(
    Effect.catchAllCause((cause): Effect.Effect<void> => {
      if (Cause.isInterruptedOnly(cause)) return exitWith(130)
      const failure = Option.getOrUndefined(Cause.failureOption(cause))
      if (ValidationError.isValidationError(failure)) {
        // @effect/cli has printed what is wrong already
        return exitWith(EXIT_USAGE, usageLine(commands, argv[2]))
      }
      if (Cause.dieOption(cause).pipe(Option.exists((d) => d instanceof NoTerminal))) {
        return exitWith(EXIT_USAGE, "This command asks for a confirmation, but there is no terminal to ask on: pass --yes to confirm.")
      }
      // a command's own failure has said what failed on its output channel already
      if (typeof failure === "object" && failure !== null && (failure as { _tag?: unknown })._tag === "StravaCommandError") return exitWith(EXIT_FAILURE)
      const error = failure ?? Option.getOrUndefined(Cause.dieOption(cause))
      return exitWith(EXIT_FAILURE, `error: ${error === undefined ? Cause.pretty(cause).split("\n")[0] : plainMessage(error)}`)
    }),
    Effect.provide(Layer.merge(NodeContext.layer, PromptOnlyOnTerminal))
  ) as Effect.Effect<void>
  // colour codes only for a terminal that wants them; error text without @effect/cli's trailing blank line
  const colour = useColour()
  const clean = (args: ReadonlyArray<unknown>) => (colour ? args : strip(args))
  const trimmed = (args: ReadonlyArray<unknown>) => clean(args).map((a) => (typeof a === "string" ? a.trimEnd() : a))
  const withPlainConsole = Effect.flatMap(Effect.console, (console) =>
    Effect.withConsole(program, {
      ...console,
      log: (...args: ReadonlyArray<any>) => console.log(...clean(args)),
      info: (...args: ReadonlyArray<any>) => console.info(...clean(args)),
      error: (...args: ReadonlyArray<any>) => console.error(...trimmed(args)),
      warn: (...args: ReadonlyArray<any>) => console.warn(...trimmed(args))
    }))
  NodeRuntime.runMain(withPlainConsole, {
    disablePrettyLogger: true,
    disableErrorReporting: true,
    teardown: (_exit, onExit) => onExit(code)
  })
}
