import { Logger } from "effect"

/** Every message logged where `layer` is provided, joined into one line each, in `logged`. */
export const loggedMessages = () => {
  const logged: Array<string> = []
  const collect = Logger.make(({ message }) => {
    logged.push((Array.isArray(message) ? message : [message]).join(" "))
  })
  return { logged, layer: Logger.replace(Logger.defaultLogger, collect) }
}
