import * as Scheduler from "effect/Scheduler"

/** Queued tasks past which the ones done are dropped from the front of the queue. */
const COMPACT_AFTER = 1024

/**
 * Runs the tasks given to it in order, in slices of at most `sliceMillis` of the event loop
 * each (one slice per turn, among the immediates), the loop polling its connections between two
 * slices. A task is never cut: a slice ends after the task that passes its time.
 *
 * With a thousand connections reading at once, the loop's poll phase would otherwise answer
 * every request ready (each a read and a write to its socket) before it polls again: a request
 * that arrives meanwhile (a probe) waits for them all, a fifth of a second on a busy machine.
 * In slices, the poll phase only takes the requests in and queues their answers, and a probe,
 * answered where it is taken in, waits for one slice and the taking in of the others.
 */
export const inSlices = (sliceMillis: number) => {
  let queue: Array<(() => void) | undefined> = []
  let next = 0
  let scheduled = false
  const slice = () => {
    const until = performance.now() + sliceMillis
    while (next < queue.length) {
      const task = queue[next]!
      queue[next++] = undefined
      task()
      if (performance.now() >= until) break
    }
    if (next < queue.length) {
      if (next >= COMPACT_AFTER) {
        queue = queue.slice(next)
        next = 0
      }
      setImmediate(slice)
    } else {
      queue = []
      next = 0
      scheduled = false
    }
  }
  return (task: () => void): void => {
    queue.push(task)
    if (!scheduled) {
      scheduled = true
      setImmediate(slice)
    }
  }
}

/**
 * A fiber scheduler over `inSlices`: the fibers it runs take their steps in slices of at most
 * `sliceMillis` of the event loop, the loop polling its connections between two slices.
 *
 * The default scheduler runs ready fibers from microtask to microtask for up to 2,048 turns
 * before it lets the loop poll: with two hundred uploads arriving at once, each a fiber whose
 * next step is always ready (a part of its body read, its file written, its row inserted), a
 * probe waited half a second to be read. Each step is a task; a task is never cut, so a slice ends
 * within a step of its time.
 */
export const slicedScheduler = (sliceMillis: number): Scheduler.Scheduler => Scheduler.make(inSlices(sliceMillis))
