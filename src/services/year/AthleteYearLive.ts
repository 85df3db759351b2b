import { AthleteYear } from "./AthleteYear.ts"

/** The athlete's year's one layer: calendar, streaks, milestones and the year in review, derived from the activities on each read. */
export const AthleteYearLive = AthleteYear.Default
