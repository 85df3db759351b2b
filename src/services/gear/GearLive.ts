import * as Layer from "effect/Layer"
import { GearRepo } from "../activities/GearRepo.ts"
import { GearComponents } from "./GearComponents.ts"

/** The gear's one layer: the gear given to activities, its components, their service records and what is due. */
export const GearLive = Layer.merge(GearRepo.Default, GearComponents.Default)
