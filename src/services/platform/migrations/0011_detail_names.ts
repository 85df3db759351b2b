import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Laps and splits stored under the API's names, so that they are answered as stored: a lap's
 * `startOffsetSeconds` becomes `startOffsetInSeconds`, a split's unit `metric` becomes `km` and
 * `imperial` becomes `mile` (in its column and its data). Each row is written again with the
 * API's properties in the API's order (a row whose data is not JSON, which no version wrote, is
 * left as it is: the migration must not stop the daemon).
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const field = (name: string, from: string = name) => `'${name}', json_extract(data, '$.${from}')`
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
    field("averageHeartRate")
  ].join(", ")}) WHERE CASE WHEN json_valid(data) THEN json_type(data, '$.startOffsetSeconds') END IS NOT NULL`)
  const unit = `CASE unit WHEN 'imperial' THEN 'mile' ELSE 'km' END`
  yield* sql.unsafe(`UPDATE activity_splits SET unit = ${unit}, data = CASE WHEN json_valid(data) THEN json_object('unit', ${unit}, ${[
    field("splitIndex"),
    field("distanceInMeter"),
    field("elevationDifferenceInMeter"),
    field("movingTimeInSeconds"),
    field("elapsedTimeInSeconds"),
    field("averageSpeedInKmPerHour"),
    field("averageHeartRate")
  ].join(", ")}) ELSE data END WHERE unit IN ('metric', 'imperial')`)
})
