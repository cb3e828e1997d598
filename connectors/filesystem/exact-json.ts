// JSON.parse for values that hold numbers inside objects and arrays (ROW, ARRAY and MAP columns):
// JSON.parse makes every number a double, so a BIGINT beyond 2^53 or a DECIMAL of more than 15
// digits would be rounded before any converter sees it. Number tokens of more than 15 digits are
// passed on as their text instead (quoted before parsing; every converter reads exact numbers from
// text), the rest as JSON.parse gives them. Top-level columns get their exact text from the line.
const TOKENS = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g

function digits(token: string): number {
  let n = 0
  for (let i = 0; i < token.length; i++) {
    const c = token.charCodeAt(i)
    if (c >= 48 && c <= 57) n++
    else if (c === 101 || c === 69) break // the exponent's digits are not significant
  }
  return n
}

/** JSON.parse(text), with numbers of more than 15 digits as their source text. */
export function parseKeepingDigits(text: string): unknown {
  return JSON.parse(text.replace(TOKENS, t => (t.charCodeAt(0) !== 34 && digits(t) > 15 ? `"${t}"` : t)))
}
