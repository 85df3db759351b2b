import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import { createPrivateKey, X509Certificate } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import * as selfsigned from "selfsigned"
import { writeFileAtomic } from "../kit/JsonFile.ts"

/**
 * The dashboard's TLS certificate: self-signed, generated on the first start into
 * `STATE_DIR/cert.pem` and `STATE_DIR/key.pem` (the key readable by the owner only) and
 * reused after restarts, so that a browser exception granted once keeps working. A pair
 * that no longer fits (expired within a day, key not matching, unreadable) is replaced.
 */

export const CERT_FILE = "cert.pem"
export const KEY_FILE = "key.pem"
const VALIDITY_DAYS = 825
const DAY = 86_400_000

export class CertificateError extends Data.TaggedError("CertificateError")<{
  readonly message: string
  readonly cause?: unknown
}> {}

export interface Certificate {
  readonly cert: string
  readonly key: string
  readonly certFile: string
  readonly keyFile: string
  /** SHA-256 fingerprint, as browsers show it. */
  readonly fingerprint: string
  readonly generated: boolean
}

const isIp = (host: string) => /^[\d.]+$/.test(host) || host.includes(":")

/** Why the stored pair cannot be used, or undefined when it can. */
const unusable = (cert: string, key: string, now: number): string | undefined => {
  try {
    const x509 = new X509Certificate(cert)
    if (Date.parse(x509.validTo) - now < DAY) return `it expires on ${x509.validTo}`
    if (!x509.checkPrivateKey(createPrivateKey(key))) return "the key does not match it"
    return undefined
  } catch (cause) {
    return `it cannot be read (${cause instanceof Error ? cause.message : String(cause)})`
  }
}

/**
 * The certificate in `stateDir`, generated when missing or unusable. `hosts` are the names
 * it is valid for besides localhost, 127.0.0.1 and ::1 (e.g. the host of the redirect URI).
 */
export const loadOrCreateCertificate = (stateDir: string, hosts: ReadonlyArray<string> = []) =>
  Effect.gen(function*() {
    const certFile = path.join(stateDir, CERT_FILE)
    const keyFile = path.join(stateDir, KEY_FILE)
    const now = Date.now()
    if (fs.existsSync(certFile) && fs.existsSync(keyFile)) {
      const cert = fs.readFileSync(certFile, "utf8")
      const key = fs.readFileSync(keyFile, "utf8")
      const problem = unusable(cert, key, now)
      if (problem === undefined) {
        return { cert, key, certFile, keyFile, fingerprint: new X509Certificate(cert).fingerprint256, generated: false } satisfies Certificate
      }
      yield* Effect.logWarning(`replacing the certificate in ${certFile}: ${problem}`)
    }
    const names = [...new Set(["localhost", "127.0.0.1", "::1", ...hosts.filter((h) => h !== "")])]
    const pems = yield* Effect.tryPromise({
      try: () =>
        selfsigned.generate([{ name: "commonName", value: "localhost" }], {
          keySize: 2048,
          algorithm: "sha256",
          notBeforeDate: new Date(now - 60_000),
          notAfterDate: new Date(now + VALIDITY_DAYS * DAY),
          extensions: [
            { name: "basicConstraints", cA: false },
            { name: "keyUsage", digitalSignature: true, keyEncipherment: true },
            { name: "extKeyUsage", serverAuth: true },
            {
              name: "subjectAltName",
              altNames: names.map((n) => (isIp(n) ? { type: 7 as const, ip: n } : { type: 2 as const, value: n }))
            }
          ]
        }),
      catch: (cause) => new CertificateError({ message: `could not generate a certificate: ${String(cause)}`, cause })
    })
    yield* Effect.try({
      try: () => {
        fs.mkdirSync(stateDir, { recursive: true, mode: 0o700 })
        writeFileAtomic(keyFile, pems.private, 0o600)
        writeFileAtomic(certFile, pems.cert, 0o644)
      },
      catch: (cause) => new CertificateError({ message: `could not store the certificate in ${stateDir}: ${String(cause)}`, cause })
    })
    const fingerprint = new X509Certificate(pems.cert).fingerprint256
    yield* Effect.logInfo(`generated a self-signed certificate in ${certFile} (SHA-256 ${fingerprint})`)
    return { cert: pems.cert, key: pems.private, certFile, keyFile, fingerprint, generated: true } satisfies Certificate
  })
