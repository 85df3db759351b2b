/** A sport type in words, lowercased: "MountainBikeRide" -> "mountain bike ride", "HighIntensityIntervalTraining" -> "high intensity interval training". */
export const sportTypeLabel = (sportType: string): string =>
  sportType.replace(/([a-z])([A-Z])/g, "$1 $2").replace(/([A-Z])([A-Z][a-z])/g, "$1 $2").toLowerCase()
