import * as Schema from "effect/Schema"

/** A refused value as a message quotes it: a string in quotes, anything else as JSON, cut short. */
const quoted = (actual: unknown): string =>
  typeof actual === "string" ? `"${actual.slice(0, 40)}"` : (JSON.stringify(actual) ?? String(actual)).slice(0, 40)

/**
 * A string that must be one of `allowed`, refused with `message` (given the value, quoted). A
 * union of literals would be refused naming only its first member ("Expected \"Ride\""),
 * whatever its message annotation; the JSON schema still lists the values, or refers to them.
 */
export const oneOf = <A extends string>(
  allowed: ReadonlyArray<A>,
  message: (actual: string) => string,
  jsonSchema: object = { type: "string", enum: [...allowed] }
): Schema.Schema<A, string> => {
  const set: ReadonlySet<string> = new Set(allowed)
  return Schema.String.annotations({ message: (issue) => message(quoted(issue.actual)) }).pipe(
    Schema.filter((s): s is A => set.has(s), { message: (issue) => message(quoted(issue.actual)) })
  ).annotations({ jsonSchema })
}
