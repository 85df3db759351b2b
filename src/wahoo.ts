import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Cause, ConfigError, Effect, Layer } from "effect"
import { WahooConnectorLive } from "./connectors/wahoo/WahooConnector.ts"
import { wahooConfig } from "./connectors/wahoo/WahooConfig.ts"
import { configProblems } from "./services/platform/Settings.ts"

/** Starts the Wahoo connector: the configuration is checked first (every problem at once, exit code 1). */
const validated = Effect.runSync(Effect.either(wahooConfig))
if (validated._tag === "Left") {
  const problems = ConfigError.isConfigError(validated.left) ? configProblems(validated.left) : [String(validated.left)]
  process.stderr.write(`waymark-wahoo: invalid configuration (${problems.length} problem${problems.length === 1 ? "" : "s"}):\n`)
  for (const problem of problems) process.stderr.write(`  - ${problem}\n`)
  process.exit(1)
}
Layer.launch(WahooConnectorLive).pipe(
  Effect.tapErrorCause((cause) => Effect.logFatal("the Wahoo connector stopped", Cause.pretty(cause))),
  NodeRuntime.runMain({ disablePrettyLogger: true })
)
