import * as Effect from "effect/Effect"
import { createHash, randomBytes } from "node:crypto"

/**
 * The dashboard's signed-in sessions. Signing in with the API key hands the browser a random
 * token in an HttpOnly cookie; the key itself never reaches the page. Only the token's hash
 * is kept, in memory: a restart of the daemon signs everyone out, and so does changing the key.
 */

export const SESSION_COOKIE = "waymark_session"
export const SESSION_TTL_SECONDS = 7 * 24 * 3600

const hashOf = (token: string) => createHash("sha256").update(token, "utf8").digest("hex")

/** The value of one cookie in a Cookie header. */
export const cookieValue = (header: string | undefined, name: string): string | undefined => {
  if (header === undefined) return undefined
  for (const part of header.split(";")) {
    const eq = part.indexOf("=")
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim()
  }
  return undefined
}

export class DashboardSessions extends Effect.Service<DashboardSessions>()("http/dashboard/DashboardSessions", {
  sync: () => {
    const sessions = new Map<string, number>()

    const sweep = (now: number) => {
      for (const [hash, expires] of sessions) if (expires <= now) sessions.delete(hash)
    }

    /** A new session; the token goes into the cookie and nowhere else. */
    const open = (): string => {
      const now = Date.now()
      sweep(now)
      const token = randomBytes(32).toString("base64url")
      sessions.set(hashOf(token), now + SESSION_TTL_SECONDS * 1000)
      return token
    }

    /** True when the request's Cookie header carries a live session. */
    const isSignedIn = (cookieHeader: string | undefined): boolean => {
      const token = cookieValue(cookieHeader, SESSION_COOKIE)
      if (token === undefined || token === "") return false
      const expires = sessions.get(hashOf(token))
      return expires !== undefined && expires > Date.now()
    }

    const close = (cookieHeader: string | undefined): void => {
      const token = cookieValue(cookieHeader, SESSION_COOKIE)
      if (token !== undefined) sessions.delete(hashOf(token))
    }

    return { open, isSignedIn, close } as const
  }
}) {}

/**
 * A write carried by the session cookie must come from the dashboard's own pages: its Origin
 * is the address the request was sent to, or APP_URL. SameSite=Strict already keeps the
 * cookie off cross-site requests; this holds where a browser does not.
 */
export const sameOrigin = (headers: Readonly<Record<string, string | undefined>>, appUrl: string): boolean => {
  const origin = headers["origin"]
  if (origin === undefined || origin === "null") return false
  const host = headers["host"]
  const forwarded = headers["x-forwarded-proto"]
  const own = host === undefined ? [] : [`http://${host}`, `https://${host}`].filter((o) => forwarded === undefined || o.startsWith(`${forwarded.split(",")[0]!.trim()}://`))
  return own.includes(origin) || origin === new URL(appUrl).origin
}

export const isSafeMethod = (method: string) => method === "GET" || method === "HEAD" || method === "OPTIONS"
