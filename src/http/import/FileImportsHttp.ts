import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import { FileImportStatusConflict, ImportModeNotFiles, NotFound, OriginalNotAvailable } from "../../schema/ApiErrors.ts"
import { type FileImportActionError, FileImportActions } from "../../services/import/FileImportActions.ts"
import { ImportProgress } from "../../services/import/ImportProgress.ts"
import { AppConfig } from "../../services/platform/AppConfig.ts"
import { WaymarkApi } from "../Api.ts"
import { HotReads } from "../HotReads.ts"

const actionError = (error: FileImportActionError) =>
  error.reason === "notFound"
    ? new NotFound({ message: error.message })
    : error.reason === "noOriginal"
    ? new OriginalNotAvailable({ message: error.message })
    : new FileImportStatusConflict({ message: error.message })

export const FileImportsHttpLive = HttpApiBuilder.group(WaymarkApi, "fileImports", (handlers) =>
  Effect.gen(function*() {
    const hot = yield* HotReads
    const actions = yield* FileImportActions
    const config = yield* AppConfig
    const progress = yield* ImportProgress
    return handlers
      .handle("search", hot.handler("fileImports.search"))
      .handle("progress", () => progress.current())
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
