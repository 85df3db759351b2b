import { Effect } from "effect"
import * as net from "node:net"

/** A loopback port that was free a moment ago. */
export const freePort: Effect.Effect<number> = Effect.async<number>((resume) => {
  const server = net.createServer()
  server.unref()
  server.once("error", (e) => resume(Effect.die(e)))
  server.listen(0, "127.0.0.1", () => {
    const address = server.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    server.close(() => resume(Effect.succeed(port)))
  })
})
