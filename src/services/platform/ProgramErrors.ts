import * as Data from "effect/Data"

/**
 * How a program of Waymark ends when it does not end well, for the entry point to say and to
 * exit with (the daemon, the connectors, the command line and its commands).
 */

/** The program was called wrongly; `message` says how to call it (exit code 2). */
export class UsageError extends Data.TaggedError("UsageError")<{ readonly message: string }> {}

/** The program failed, for the reason its sentence says (exit code 1); `cause` is what failed, for the logs. */
export class ProgramFailed extends Data.TaggedError("ProgramFailed")<{ readonly message: string; readonly cause?: unknown }> {}
