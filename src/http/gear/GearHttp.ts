import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import { BadRequest, GearIsImported, NotFound } from "../../schema/ApiErrors.ts"
import { GearCreate, GearUpdate } from "../../schema/GearInput.ts"
import { GearRepo, newGearId } from "../../services/activities/GearRepo.ts"
import { WaymarkApi } from "../Api.ts"
import { decodeBody, readJsonObject } from "../JsonBody.ts"

const decodeCreate = decodeBody(GearCreate)
const decodeUpdate = decodeBody(GearUpdate)

const gearNotFound = (id: string) => new NotFound({ message: `Gear "${id}" not found.` })

/**
 * Gear is the athlete's own, whatever the import mode: custom gear is created, renamed, retired
 * and deleted here; imported gear belongs to the external platform, which names it, so it can
 * only be retired.
 */
export const GearHttpLive = HttpApiBuilder.group(WaymarkApi, "gear", (handlers) =>
  Effect.gen(function*() {
    const gear = yield* GearRepo

    const existing = (id: string) => Effect.flatMap(gear.findById(id), (found) => (found === null ? Effect.fail(gearNotFound(id)) : Effect.succeed(found)))

    return handlers
      .handle("list", () => Effect.map(gear.list(), (list) => ({ gear: list })))
      .handle("get", ({ path: { gearId } }) =>
        Effect.gen(function*() {
          const found = yield* existing(gearId)
          return { ...found, months: yield* gear.months(gearId) }
        }))
      .handleRaw("create", ({ request }) =>
        Effect.gen(function*() {
          const input = yield* decodeCreate(yield* readJsonObject(request, { onWrongContentType: "unsupportedMediaType" }))
          const id = newGearId()
          yield* gear.upsert({ id, name: input.name, type: "custom", isRetired: input.isRetired ?? false })
          return HttpServerResponse.unsafeJson(yield* existing(id).pipe(Effect.orDie), { status: 201 })
        }))
      .handleRaw("update", ({ path: { gearId }, request }) =>
        Effect.gen(function*() {
          const current = yield* existing(gearId)
          const body = yield* readJsonObject(request, { onWrongContentType: "unsupportedMediaType" })
          if (Object.keys(body).length === 0) return yield* new BadRequest({ message: "The request body must contain at least one of: name, isRetired." })
          const patch = yield* decodeUpdate(body)
          if (current.type === "imported" && patch.name !== undefined && patch.name !== current.name) {
            return yield* new GearIsImported({ message: `Gear "${gearId}" is imported: it keeps the name the external platform gives it. It can only be retired.` })
          }
          yield* gear.update(gearId, patch)
          return HttpServerResponse.unsafeJson(yield* existing(gearId))
        }))
      .handle("delete", ({ path: { gearId } }) =>
        Effect.gen(function*() {
          const current = yield* existing(gearId)
          if (current.type === "imported") {
            return yield* new GearIsImported({ message: `Gear "${gearId}" is imported: the external platform would bring it back. Retire it instead.` })
          }
          yield* gear.remove(gearId)
        }))
  })
)
