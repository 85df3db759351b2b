import { Command, HelpDoc, Usage, ValidationError } from "@effect/cli"
import * as Terminal from "@effect/platform/Terminal"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as Cause from "effect/Cause"
import * as ConfigError from "effect/ConfigError"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { configProblems } from "../services/platform/AppConfig.ts"
import { UsageError } from "../services/platform/ProgramErrors.ts"
import { VERSION } from "../services/platform/version.ts"
import { EXIT_OK, firstLineOf, runProgram } from "./EntryPoint.ts"

/**
 * A command line (@effect/cli) as a program of EntryPoint: `npm run cli`, and the Polar and
 * Wahoo connectors' arguments. `help`, `--help` and `<command> --help` print the usage only;
 * a usage error (an unknown command or argument, a missing one, a confirmation it cannot ask
 * for) is a `UsageError` with the usage line, exit code 2; colour codes only on a terminal
 * that wants them; never a prompt without a terminal.
 */
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

type AnyCommand = Command.Command<any, any, any, any>

const commandNamed = (commands: ReadonlyArray<AnyCommand>, name: string | undefined) =>
  commands.find((c) => Command.getNames(c).pipe((names) => name !== undefined && [...names].includes(name)))

/** The tool as its usage lines name it, and how a person runs it ("npm run cli --"). */
export interface Tool {
  readonly name: string
  readonly invocation: string
}

const WAYMARK: Tool = { name: "waymark", invocation: "npm run cli --" }

const usageOf = (command: AnyCommand) =>
  HelpDoc.toAnsiText(Usage.getHelp(Command.getUsage(command))).replace(ANSI, "").replace(/\s+/g, " ").trim()

/** "Usage: waymark <command> [options] <args>" of the command named in argv, or of the whole tool. */
const usageLine = (tool: Tool, root: AnyCommand, commands: ReadonlyArray<AnyCommand>, name: string | undefined) => {
  if (commands.length === 0) return `Usage: ${usageOf(root)}\nMore: ${tool.invocation} --help`
  const command = commandNamed(commands, name)
  if (command === undefined) {
    const names = commands.flatMap((c) => [...Command.getNames(c)])
    return `Usage: ${tool.name} <command> [options], one of: ${names.join(", ")}\nMore: ${tool.invocation} --help`
  }
  return `Usage: ${tool.name} ${usageOf(command)}\nMore: ${tool.invocation} ${name} --help`
}

/** `help` and `help <command>` as the words for `--help` and `<command> --help`, unless a command is named help. */
const helpWord = (commands: ReadonlyArray<AnyCommand>, argv: ReadonlyArray<string>) =>
  argv[2] === "help" && commandNamed(commands, "help") === undefined ? [...argv.slice(0, 2), ...argv.slice(3), "--help"] : argv

/**
 * The command of `argv` run, its usage errors as `UsageError` (with the usage line); its own
 * failures as they are.
 */
export const commandLine = (
  root: AnyCommand,
  commands: ReadonlyArray<AnyCommand>,
  givenArgv: ReadonlyArray<string>,
  tool: Tool
): Effect.Effect<void, unknown> => {
  const argv = helpWord(commands, givenArgv)
  const usage = () => usageLine(tool, root, commands, argv[2])
  const program = Command.run(root, { name: tool.name, version: `v${VERSION}` })(argv).pipe(
    Effect.catchAllCause((cause): Effect.Effect<never, unknown> => {
      if (Cause.isInterruptedOnly(cause)) return Effect.failCause(cause)
      const failure = Option.getOrUndefined(Cause.failureOption(cause))
      // @effect/cli has printed what is wrong already
      if (ValidationError.isValidationError(failure)) return Effect.fail(new UsageError({ message: usage() }))
      if (failure instanceof UsageError) return Effect.fail(new UsageError({ message: `${failure.message}\n${usage()}` }))
      if (Cause.dieOption(cause).pipe(Option.exists((d) => d instanceof NoTerminal))) {
        return Effect.fail(new UsageError({ message: "This command asks for a confirmation, but there is no terminal to ask on: pass --yes to confirm." }))
      }
      return Effect.failCause(cause)
    }),
    Effect.provide(Layer.merge(NodeContext.layer, PromptOnlyOnTerminal))
  ) as Effect.Effect<void, unknown>
  // colour codes only for a terminal that wants them; error text without @effect/cli's trailing blank line
  const colour = useColour()
  const clean = (args: ReadonlyArray<unknown>) => (colour ? args : strip(args))
  const trimmed = (args: ReadonlyArray<unknown>) => clean(args).map((a) => (typeof a === "string" ? a.trimEnd() : a))
  return Effect.flatMap(Effect.console, (console) =>
    Effect.withConsole(program, {
      ...console,
      log: (...args: ReadonlyArray<any>) => console.log(...clean(args)),
      info: (...args: ReadonlyArray<any>) => console.info(...clean(args)),
      error: (...args: ReadonlyArray<any>) => console.error(...trimmed(args)),
      warn: (...args: ReadonlyArray<any>) => console.warn(...trimmed(args))
    }))
}

/** One plain line for a failed command of `npm run cli`; nothing when the command has said it already. */
const describeCommandFailure = (cause: Cause.Cause<unknown>): string | undefined => {
  const failure = Option.getOrUndefined(Cause.failureOption(cause))
  const tag = typeof failure === "object" && failure !== null ? (failure as { _tag?: unknown })._tag : undefined
  // a command's own failure has said what failed on its output channel already
  if (tag === "StravaCommandError") return undefined
  // a command's own sentence, already in the tool's words
  if (tag === "CommandFailed" || tag === "ProgramFailed") return firstLineOf(cause)
  if (ConfigError.isConfigError(failure)) return `error: invalid configuration: ${configProblems(failure).join("; ")}`
  return `error: ${firstLineOf(cause)}`
}

/**
 * Runs `npm run cli`'s command line and exits with its code: 0 done, 1 failed (one plain line
 * on stderr), 2 called wrongly. Stopped by SIGTERM it has done what it should (0); by Ctrl-C,
 * as a shell reports an interrupted command (130).
 */
export const runCommandLine = (
  root: AnyCommand,
  commands: ReadonlyArray<AnyCommand>,
  argv: ReadonlyArray<string>,
  tool: Tool = WAYMARK
) =>
  runProgram(commandLine(root, commands, argv, tool), {
    say: (_level, message) => void process.stderr.write(`${message}\n`),
    describeFailure: describeCommandFailure,
    stoppedExitCode: (signal) => (signal === "SIGINT" ? 130 : EXIT_OK)
  })
