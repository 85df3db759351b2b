import * as Schema from "effect/Schema"

/** A calendar date `YYYY-MM-DD` in an answer: the athlete's local date, described for the OpenAPI document. */
export const LocalDate = (description: string) =>
  Schema.String.annotations({ description, jsonSchema: { type: "string", format: "date", description } })
