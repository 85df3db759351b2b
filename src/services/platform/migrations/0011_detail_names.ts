import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * Laps, splits and a pool swim's lengths stored under the API's names, so that they are answered
 * as stored: a lap's and a length's `startOffsetSeconds` becomes `startOffsetInSeconds`, a
 * split's unit `metric` becomes `km` and `imperial` becomes `mile` (in its column and its data;
 * a swim's `100m` and `100yd` keep theirs), and a lap stored before swims were counted gets its
 * strokes, lengths, SWOLF and stroke as null. Each row is written again with the API's
 * properties in the API's order (a row whose data is not JSON, which no version wrote, is left
 * as it is: the migration must not stop the daemon). The lists are written out, not taken from
 * the schemas: a migration rewrites what was stored then, whatever the API becomes.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const field = (name: string, from: string = name) => `'${name}', json_extract(data, '$.${from}')`
  /** a row whose data is JSON naming the former start offset */
  const named = `CASE WHEN json_valid(data) THEN json_type(data, '$.startOffsetSeconds') END IS NOT NULL`
  yield* sql.unsafe(`UPDATE activity_laps SET data = json_object(${[
    field("lapIndex"),
    field("name"),
    field("startOffsetInSeconds", "startOffsetSeconds"),
    field("distanceInMeter"),
    field("elevationInMeter"),
    field("movingTimeInSeconds"),
    field("elapsedTimeInSeconds"),
    field("averageSpeedInKmPerHour"),
    field("maxSpeedInKmPerHour"),
    field("averageHeartRate"),
    field("strokes"),
    field("numberOfLengths"),
    field("swolf"),
    field("strokeType")
  ].join(", ")}) WHERE ${named}`)
  yield* sql.unsafe(`UPDATE activity_lengths SET data = json_object(${[
    field("lengthIndex"),
    field("lapIndex"),
    field("startOffsetInSeconds", "startOffsetSeconds"),
    field("elapsedTimeInSeconds"),
    field("distanceInMeter"),
    field("averageSpeedInKmPerHour"),
    field("strokes"),
    field("strokeType"),
    field("swolf")
  ].join(", ")}) WHERE ${named}`)
  const unit = `CASE unit WHEN 'imperial' THEN 'mile' WHEN 'metric' THEN 'km' ELSE unit END`
  yield* sql.unsafe(`UPDATE activity_splits SET unit = ${unit}, data = CASE WHEN json_valid(data) THEN json_object('unit', ${unit}, ${[
    field("splitIndex"),
    field("distanceInMeter"),
    field("elevationDifferenceInMeter"),
    field("movingTimeInSeconds"),
    field("elapsedTimeInSeconds"),
    field("averageSpeedInKmPerHour"),
    field("averageHeartRate")
  ].join(", ")}) ELSE data END`)
})
