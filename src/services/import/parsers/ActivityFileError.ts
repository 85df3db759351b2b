/**
 * The one way a parser rejects a file: a message that says what is wrong with that file.
 * A tagged error (`_tag`, so `Effect.catchTag` handles it) that does not extend Effect's
 * `Data.TaggedError`: the parse worker thread then loads no Effect runtime at all (~40 MB).
 */
export class ActivityFileError extends Error {
  readonly _tag = "ActivityFileError" as const
  /** for an activity that is impossible as computed: what is impossible, without the file's name */
  readonly reason: string | undefined
  constructor(args: { readonly message: string; readonly reason?: string }) {
    super(args.message)
    this.name = "ActivityFileError"
    this.reason = args.reason
  }
}
