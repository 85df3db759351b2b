import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { type FileImport, FileImportList } from "../schema/ApiModels.ts"
import { importSourceOfFormat } from "../schema/ActivityDraft.ts"
import { FileImportRepo } from "../services/import/FileImportRepo.ts"
import { WatchDirectory } from "../services/import/WatchDirectory.ts"
import { WaymarkApi } from "./Api.ts"
import { jsonResponder } from "./encode/jsonResponder.ts"

const fileImportListJson = jsonResponder(FileImportList)

/** Queued files of the watch folder first (whatever the status filter), then the stored rows, newest first. */
export const FileImportsHttpLive = HttpApiBuilder.group(WaymarkApi, "fileImports", (handlers) =>
  Effect.gen(function*() {
    const repo = yield* FileImportRepo
    const watch = yield* WatchDirectory
    return handlers.handle("search", ({ urlParams }) =>
      Effect.gen(function*() {
        const filename = urlParams["filters[filename]"] === "" ? undefined : urlParams["filters[filename]"]
        const sources = urlParams["filters[source]"]
        const statuses = urlParams["filters[status]"]?.filter((s) => s !== "queued")
        const onlyQueued = statuses !== undefined && statuses.length === 0
        const queued: Array<FileImport> = (yield* watch.queued())
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
        const page = urlParams["pagination[page]"]
        const size = urlParams["pagination[size]"]
        const offset = (page - 1) * size
        const fromQueue = queued.slice(offset, offset + size)
        const stored = yield* repo.search({
          filename,
          statuses: onlyQueued ? [] : statuses,
          sources,
          offset: Math.max(0, offset - queued.length),
          limit: size - fromQueue.length
        })
        const total = queued.length + stored.total
        return fileImportListJson({
          fileImports: [...fromQueue, ...stored.rows],
          pagination: { page, size, total, totalPages: Math.ceil(total / size) }
        })
      })
    )
  })
)
