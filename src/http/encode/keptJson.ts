import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { jsonResponse } from "./jsonResponder.ts"

/**
 * 200 responses of answers a service keeps until the next commit (the same object asked again
 * and again): each answer's JSON is written once, by `encode` (a `jsonEncoder`).
 */
export const keptJson = <A extends object>(encode: (value: A) => string) => {
  const texts = new WeakMap<A, string>()
  return (value: A): HttpServerResponse.HttpServerResponse => {
    let text = texts.get(value)
    if (text === undefined) {
      text = encode(value)
      texts.set(value, text)
    }
    return jsonResponse(text)
  }
}
