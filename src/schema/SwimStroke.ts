import * as Schema from "effect/Schema"

/** The strokes of a swim's length or lap, as the FIT profile names them (`swim_stroke`). */
export const STROKE_TYPES = ["freestyle", "backstroke", "breaststroke", "butterfly", "drill", "mixed", "im"] as const

export const StrokeType = Schema.Literal(...STROKE_TYPES).annotations({
  identifier: "StrokeType",
  description: "The stroke swum: freestyle, backstroke, breaststroke, butterfly, drill, mixed, or im (individual medley)"
})
export type StrokeType = typeof StrokeType.Type

const strokeSet: ReadonlySet<string> = new Set(STROKE_TYPES)
export const isStrokeType = (value: unknown): value is StrokeType => typeof value === "string" && strokeSet.has(value)
