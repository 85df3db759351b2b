import { Layer } from "effect"
import { WahooConnectorLive } from "./connectors/wahoo/WahooConnector.ts"
import { wahooConfig } from "./connectors/wahoo/WahooConfig.ts"
import { checkedSettings, runProgram, sayOnConsole } from "./EntryPoint.ts"
import { describeStartupFailure } from "./services/platform/StartupFailure.ts"
import { VERSION } from "./version.ts"

/** Starts the Wahoo connector: the configuration is checked first (every problem at once, exit code 1). */
const config = checkedSettings("waymark-wahoo", wahooConfig)

runProgram(Layer.launch(WahooConnectorLive), {
  title: `waymark Wahoo connector v${VERSION}`,
  say: sayOnConsole("waymark-wahoo"),
  describeFailure: (cause) =>
    describeStartupFailure(cause, {
      port: config.port,
      host: config.host,
      storageDir: config.stateDir,
      watchDir: config.watchDir,
      program: "The Wahoo connector"
    })
})
