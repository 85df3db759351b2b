import { Data } from "effect"

/** The one way a parser rejects a file: a message that says what is wrong with that file. */
export class ActivityFileError extends Data.TaggedError("ActivityFileError")<{ readonly message: string }> {}
