/**
 * What is wrong with the encoding of a request's URL, in words for the client; null when it is
 * well formed. The URL is what the client sent: every byte outside printable ASCII must come
 * percent-encoded, and the percent-encoded bytes of the path and of each query name and value
 * must decode as UTF-8 (`%ff%fe` does not, nor does `%zz` decode at all). A URL that fails here
 * would reach the router and the parameters' schemas as something else than the client meant
 * (a path that matches no route, a value with replacement characters), so it is refused whole,
 * on every route, before anything reads it.
 */
export const urlEncodingProblem = (url: string): string | null => {
  for (let i = 0; i < url.length; i++) {
    const code = url.charCodeAt(i)
    if (code <= 0x20 || code >= 0x7f) {
      return "The URL is not valid: it holds a byte that is not percent-encoded (send every byte outside printable ASCII as %XX)."
    }
  }
  if (!url.includes("%")) return null
  const question = url.indexOf("?")
  const parts = question === -1 ? [url] : [url.slice(0, question), ...url.slice(question + 1).split(/[&=]/)]
  for (const part of parts) {
    if (!part.includes("%")) continue
    try {
      decodeURIComponent(part.replaceAll("+", " "))
    } catch {
      return "The URL is not valid: its percent-encoded bytes are not UTF-8 text (a % must be followed by two hexadecimal digits, and the bytes must form UTF-8)."
    }
  }
  return null
}
