import { expect } from "@effect/vitest"

/** The documented error shape: exactly `{error, message}`, with the status of the code. */
export const expectError = (answer: { status: number; json: any }, status: number, code: string) => {
  expect({ status: answer.status, error: answer.json?.error }).toEqual({ status, error: code })
  expect(Object.keys(answer.json).sort()).toEqual(["error", "message"])
  expect(typeof answer.json.message).toBe("string")
  expect(answer.json.message.length).toBeGreaterThan(0)
}
