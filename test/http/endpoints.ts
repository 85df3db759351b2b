/** Every declared endpoint of /api/v1, with a concrete path. */
export const ENDPOINTS = [
  { method: "GET", path: "/api/v1/status" },
  { method: "POST", path: "/api/v1/activity/upload" },
  { method: "GET", path: "/api/v1/activities" },
  { method: "GET", path: "/api/v1/activities/activity-x" },
  { method: "PATCH", path: "/api/v1/activities/activity-x" },
  { method: "DELETE", path: "/api/v1/activities/activity-x" },
  { method: "GET", path: "/api/v1/activities/activity-x/gpx" },
  { method: "POST", path: "/api/v1/activities/activity-x/images" },
  { method: "DELETE", path: "/api/v1/activities/activity-x/images/activityImage-x" },
  { method: "GET", path: "/api/v1/file-imports" },
  { method: "GET", path: "/api/v1/gear" },
  { method: "GET", path: "/api/v1/athlete/weights" },
  { method: "POST", path: "/api/v1/athlete/weights" },
  { method: "DELETE", path: "/api/v1/athlete/weights/2024-01-01" }
] as const
