import type * as CalendarModels from "../../../schema/CalendarModels.ts"
import type * as GearComponentModels from "../../../schema/GearComponentModels.ts"
import type * as MilestoneModels from "../../../schema/MilestoneModels.ts"
import type * as StreakModels from "../../../schema/StreakModels.ts"
import type * as YearModels from "../../../schema/YearInReviewModels.ts"

/** The API's types of the athlete's year and of gear maintenance (type-only: nothing of the schemas is bundled). */
export type Calendar = typeof CalendarModels.Calendar.Type
export type CalendarDay = typeof CalendarModels.CalendarDay.Type
export type CalendarWeek = typeof CalendarModels.CalendarWeek.Type
export type Streaks = typeof StreakModels.Streaks.Type
export type StreakPair = typeof StreakModels.StreakPair.Type
export type Milestone = typeof MilestoneModels.Milestone.Type
export type YearInReview = typeof YearModels.YearInReview.Type
export type YearTotals = typeof YearModels.YearTotals.Type
export type YearHighlight = typeof YearModels.YearHighlight.Type
export type GearComponent = typeof GearComponentModels.GearComponent.Type
