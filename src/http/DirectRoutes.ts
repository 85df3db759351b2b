import { Effect, Either, Option, Schema } from "effect"
import type { IncomingMessage, ServerResponse } from "node:http"
import { ActivitySearchParams, FileImportSearchParams } from "../schema/QueryParams.ts"
import { ActivityReads } from "../services/activities/ActivityReads.ts"
import { FileImportReads } from "../services/import/FileImportReads.ts"
import { WatchDirectory } from "../services/import/WatchDirectory.ts"
import { ApiKey } from "../services/platform/ApiKey.ts"
import { AppConfig } from "../services/platform/AppConfig.ts"
import { ReadConnection } from "../services/platform/ReadConnection.ts"
import { makeVersionedCache } from "../services/platform/VersionedCache.ts"
import { activityListOf, searchOf, searchProblem } from "./ActivitiesHttp.ts"
import { fileImportPage } from "./FileImportsHttp.ts"
import { statusOf } from "./SystemHttp.ts"

/**
 * The API's busiest reads answered on the Node request itself, before the HTTP app: `GET
 * /api/v1/status`, `/api/v1/activities` (the list), `/api/v1/activities/{id}` and
 * `/api/v1/file-imports`, when the key is right and the request is plain. The app costs a fiber, a router and a middleware chain per
 * request, several times the work of these answers.
 *
 * The answer is the app's, byte for byte (its status, headers and body come from the same
 * functions and schemas), and anything else is left to the app: a missing or wrong key, a
 * parameter the schema refuses, an unknown activity, a request with a body, a database error.
 * Those are the requests that need the app's error answers and its log.
 *
 * An answer about activities is kept until the next commit to the database (a client polling
 * its list, a page showing one activity, are answered once per change), within
 * ANSWERS_CAPACITY characters. The import log is read each time: it shows the watch folder too.
 *
 * It stands aside while requests are observed: with traces exported, or the request log at
 * debug, every request goes through the app and its span and log line.
 */

export type DirectAnswer = (request: IncomingMessage, response: ServerResponse) => boolean

const ACTIVITIES = "/api/v1/activities"
const ACTIVITY_ID = /^[A-Za-z0-9_-]{1,100}$/

/** Characters of answers kept: about 200 pages of the list, or 5,000 activities. */
const ANSWERS_CAPACITY = 4 * 1024 * 1024

const decodeSearch = Schema.decodeUnknownEither(ActivitySearchParams)
const decodeImportSearch = Schema.decodeUnknownEither(FileImportSearchParams)

/** The query as the app reads it; undefined when a name repeats (the app's decode names that error). */
const queryRecord = (query: string): Record<string, string> | undefined => {
  const record: Record<string, string> = {}
  for (const [name, value] of new URLSearchParams(query)) {
    if (Object.hasOwn(record, name)) return undefined
    record[name] = value
  }
  return record
}

const hasBody = (request: IncomingMessage) => {
  const length = request.headers["content-length"]
  return (length !== undefined && length !== "0") || request.headers["transfer-encoding"] !== undefined
}

export class DirectRoutes extends Effect.Service<DirectRoutes>()("http/DirectRoutes", {
  effect: Effect.gen(function*() {
    const config = yield* AppConfig
    const apiKey = yield* ApiKey
    const reads = yield* ActivityReads
    const importReads = yield* FileImportReads
    const watch = yield* WatchDirectory
    const db = yield* ReadConnection
    const answers = makeVersionedCache<string>({ version: db.dataVersion, capacity: ANSWERS_CAPACITY, weigh: (url, body) => url.length + body.length })
    const observed = Option.isSome(config.otlpEndpoint) || config.logLevel === "debug" || config.logLevel === "trace"
    const status = JSON.stringify(statusOf(config))

    const list = (query: string): string | undefined => {
      const record = queryRecord(query)
      if (record === undefined) return undefined
      const params = decodeSearch(record)
      if (Either.isLeft(params) || searchProblem(params.right) !== undefined) return undefined
      const search = searchOf(params.right)
      return JSON.stringify(activityListOf(search, reads.search(search)))
    }

    const imports = (query: string): string | undefined => {
      const record = queryRecord(query)
      if (record === undefined) return undefined
      const params = decodeImportSearch(record)
      if (Either.isLeft(params)) return undefined
      const page = fileImportPage(params.right, watch.waiting())
      return JSON.stringify(page.answer(importReads.search(page.stored)))
    }

    const one = (id: string): string | undefined => {
      if (!ACTIVITY_ID.test(id)) return undefined
      const activity = reads.findById(id)
      return activity === null ? undefined : JSON.stringify(activity)
    }

    const bodyOf = (url: string): string | undefined => {
      const question = url.indexOf("?")
      const path = question === -1 ? url : url.slice(0, question)
      if (path === "/api/v1/status") return status
      if (path === ACTIVITIES) return answers(url, () => list(question === -1 ? "" : url.slice(question + 1)))
      if (path.startsWith(ACTIVITIES + "/") && question === -1) return answers(url, () => one(path.slice(ACTIVITIES.length + 1)))
      if (path === "/api/v1/file-imports") return imports(question === -1 ? "" : url.slice(question + 1))
      return undefined
    }

    const answer: DirectAnswer = (request, response) => {
      const url = request.url
      // a fragment is no part of a request: the app's URL parser drops it, this one would not
      if (request.method !== "GET" || url === undefined || !url.startsWith("/api/v1/") || url.includes("#") || hasBody(request)) return false
      if (Either.isLeft(apiKey.check(request.headers["authorization"]))) return false
      let body: string | undefined
      try {
        body = bodyOf(url)
      } catch {
        // a database error: the app answers it, with its reference in the errors log
        return false
      }
      if (body === undefined) return false
      response.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
      response.end(body)
      return true
    }

    return { answer: observed ? () => false : answer } as const
  })
}) {}
