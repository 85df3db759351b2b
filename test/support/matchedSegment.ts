import { Effect } from "effect"
import { send } from "./TestDaemon.ts"

/** The segment `id` once its matching against the history is done (asked of the daemon under test). */
export const matchedSegment = (id: string) =>
  Effect.gen(function*() {
    for (;;) {
      const answer = yield* send("GET", `/api/v1/segments/${id}`)
      if (answer.json.matching.status === "done") return answer.json
      yield* Effect.sleep("50 millis")
    }
  })
