/** RFC 4180 rows: quoted fields may hold commas, doubled quotes and line breaks. */
export const csvRows = (text: string): Array<Array<string>> => {
  const rows: Array<Array<string>> = []
  let row: Array<string> = []
  let field = ""
  let quoted = false
  const input = text.startsWith("\uFEFF") ? text.slice(1) : text
  for (let i = 0; i < input.length; i++) {
    const c = input[i]!
    if (quoted) {
      if (c === "\"" && input[i + 1] === "\"") (field += "\"", i++)
      else if (c === "\"") quoted = false
      else field += c
    } else if (c === "\"") quoted = true
    else if (c === ",") (row.push(field), field = "")
    else if (c === "\n" || c === "\r") {
      if (c === "\r" && input[i + 1] === "\n") i++
      row.push(field), rows.push(row), row = [], field = ""
    } else field += c
  }
  if (field !== "" || row.length > 0) (row.push(field), rows.push(row))
  return rows.filter((r) => !(r.length === 1 && r[0] === ""))
}
