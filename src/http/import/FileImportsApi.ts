import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import { BadRequest, ImportModeNotFiles, FileImportStatusConflict, NotFound, OriginalNotAvailable } from "../../schema/ApiErrors.ts"
import { ImportProgress } from "../../schema/ImportProgressModels.ts"
import { FileImportList, UploadAccepted } from "../../schema/ApiModels.ts"
import { FileImportSearchParams } from "../../schema/QueryParams.ts"
import { Authorization } from "../Authorization.ts"
import { HotRead } from "../HotRead.ts"

/** The import log: queued files, outcomes, progress, retry and removal (part of WaymarkApi). */

const fileImportId = HttpApiSchema.param("fileImportId", Schema.String.annotations({ description: "Prefixed id, starts with fileImport-" }))

export class FileImportsGroup extends HttpApiGroup.make("fileImports")
  .add(
    HttpApiEndpoint.get("search", "/file-imports")
      .setUrlParams(FileImportSearchParams)
      .addSuccess(FileImportList)
      .addError(BadRequest.wire)
      .annotate(HotRead, HotRead.of({ name: "fileImports.search", invalidatedBy: "notKept" }))
      .annotate(OpenApi.Summary, "Queued files first, then the outcome of every file import, newest first")
  )
  .add(
    HttpApiEndpoint.get("progress", "/file-imports/progress")
      .addSuccess(ImportProgress)
      .annotate(OpenApi.Summary, "How many files of the import under way are done, of how many, and the time left")
  )
  .add(
    HttpApiEndpoint.post("retry")`/file-imports/${fileImportId}/retry`
      .addSuccess(UploadAccepted, { status: 202 })
      .addError(NotFound.wire)
      .addError(OriginalNotAvailable.wire)
      .addError(FileImportStatusConflict.wire)
      .addError(ImportModeNotFiles.wire)
      .annotate(OpenApi.Summary, "Import a failed file again from its kept original; the failed row is replaced by the new import's")
  )
  .add(
    HttpApiEndpoint.del("delete")`/file-imports/${fileImportId}`
      .addSuccess(HttpApiSchema.NoContent)
      .addError(NotFound.wire)
      .addError(FileImportStatusConflict.wire)
      .annotate(OpenApi.Summary, "Remove a failed or skipped import and its kept original (a successful one goes with its activity)")
  )
  .middleware(Authorization)
  .annotate(OpenApi.Title, "File imports") {}
