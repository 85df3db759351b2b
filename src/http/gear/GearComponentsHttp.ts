import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import { BadRequest, NotFound } from "../../schema/ApiErrors.ts"
import {
  ComponentServiceInput,
  GearComponent,
  GearComponentCreate,
  GearComponentList,
  GearComponentUpdate,
  INTERVAL_NAMES
} from "../../schema/GearComponentModels.ts"
import { GearRepo } from "../../services/activities/GearRepo.ts"
import { type ComponentFields, GearComponents } from "../../services/gear/GearComponents.ts"
import { WaymarkApi } from "../Api.ts"
import { jsonEncoder, jsonResponder } from "../encode/jsonResponder.ts"
import { decodeBody, optionalJsonObject, readJsonObject } from "../JsonBody.ts"

const decodeCreate = decodeBody(GearComponentCreate)
const decodeUpdate = decodeBody(GearComponentUpdate)
const decodeService = decodeBody(ComponentServiceInput)
const componentJson = jsonResponder(GearComponent)
const componentText = jsonEncoder(GearComponent)
const listJson = jsonResponder(GearComponentList)

const updatableFields = Object.keys(GearComponentUpdate.fields)

const created = (component: GearComponent) => HttpServerResponse.text(componentText(component), { status: 201, contentType: "application/json" })

/** The checks a component's fields must pass together, whatever request set them. */
const checkFields = (fields: ComponentFields, today: string): Effect.Effect<ComponentFields, BadRequest> => {
  if (fields.installedOn > today) return Effect.fail(new BadRequest({ message: `"installedOn" cannot be in the future (today is ${today}).` }))
  if (INTERVAL_NAMES.every((name) => fields[name] === null)) {
    return Effect.fail(new BadRequest({ message: `A component needs at least one maintenance interval: ${INTERVAL_NAMES.join(", ")}.` }))
  }
  return Effect.succeed(fields)
}

/**
 * Components belong to any gear, imported or custom, in any import mode: their maintenance is
 * the athlete's own. A component is found only under the gear that carries it.
 */
export const GearComponentsHttpLive = HttpApiBuilder.group(WaymarkApi, "gearComponents", (handlers) =>
  Effect.gen(function*() {
    const gear = yield* GearRepo
    const components = yield* GearComponents

    const requireGear = (gearId: string) =>
      Effect.flatMap(gear.exists(gearId), (found) => (found ? Effect.void : Effect.fail(new NotFound({ message: `Gear "${gearId}" not found.` }))))

    const existing = (gearId: string, componentId: string) =>
      Effect.gen(function*() {
        yield* requireGear(gearId)
        const found = yield* components.find(gearId, componentId)
        if (found === null) return yield* new NotFound({ message: `Component "${componentId}" of gear "${gearId}" not found.` })
        return found
      })

    const answer = (gearId: string, componentId: string) => Effect.orDie(existing(gearId, componentId))

    return handlers
      .handle("list", ({ path: { gearId } }) =>
        Effect.gen(function*() {
          yield* requireGear(gearId)
          return listJson({ components: yield* components.list(gearId) })
        }))
      .handleRaw("create", ({ path: { gearId }, request }) =>
        Effect.gen(function*() {
          yield* requireGear(gearId)
          const input = yield* decodeCreate(yield* readJsonObject(request, { onWrongContentType: "unsupportedMediaType" }))
          const today = yield* components.today
          const fields = yield* checkFields({
            name: input.name,
            installedOn: input.installedOn ?? today,
            intervalInMeter: input.intervalInMeter ?? null,
            intervalInSeconds: input.intervalInSeconds ?? null,
            intervalInDays: input.intervalInDays ?? null
          }, today)
          const id = yield* components.create(gearId, fields)
          return created(yield* answer(gearId, id))
        }))
      .handle("get", ({ path: { gearId, componentId } }) => Effect.map(existing(gearId, componentId), componentJson))
      .handleRaw("update", ({ path: { gearId, componentId }, request }) =>
        Effect.gen(function*() {
          const current = yield* existing(gearId, componentId)
          const body = yield* readJsonObject(request, { onWrongContentType: "unsupportedMediaType" })
          if (Object.keys(body).length === 0) {
            return yield* new BadRequest({ message: `The request body must contain at least one of: ${updatableFields.join(", ")}.` })
          }
          const patch = yield* decodeUpdate(body)
          const fields = yield* checkFields({
            name: patch.name ?? current.name,
            installedOn: patch.installedOn ?? current.installedOn,
            intervalInMeter: patch.intervalInMeter !== undefined ? patch.intervalInMeter : current.intervalInMeter,
            intervalInSeconds: patch.intervalInSeconds !== undefined ? patch.intervalInSeconds : current.intervalInSeconds,
            intervalInDays: patch.intervalInDays !== undefined ? patch.intervalInDays : current.intervalInDays
          }, yield* components.today)
          yield* components.update(componentId, fields)
          return componentJson(yield* answer(gearId, componentId))
        }))
      .handle("delete", ({ path: { gearId, componentId } }) =>
        Effect.gen(function*() {
          yield* existing(gearId, componentId)
          yield* components.remove(componentId)
        }))
      .handleRaw("service", ({ path: { gearId, componentId }, request }) =>
        Effect.gen(function*() {
          const current = yield* existing(gearId, componentId)
          const input = yield* decodeService(yield* optionalJsonObject(request))
          const today = yield* components.today
          const on = input.on ?? today
          if (on > today) return yield* new BadRequest({ message: `"on" cannot be in the future (today is ${today}).` })
          if (on < current.installedOn) {
            return yield* new BadRequest({ message: `"on" cannot be before the component was installed (${current.installedOn}).` })
          }
          yield* components.addService(componentId, on, input.note === undefined || input.note === "" ? null : input.note)
          return created(yield* answer(gearId, componentId))
        }))
  })
)
