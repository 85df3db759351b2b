/**
 * `read` (the database's version, for the direct routes) read at most once per poll phase of
 * the event loop: from the first request answered after the loop polled its connections until
 * the phase ends (the immediates run right after it). Every request answered in that phase was
 * already there when the loop polled (libuv polls again within one phase only after 1,024
 * ready handles at once), so every commit it can follow (one that completed before it was
 * sent) completed before that first read.
 *
 * Under load one poll answers about as many requests as there are busy connections (14 with
 * 16 connections), and asking SQLite (`PRAGMA data_version`, a WAL read lock taken and
 * released: three system calls) was a sixth of the CPU of an answer.
 *
 * Request handlers call it in the poll phase, and the direct routes in the slices that answer
 * their reads (inSlices), among the immediates of the same turn or a later one. Either way every
 * request answered was taken in before the read: `forget`, queued at the read, runs before the
 * next slice, which is queued after it. A request pipelined behind
 * others on its connection is handled without waiting for them (a read pipelined behind a
 * write reads before the write commits), in the app as in the direct routes: pipelining
 * orders the answers, not the commits.
 */
export const oncePerPoll = (read: () => number): () => number => {
  let version: number | undefined
  const forget = () => {
    version = undefined
  }
  return () => {
    if (version === undefined) {
      version = read()
      setImmediate(forget)
    }
    return version
  }
}
