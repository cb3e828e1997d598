// Small helpers for reading Chevrotain CST nodes and turning their offsets into spans.
// Used only by the to-ast*.ts files; nothing outside grammar/ sees a CST.
import type { CstElement, CstNode, IToken } from 'chevrotain'
import type { Span } from '../common/span.js'
import { WeirError } from '../common/errors.js'
import type { Ident, QualifiedName } from './ast.js'
import { unquote } from './lexer.js'
import type { SourceText } from './source.js'
import * as T from './tokens.js'

export type { CstElement, CstNode, IToken }

const NONE: readonly never[] = []

/** All child nodes under `key` (a rule name or label), in source order. */
export function nodes(n: CstNode, key: string): readonly CstNode[] {
  return (n.children[key] as CstNode[] | undefined) ?? NONE
}

export function node(n: CstNode, key: string): CstNode | undefined {
  return (n.children[key] as CstNode[] | undefined)?.[0]
}

/** The child node under `key`, which the grammar guarantees is there. */
export function child(n: CstNode, key: string): CstNode {
  const c = (n.children[key] as CstNode[] | undefined)?.[0]
  if (c === undefined) throw WeirError.internal(`CST node '${n.name}' has no '${key}'`)
  return c
}

export function tokens(n: CstNode, key: string): readonly IToken[] {
  return (n.children[key] as IToken[] | undefined) ?? NONE
}

export function token(n: CstNode, key: string): IToken | undefined {
  return (n.children[key] as IToken[] | undefined)?.[0]
}

export function has(n: CstNode, key: string): boolean {
  return n.children[key] !== undefined
}

/** The chosen alternative of a rule whose alternatives all carry the label 'alt'. */
export function alt(n: CstNode): CstElement {
  const c = n.children['alt']?.[0]
  if (c === undefined) throw WeirError.internal(`CST node '${n.name}' has no alternative`)
  return c
}

export function isToken(e: CstElement): e is IToken {
  return (e as IToken).tokenType !== undefined
}

/** Turns CST offsets into spans; one per parse, holding the source text. */
export class Spans {
  constructor(readonly src: SourceText) {}

  of(n: CstNode): Span {
    const loc = n.location!
    return this.src.span(loc.startOffset, loc.endOffset! + 1)
  }

  ofToken(t: IToken): Span {
    return this.src.span(t.startOffset, t.endOffset! + 1)
  }

  /** From the start of `first` to the end of `last` (nodes or tokens). */
  between(first: CstElement, last: CstElement): Span {
    return this.src.span(startOf(first), endOf(last))
  }

  /** The source text of a node, exactly as written. */
  text(n: CstElement): string {
    return this.src.text.slice(startOf(n), endOf(n))
  }
}

export function startOf(e: CstElement): number {
  return isToken(e) ? e.startOffset : e.location!.startOffset
}

/** Exclusive end offset. */
export function endOf(e: CstElement): number {
  return (isToken(e) ? e.endOffset! : e.location!.endOffset!) + 1
}

// ---------------------------------------------------------------- names

/** The name token under `key` (default: the rule's Name token) → Ident. */
export function ident(n: CstNode, spans: Spans, key = 'Name'): Ident {
  return identFromToken(token(n, key)!, spans)
}

/** Backquoted names are unescaped and keep `quoted: true`; unquoted names keep their case. */
export function identFromToken(t: IToken, spans: Spans): Ident {
  const quoted = t.tokenType === T.QuotedIdentifier
  return { value: quoted ? unquote(t.image) : t.image, quoted, span: spans.ofToken(t) }
}

/** A rule node whose Name tokens are the dotted parts (qualifiedName, nameExpr). */
export function qualifiedName(n: CstNode, spans: Spans): QualifiedName {
  return { parts: tokens(n, 'Name').map(t => identFromToken(t, spans)), span: spans.of(n) }
}

/** All Name tokens of a node (nameList, DESCRIPTOR, EXPLAIN details). */
export function nameList(n: CstNode, spans: Spans): Ident[] {
  return tokens(n, 'Name').map(t => identFromToken(t, spans))
}

export function stringValue(t: IToken): string {
  return unquote(t.image)
}
