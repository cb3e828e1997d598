// Flink constructs the grammar does not have, recognized in a statement that failed to parse so the
// error names the construct, points at it and says what to write instead — not "unexpected '('".
import type { IToken } from 'chevrotain'
import { tokenMatcher } from './chevrotain.js'
import { WeirError } from '../common/errors.js'
import type { SourceText } from './source.js'
import * as T from './tokens.js'

interface Construct {
  /** Where the construct starts at token i of `tokens`, and how many tokens name it; 0 if not. */
  readonly match: (tokens: readonly IToken[], i: number) => number
  readonly message: string
  readonly help: string
}

const word = (t: IToken | undefined, w: string): boolean => t !== undefined && t.image.toUpperCase() === w

const CONSTRUCTS: readonly Construct[] = [
  {
    match: (ts, i) => (word(ts[i], 'MATCH_RECOGNIZE') && ts[i + 1]?.tokenType === T.LParen ? 1 : 0),
    message: 'MATCH_RECOGNIZE is not supported',
    help: 'Weir has no pattern matching yet; to count or aggregate events per key over time, use a window aggregate: ' +
      "SELECT k, window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY k, window_start, window_end",
  },
  {
    match: (ts, i) => (word(ts[i], 'OFFSET') && ts[i + 1] !== undefined && tokenMatcher(ts[i + 1]!, T.NumberLit) ? 2 : 0),
    message: 'OFFSET is not supported',
    help: "a stream has no first rows to skip; remove OFFSET (to look at a few rows, bound the source: datagen 'number-of-rows', nexmark 'nexmark.events.num')",
  },
]

/**
 * The error for a construct Weir does not have, found among the tokens of the failed statement
 * (`from` up to and including the token at `upTo`, where parsing stopped), or undefined.
 */
export function unsupportedConstruct(tokens: readonly IToken[], from: number, upTo: number, src: SourceText): WeirError | undefined {
  for (let i = from; i <= upTo && i < tokens.length; i++) {
    for (const c of CONSTRUCTS) {
      const n = c.match(tokens, i)
      if (n === 0) continue
      const last = tokens[i + n - 1]!
      return WeirError.unsupported(c.message, { span: src.span(tokens[i]!.startOffset, last.endOffset! + 1), help: c.help })
    }
  }
  return undefined
}
