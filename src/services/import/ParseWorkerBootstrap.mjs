// Loads the TypeScript worker entry through tsx, when the daemon runs from source (tests, tsx).
// The built daemon (dist/) starts its compiled worker entry directly.
import { workerData } from "node:worker_threads"

const { register } = await import("tsx/esm/api")
register()
await import(workerData.entry)
