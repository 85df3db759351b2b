import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { importSourceOfFormat } from "../schema/ActivityDraft.ts"
import { BadRequest, NotFound } from "../schema/ApiErrors.ts"
import { Activity, ActivityList, type FileImport, FileImportList, Status } from "../schema/ApiModels.ts"
import type { ActivitySearchParams, FileImportSearchParams } from "../schema/QueryParams.ts"
import { type ActivitySearch, ActivityReads, type ActivitySearchResult } from "../services/activities/ActivityReads.ts"
import { type FileImportSearch, FileImportReads } from "../services/import/FileImportReads.ts"
import { type QueuedFile, WatchDirectory } from "../services/import/WatchDirectory.ts"
import type { MapStatus } from "../schema/MapModels.ts"
import { MapTiles } from "../services/maps/MapTiles.ts"
import { AppConfig, type AppConfigShape } from "../services/platform/AppConfig.ts"
import { VERSION } from "../services/platform/version.ts"
import { jsonEncoder, jsonResponse } from "./encode/jsonResponder.ts"
import type { HotReadName, HotReadSignatures } from "./HotRead.ts"

/**
 * The handlers of the endpoints annotated `HotRead`: plain synchronous functions over the
 * ReadConnection, answering the JSON text of the endpoint's success, or the error it declares.
 * The app's handler of each such endpoint is `handler(name)`; the direct routes call `answers`
 * on the Node request itself, without a fiber. Both answer from this one code.
 */

export type HotAnswer<N extends HotReadName> = (input: HotReadSignatures[N]["input"]) => Either.Either<string, HotReadSignatures[N]["error"]>

/** The answer of `GET /status`; the map's part changes as the tile cache fills. */
export const statusOf = (config: AppConfigShape, map: MapStatus): Status => ({ app: "waymark", version: `v${VERSION}`, canUpload: config.importMode === "files", map })

/** Why a search cannot be answered, beyond what its parameters' schema checks. */
export const searchProblem = (params: Pick<ActivitySearchParams, "filters[from]" | "filters[to]">): string | undefined => {
  const from = params["filters[from]"]
  const to = params["filters[to]"]
  return from !== undefined && to !== undefined && from > to ? '"filters[from]" must not be later than "filters[to]".' : undefined
}

/** A search of the list as the repository reads it, with the parameters' pagination. */
export const searchOf = (params: ActivitySearchParams): ActivitySearch => ({
  from: params["filters[from]"],
  to: params["filters[to]"],
  sportTypes: params["filters[sportType]"],
  hasGpx: params["filters[hasGpx]"],
  gearId: params["filters[gearId]"],
  search: params["filters[search]"],
  sort: params.sort,
  page: params["pagination[page]"],
  size: params["pagination[size]"]
})

/** The page answered for a search. */
export const activityListOf = (search: ActivitySearch, result: ActivitySearchResult): ActivityList => ({
  activities: result.activities,
  pagination: { page: search.page, size: search.size, total: result.total, totalPages: Math.ceil(result.total / search.size) }
})

export const activityNotFound = (id: string) => new NotFound({ message: `Activity "${id}" not found.` })

/**
 * A page of the import log: the queued files of the watch folder first (whatever the status
 * filter), then the stored rows, newest first. `stored` is the search of the stored rows that
 * completes the page.
 */
export const fileImportPage = (params: FileImportSearchParams, waiting: ReadonlyArray<QueuedFile>) => {
  const filename = params["filters[filename]"] === "" ? undefined : params["filters[filename]"]
  const sources = params["filters[source]"]
  const statuses = params["filters[status]"]?.filter((s) => s !== "queued")
  const onlyQueued = statuses !== undefined && statuses.length === 0
  const queued: Array<FileImport> = waiting
    .map((file): FileImport => ({
      id: null,
      filename: file.filename,
      source: importSourceOfFormat(file.format) as FileImport["source"],
      status: "queued",
      errorMessage: null,
      activityId: null,
      activityIds: [],
      activities: [],
      notes: null,
      importedOn: null
    }))
    .filter((f) => (filename === undefined || f.filename === filename) && (sources === undefined || sources.length === 0 || sources.includes(f.source)))
  const page = params["pagination[page]"]
  const size = params["pagination[size]"]
  const offset = (page - 1) * size
  const fromQueue = queued.slice(offset, offset + size)
  const stored: FileImportSearch = {
    filename,
    statuses: onlyQueued ? [] : statuses,
    sources,
    offset: Math.max(0, offset - queued.length),
    limit: size - fromQueue.length
  }
  /** The page, with the stored rows `stored` found. */
  const answer = (found: { readonly rows: ReadonlyArray<FileImport>; readonly total: number }): FileImportList => {
    const total = queued.length + found.total
    return { fileImports: [...fromQueue, ...found.rows], pagination: { page, size, total, totalPages: Math.ceil(total / size) } }
  }
  return { stored, answer }
}

const statusJson = jsonEncoder(Status)
const activityJson = jsonEncoder(Activity)
const activityListJson = jsonEncoder(ActivityList)
const fileImportListJson = jsonEncoder(FileImportList)

export class HotReads extends Effect.Service<HotReads>()("http/HotReads", {
  effect: Effect.gen(function*() {
    const config = yield* AppConfig
    const activities = yield* ActivityReads
    const imports = yield* FileImportReads
    const watch = yield* WatchDirectory
    const maps = yield* MapTiles

    const answers: { readonly [N in HotReadName]: HotAnswer<N> } = {
      "system.status": () => Either.right(statusJson(statusOf(config, maps.status()))),
      "activities.search": ({ urlParams }) => {
        const problem = searchProblem(urlParams)
        if (problem !== undefined) return Either.left(new BadRequest({ message: problem }))
        const search = searchOf(urlParams)
        return Either.right(activityListJson(activityListOf(search, activities.search(search))))
      },
      "activities.get": ({ path: { activityId } }) => {
        const found = activities.findById(activityId)
        return found === null ? Either.left(activityNotFound(activityId)) : Either.right(activityJson(found))
      },
      // the queued files are read from the watch folder each time
      "fileImports.search": ({ urlParams }) => {
        const page = fileImportPage(urlParams, watch.waiting())
        return Either.right(fileImportListJson(page.answer(imports.search(page.stored))))
      }
    }

    /** Whether an answer holds until the next commit to the database (none reads anything else). */
    const keptUntilCommit: { readonly [N in HotReadName]: boolean } = {
      "system.status": false,
      "activities.search": true,
      "activities.get": true,
      "fileImports.search": false
    }

    /** The app's handler of the endpoint annotated `name`. */
    const handler = <N extends HotReadName>(name: N) => {
      const answer = answers[name] as HotAnswer<N>
      return (input: HotReadSignatures[N]["input"]) =>
        Effect.suspend(() => Either.match(answer(input), { onLeft: Effect.fail, onRight: (text) => Effect.succeed(jsonResponse(text)) }))
    }

    return { answers, keptUntilCommit, handler } as const
  }),
  // the status tells the map's source: the same instance as the tile route's (one layer, shared within a build)
  dependencies: [MapTiles.Default]
}) {}
