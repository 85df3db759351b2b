import { runWahoo } from "./runtime/WahooProgram.ts"

/**
 * Entry of the Wahoo connector: `node dist/wahoo.js` runs it until stopped (SIGTERM or
 * SIGINT, exit code 0); `help` or `--help` prints its usage. Started as every Waymark program
 * is (runtime/EntryPoint): the configuration checked first (every problem at once, exit code
 * 1), a failed start said in one sentence (a busy port named with PORT, exit code 1), an
 * unknown argument a usage error (exit code 2).
 */
runWahoo()
