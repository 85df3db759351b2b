/** The part of autocannon's programmatic API the benchmarks use (the package ships no types). */
declare module "autocannon" {
  interface Histogram {
    readonly average: number
    readonly p50: number
    readonly p99: number
    readonly max: number
  }
  interface Result {
    readonly requests: Histogram & { readonly sent: number }
    readonly latency: Histogram
    readonly errors: number
    readonly timeouts: number
    readonly non2xx: number
    readonly "2xx": number
  }
  interface Options {
    readonly url: string
    readonly connections?: number
    readonly duration?: number
    readonly headers?: Record<string, string>
    /** worker threads that make the requests (none: the caller's thread) */
    readonly workers?: number
  }
  function autocannon(options: Options): Promise<Result>
  export default autocannon
}
