import { Command, HelpDoc, Usage, ValidationError } from "@effect/cli"
import * as Terminal from "@effect/platform/Terminal"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Cause, ConfigError, Data, Effect, Layer, Option } from "effect"
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE, stoppedBy, watchStopSignals } from "../EntryPoint.ts"
import { configProblems } from "../services/platform/AppConfig.ts"
import { VERSION } from "../version.ts"

/**
 * How the command line behaves as a tool: exit code 0 (done), 1 (the command failed) or 2
 * (it was called wrongly: a usage error, or a confirmation it cannot ask for); one plain
 * line per error on stderr; no colour codes when stdout is not a terminal or NO_COLOR is set;
 * never a prompt without a terminal.
 */
export { EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from "../EntryPoint.ts"

/** A command was called wrongly in a way its declared arguments cannot say (exit code 2, with its usage). */
export class UsageError extends Data.TaggedError("UsageError")<{ readonly message: string }> {}

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

/** The tool as its usage lines name it, and how a person runs it ("npm run cli --"). */
export interface Tool {
  readonly name: string
  readonly invocation: string
}

const WAYMARK: Tool = { name: "waymark", invocation: "npm run cli --" }

/** "Usage: waymark <command> [options] <args>" of the command named in argv, or of the whole tool. */
const usageLine = (tool: Tool, commands: ReadonlyArray<Command.Command<any, any, any, any>>, name: string | undefined) => {
  const command = commandNamed(commands, name)
  if (command === undefined) {
    const names = commands.flatMap((c) => [...Command.getNames(c)])
    return `Usage: ${tool.name} <command> [options], one of: ${names.join(", ")}\nMore: ${tool.invocation} --help`
  }
  const usage = HelpDoc.toAnsiText(Usage.getHelp(Command.getUsage(command))).replace(ANSI, "").replace(/\s+/g, " ").trim()
  return `Usage: ${tool.name} ${usage}\nMore: ${tool.invocation} ${name} --help`
}

/** `help` and `help <command>` as the words for `--help` and `<command> --help`, unless a command is named help. */
const helpWord = (commands: ReadonlyArray<Command.Command<any, any, any, any>>, argv: ReadonlyArray<string>) =>
  argv[2] === "help" && commandNamed(commands, "help") === undefined ? [...argv.slice(0, 2), ...argv.slice(3), "--help"] : argv

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
  givenArgv: ReadonlyArray<string>,
  tool: Tool = WAYMARK
) => {
  watchStopSignals()
  const argv = helpWord(commands, givenArgv)
  let code = EXIT_OK
  const exitWith = (next: number, line?: string) =>
    Effect.sync(() => {
      code = next
      if (line !== undefined) process.stderr.write(`${line}\n`)
    })
  const program = Command.run(root, { name: tool.name, version: `v${VERSION}` })(argv).pipe(
    Effect.catchAllCause((cause): Effect.Effect<void> => {
      // a long-running command asked to stop by its service manager has done what it should
      if (Cause.isInterruptedOnly(cause)) return exitWith(stoppedBy() === "SIGTERM" ? EXIT_OK : 130)
      const failure = Option.getOrUndefined(Cause.failureOption(cause))
      if (ValidationError.isValidationError(failure)) {
        // @effect/cli has printed what is wrong already
        return exitWith(EXIT_USAGE, usageLine(tool, commands, argv[2]))
      }
      if (failure instanceof UsageError) return exitWith(EXIT_USAGE, `${failure.message}\n${usageLine(tool, commands, argv[2])}`)
      if (Cause.dieOption(cause).pipe(Option.exists((d) => d instanceof NoTerminal))) {
        return exitWith(EXIT_USAGE, "This command asks for a confirmation, but there is no terminal to ask on: pass --yes to confirm.")
      }
      // a command's own failure has said what failed on its output channel already
      if (typeof failure === "object" && failure !== null && (failure as { _tag?: unknown })._tag === "StravaCommandError") return exitWith(EXIT_FAILURE)
      // a command's own sentence, already in the tool's words
      if (typeof failure === "object" && failure !== null && (failure as { _tag?: unknown })._tag === "CommandFailed") {
        return exitWith(EXIT_FAILURE, String((failure as { message?: unknown }).message))
      }
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
    // an HTTP client may keep idle connections open: the process ends when its work has
    teardown: (_exit, onExit) => {
      onExit(code)
      process.exit(code)
    }
  })
}
