// Loads a TypeScript worker entry through tsx (the daemon runs from source with tsx).
import { workerData } from "node:worker_threads"

if (workerData.entry.endsWith(".ts")) {
  const { register } = await import("tsx/esm/api")
  register()
}
await import(workerData.entry)
