import { describe, expect, it } from "@effect/vitest"
import { oncePerPoll } from "../../src/http/oncePerPoll.ts"

/** The version behind the direct routes' kept answers is asked once per poll of the event loop, never for longer. */

const immediate = () => new Promise<void>((resolve) => setImmediate(resolve))

describe("oncePerPoll", () => {
  it("reads once for every call of one phase, and again once the immediates have run", async () => {
    let version = 1
    let reads = 0
    const current = oncePerPoll(() => (reads++, version))
    expect([current(), current(), current()]).toEqual([1, 1, 1])
    expect(reads).toBe(1)
    version = 2
    expect(current()).toBe(1)
    await immediate()
    expect(current()).toBe(2)
    expect(reads).toBe(2)
  })

  it("reads afresh in each later phase, one read for each phase that asks", async () => {
    let version = 0
    let reads = 0
    const current = oncePerPoll(() => (reads++, version))
    for (let phase = 1; phase <= 5; phase++) {
      version = phase
      await immediate()
      expect([current(), current()]).toEqual([phase, phase])
    }
    expect(reads).toBe(5)
  })
})
