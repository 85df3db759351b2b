import type * as YearCalendarModels from "../../../schema/YearCalendarModels.ts"
import type * as GearComponentModels from "../../../schema/GearComponentModels.ts"
import type * as YearMilestoneModels from "../../../schema/YearMilestoneModels.ts"
import type * as YearStreakModels from "../../../schema/YearStreakModels.ts"
import type * as YearModels from "../../../schema/YearInReviewModels.ts"

/** The API's types of the athlete's year and of gear maintenance (type-only: nothing of the schemas is bundled). */
export type CalendarDay = typeof YearCalendarModels.CalendarDay.Type
export type CalendarWeek = typeof YearCalendarModels.CalendarWeek.Type
export type StreakPair = typeof YearStreakModels.StreakPair.Type
export type Milestone = typeof YearMilestoneModels.Milestone.Type
export type YearInReview = typeof YearModels.YearInReview.Type
export type YearTotals = typeof YearModels.YearTotals.Type
export type YearHighlight = typeof YearModels.YearHighlight.Type
export type GearComponent = typeof GearComponentModels.GearComponent.Type
