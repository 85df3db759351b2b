import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect } from "effect"
import { FileImportStatusConflict, ImportModeNotFiles, NotFound, OriginalNotAvailable } from "../schema/ApiErrors.ts"
import { type FileImportActionError, FileImportActions } from "../services/import/FileImportActions.ts"
import { AppConfig } from "../services/platform/AppConfig.ts"
import { type FileImport, FileImportList } from "../schema/ApiModels.ts"
import { importSourceOfFormat } from "../schema/ActivityDraft.ts"
import type { FileImportSearchParams } from "../schema/QueryParams.ts"
import type { FileImportSearch } from "../services/import/FileImportReads.ts"
import { FileImportRepo } from "../services/import/FileImportRepo.ts"
import { type QueuedFile, WatchDirectory } from "../services/import/WatchDirectory.ts"
import { WaymarkApi } from "./Api.ts"
import { jsonResponder } from "./encode/jsonResponder.ts"

const fileImportListJson = jsonResponder(FileImportList)

const actionError = (error: FileImportActionError) =>
  error.reason === "notFound"
    ? new NotFound({ message: error.message })
    : error.reason === "noOriginal"
    ? new OriginalNotAvailable({ message: error.message })
    : new FileImportStatusConflict({ message: error.message })

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

export const FileImportsHttpLive = HttpApiBuilder.group(WaymarkApi, "fileImports", (handlers) =>
  Effect.gen(function*() {
    const repo = yield* FileImportRepo
    const watch = yield* WatchDirectory
    const actions = yield* FileImportActions
    const config = yield* AppConfig
    return handlers
      .handle("search", ({ urlParams }) =>
        Effect.gen(function*() {
          const page = fileImportPage(urlParams, yield* watch.queued())
          return fileImportListJson(page.answer(yield* repo.search(page.stored)))
        }))
      .handle("retry", ({ path: { fileImportId } }) =>
        Effect.gen(function*() {
          if (config.importMode !== "files") {
            return yield* new ImportModeNotFiles({ message: "Files can only be imported again when running in file import mode." })
          }
          const queued = yield* actions.retry(fileImportId).pipe(Effect.mapError(actionError))
          yield* Effect.logInfo(`file import ${fileImportId} queued again as ${queued}`)
          return HttpServerResponse.unsafeJson(
            { status: "queued", message: `File queued for import again as "${queued}".` },
            { status: 202 }
          )
        }))
      .handle("delete", ({ path: { fileImportId } }) =>
        actions.remove(fileImportId).pipe(Effect.mapError((e) =>
          e.reason === "notFound" ? new NotFound({ message: e.message }) : new FileImportStatusConflict({ message: e.message })
        )))
  })
)
