import * as HttpApi from "@effect/platform/HttpApi"
import type * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import type * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
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
import { ReadConnection } from "../services/platform/ReadConnection.ts"
import { makeVersionedCache } from "../services/platform/VersionedCache.ts"
import { VERSION } from "../services/platform/version.ts"
import { WaymarkApi } from "./Api.ts"
import { jsonEncoder, jsonResponse } from "./encode/jsonResponder.ts"
import { HotRead, type HotReadSpec } from "./HotRead.ts"
import { oncePerPoll } from "./oncePerPoll.ts"

/**
 * The reads of the endpoints annotated `HotRead`: plain synchronous functions over the
 * ReadConnection, answering the JSON text of the endpoint's success, or an error it declares,
 * each typed by its endpoint (its decoded path and query parameters in, its declared errors
 * out). Both ways in answer through `read`: the app's handler of each such endpoint is
 * `handler(name)`, and the direct routes call `read` on the Node request itself, without a
 * fiber. An answer its endpoint declares invalidated by a commit is kept, by URL, until the next
 * commit to the database (a client polling its list is answered once per change), in one store
 * for both ways, within ANSWERS_CAPACITY characters. Whether the database changed is asked once
 * per turn of the event loop (`oncePerPoll`).
 */

/** Characters of answers kept: about 200 pages of the list, or 5,000 activities. */
const ANSWERS_CAPACITY = 4 * 1024 * 1024

type ApiGroups = typeof WaymarkApi extends HttpApi.HttpApi<any, infer Groups, any, any> ? Groups : never

/** Every endpoint of the API by `<group>.<endpoint>`, the names of the hot reads. */
export type EndpointName = ApiGroups extends infer Group
  ? Group extends HttpApiGroup.HttpApiGroup<infer Id, infer Endpoints, any, any, any> ? `${Id}.${Endpoints["name"]}` : never
  : never

type EndpointNamed<N extends string> = N extends `${infer Group}.${infer Name}`
  ? HttpApiEndpoint.HttpApiEndpoint.WithName<HttpApiGroup.HttpApiGroup.Endpoints<HttpApiGroup.HttpApiGroup.WithName<ApiGroups, Group>>, Name>
  : never

/** What a hot read takes: its endpoint's decoded path and query parameters. */
export type HotInput<N extends EndpointName> = Omit<HttpApiEndpoint.HttpApiEndpoint.Request<EndpointNamed<N>>, "request">

/** A hot read: the JSON text of its endpoint's success, or an error its endpoint declares. */
export type HotAnswer<N extends EndpointName> = (input: HotInput<N>) => Either.Either<string, HttpApiEndpoint.HttpApiEndpoint.Error<EndpointNamed<N>>>

/** A hot read's answer, whatever the read. */
export type Answered = Either.Either<string, { readonly _tag: string; readonly message: string }>

/** The hot reads the API declares, by name; fails the start on a name declared twice or not its endpoint's. */
const declaredHotReads = (): ReadonlyMap<string, HotReadSpec> => {
  const declared = new Map<string, HotReadSpec>()
  HttpApi.reflect(WaymarkApi, {
    onGroup: () => {},
    onEndpoint: ({ endpoint, group }) => {
      const spec = Context.getOption(endpoint.annotations, HotRead)
      if (Option.isNone(spec)) return
      const name = `${group.identifier}.${endpoint.name}`
      if (spec.value.name !== name) throw new Error(`${endpoint.method} ${endpoint.path}: its hot read is named "${spec.value.name}", not "${name}"`)
      if (declared.has(name)) throw new Error(`${endpoint.method} ${endpoint.path}: the hot read "${name}" is declared twice`)
      declared.set(name, spec.value)
    }
  })
  return declared
}

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
    const db = yield* ReadConnection

    const answers = {
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
    } satisfies { readonly [N in EndpointName]?: HotAnswer<N> }
    type Name = keyof typeof answers

    const declared = declaredHotReads()
    for (const name of Object.keys(answers)) {
      if (!declared.has(name)) throw new Error(`The hot read "${name}" annotates no endpoint of the API`)
    }
    for (const name of declared.keys()) {
      if (!(name in answers)) throw new Error(`The endpoint ${name} is annotated HotRead, but HotReads has no read of it`)
    }
    const keptUntilCommit = new Set([...declared].filter(([, spec]) => spec.invalidatedBy === "commit").map(([name]) => name))
    const kept = makeVersionedCache<string>({ version: oncePerPoll(db.dataVersion), capacity: ANSWERS_CAPACITY, weigh: (url, body) => url.length + body.length })

    /**
     * The answer of the hot read `name` to `input` (the request at `url`), from the kept answers
     * when it holds until the next commit (a refusal is never kept). A database error throws.
     */
    const read = (name: string, url: string, input: unknown): Answered => {
      const answer = answers[name as Name] as (input: unknown) => Answered
      if (!keptUntilCommit.has(name)) return answer(input)
      let refused: Answered | undefined
      const text = kept(url, () =>
        Either.match(answer(input), {
          onLeft: (error) => void (refused = Either.left(error)),
          onRight: (text) => text
        }))
      return text === undefined ? refused! : Either.right(text)
    }

    /** The app's handler of the endpoint annotated `name`. */
    const handler = <N extends Name>(name: N) =>
      (input: HotInput<N> & { readonly request: { readonly url: string } }) =>
        Effect.suspend(() =>
          Either.match(read(name, input.request.url, input) as Either.Either<string, ReturnType<(typeof answers)[N]> extends Either.Either<any, infer E> ? E : never>, {
            onLeft: Effect.fail,
            onRight: (text) => Effect.succeed(jsonResponse(text))
          })
        )

    return { read, handler } as const
  }),
  // the status tells the map's source: the same instance as the tile route's (one layer, shared within a build)
  dependencies: [MapTiles.Default]
}) {}
