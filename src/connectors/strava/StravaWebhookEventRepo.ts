import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * Pending webhook events of the external platform, table `webhook_events`. One pending event
 * per object: a second event for the same object id is ignored until the first is grabbed
 * (`ON CONFLICT(object_id) DO NOTHING`). Grabbed events are deleted, so only pending ones are
 * kept, and at most WEBHOOK_MAX_PENDING of them: past that an event is refused (the scheduled
 * full import catches up on what it announced).
 */
export type WebhookAspect = "create" | "update" | "delete"

/** Far more than one athlete's activities change between two checks (an hour at most). */
export const WEBHOOK_MAX_PENDING = 1_000

/** What became of an event handed to `store`. */
export type StoreOutcome = "stored" | "alreadyPending" | "full"

export interface WebhookEvent {
  readonly objectId: string
  readonly objectType: string
  readonly aspectType: WebhookAspect
  /** the event's known members as JSON (never the raw body) */
  readonly payload: string
  /** epoch ms */
  readonly receivedAt: number
}

interface Row {
  readonly object_id: string
  readonly object_type: string
  readonly aspect_type: string
  readonly payload: string
  readonly received_at: number
}

export class StravaWebhookEventRepo extends Effect.Service<StravaWebhookEventRepo>()("connectors/strava/StravaWebhookEventRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /** Stores the event unless one is already pending for the object or the store is full. */
    const store = Effect.fn("StravaWebhookEventRepo.store")(function*(event: WebhookEvent) {
      // one statement: the count and the insert cannot be split by another request
      const rows = yield* sql<{ object_id: string }>`INSERT INTO webhook_events
        (object_id, object_type, aspect_type, payload, received_at)
        SELECT ${event.objectId}, ${event.objectType}, ${event.aspectType}, ${event.payload}, ${event.receivedAt}
        WHERE (SELECT COUNT(*) FROM webhook_events) < ${WEBHOOK_MAX_PENDING}
        ON CONFLICT(object_id) DO NOTHING RETURNING object_id`
      if (rows.length > 0) return "stored" satisfies StoreOutcome as StoreOutcome
      const [pending] = yield* sql<{ n: number }>`SELECT COUNT(*) AS n FROM webhook_events WHERE object_id = ${event.objectId}`
      return (pending?.n ?? 0) > 0 ? "alreadyPending" : "full"
    }, Effect.orDie)

    /** Reads and deletes every pending event in one transaction, oldest first. */
    const grab = Effect.fn("StravaWebhookEventRepo.grab")(function*() {
      return yield* sql.withTransaction(Effect.gen(function*() {
        const rows = yield* sql<Row>`SELECT * FROM webhook_events ORDER BY received_at, object_id`
        if (rows.length > 0) yield* sql`DELETE FROM webhook_events WHERE ${sql.in("object_id", rows.map((r) => r.object_id))}`
        return rows.map((r): WebhookEvent => ({
          objectId: r.object_id,
          objectType: r.object_type,
          aspectType: r.aspect_type as WebhookAspect,
          payload: r.payload,
          receivedAt: r.received_at
        }))
      }))
    }, Effect.orDie)

    const pending = Effect.fn("StravaWebhookEventRepo.pending")(function*() {
      const [row] = yield* sql<{ n: number }>`SELECT COUNT(*) AS n FROM webhook_events`
      return row?.n ?? 0
    }, Effect.orDie)

    return { store, grab, pending } as const
  })
}) {}
