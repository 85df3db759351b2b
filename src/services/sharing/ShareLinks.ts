import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { createHash, randomBytes, randomUUID } from "node:crypto"
import { SHOW_DEFAULTS, type Share, type ShowsInput, type Shows } from "../../schema/ShareModels.ts"
import { AppConfig } from "../platform/AppConfig.ts"
import { inChannel } from "../platform/Logs.ts"

/**
 * Share links. A link's token is 32 bytes of `crypto.randomBytes` (256 bits) in base64url; only
 * its SHA-256 is stored, and a link is found by that hash through the table's unique index. A
 * wrong token and a revoked one (whose row is gone) take the same path: hash, one indexed
 * look-up, a miss. The time it takes does not depend on how close a guess was: what is compared
 * is a hash of it, not the token.
 */

/** Where a link opens: `${appUrl}/s/<token>`. */
export const SHARE_PATH = "/s"
export const TOKEN_BYTES = 32
/** A token as made here: 43 base64url characters. */
export const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/

export const hashToken = (token: string): Buffer => createHash("sha256").update(token, "utf8").digest()

export const showsOf = (input: typeof ShowsInput.Type | undefined): Shows => ({ ...SHOW_DEFAULTS, ...input })

/** A link opened: its share and its activity. */
export interface OpenedShare {
  readonly id: string
  readonly activityId: string
  readonly shows: Shows
}

type ShareRow = readonly [string, string, string, number]

const shareOf = ([id, activityId, shows, createdAt]: ShareRow, url: string | null): Share => ({
  id,
  activityId,
  url,
  createdOn: new Date(createdAt).toISOString(),
  shows: showsOf(JSON.parse(shows) as Shows)
})

export class ShareLinks extends Effect.Service<ShareLinks>()("services/sharing/ShareLinks", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const config = yield* AppConfig
    const linkOf = (token: string) => `${config.appUrl}${SHARE_PATH}/${token}`

    const create = Effect.fn("ShareLinks.create")(function*(activityId: string, shows: Shows) {
      const token = randomBytes(TOKEN_BYTES).toString("base64url")
      const id = `share-${randomUUID()}`
      const createdAt = Date.now()
      yield* sql`INSERT INTO shares ${sql.insert({ id, activity_id: activityId, token_hash: hashToken(token), shows: JSON.stringify(shows), created_at: createdAt })}`
      const shown = Object.entries(shows).filter(([, on]) => on).map(([name]) => name)
      yield* Effect.logInfo(`share link ${id} of activity ${activityId} created (shows ${shown.length === 0 ? "the figures only" : shown.join(", ")})`).pipe(inChannel("daemon"))
      return shareOf([id, activityId, JSON.stringify(shows), createdAt], linkOf(token))
    }, Effect.orDie)

    const list = Effect.fn("ShareLinks.list")(function*(activityId: string) {
      const rows = yield* sql`SELECT id, activity_id, shows, created_at FROM shares WHERE activity_id = ${activityId} ORDER BY created_at DESC, id`.values
      return rows.map((r) => shareOf(r as unknown as ShareRow, null))
    }, Effect.orDie)

    /** Revokes a link of the activity: false when it has no such link. */
    const revoke = Effect.fn("ShareLinks.revoke")(function*(activityId: string, id: string) {
      const deleted = yield* sql`DELETE FROM shares WHERE id = ${id} AND activity_id = ${activityId} RETURNING 1`.values
      if (deleted.length === 0) return false
      yield* Effect.logInfo(`share link ${id} of activity ${activityId} revoked`).pipe(inChannel("daemon"))
      return true
    }, Effect.orDie)

    /** The share a token opens, or null (a wrong, malformed or revoked token alike). */
    const open = Effect.fn("ShareLinks.open")(function*(token: string) {
      // a malformed token is hashed and looked up like any other: it costs the same as a wrong one
      const rows = yield* sql`SELECT id, activity_id, shows FROM shares WHERE token_hash = ${hashToken(token)}`.values
      if (rows.length === 0) return null
      const [id, activityId, shows] = rows[0] as unknown as readonly [string, string, string]
      return { id, activityId, shows: showsOf(JSON.parse(shows) as Shows) } satisfies OpenedShare
    }, Effect.orDie)

    return { create, list, revoke, open } as const
  })
}) {}
