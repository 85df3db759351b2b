import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import type { Weight } from "../../schema/ApiModels.ts"

/** Weight measurements: one per calendar date, in the configured unit system. */
export class WeightRepo extends Effect.Service<WeightRepo>()("services/activities/WeightRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const list = Effect.fn("WeightRepo.list")(function*() {
      return yield* sql<Weight>`SELECT "on", weight FROM weights ORDER BY "on" DESC`
    }, Effect.orDie)

    const save = Effect.fn("WeightRepo.save")(function*(weight: Weight) {
      yield* sql`INSERT INTO weights ("on", weight) VALUES (${weight.on}, ${weight.weight})
        ON CONFLICT("on") DO UPDATE SET weight = excluded.weight`
      return weight
    }, Effect.orDie)

    const remove = Effect.fn("WeightRepo.delete")(function*(on: string) {
      yield* sql`DELETE FROM weights WHERE "on" = ${on}`
    }, Effect.orDie)

    return { list, save, remove } as const
  })
}) {}
