// The regular join: INNER, LEFT, RIGHT and FULL OUTER on equal keys, over insert-only or updating
// inputs, each side kept in keyed state (join-side.ts) under its join key. Rows are processed one by
// one, in order, against state the runtime has made resident for the whole batch.
//
// The changelog is exact. A joined pair carries the kind of the row that made it (+I/+U for an
// addition, -U/-D for a retraction). An outer side's row that matches nothing is emitted NULL-padded
// (+I); when its first match arrives the padded row is retracted (-D) before the joined rows, and
// when its last match goes it is emitted again (+I) after their retractions. A row whose join key
// holds a NULL matches nothing and is not stored: an outer side emits (or retracts) it padded.
import { BatchBuilder, RowKind, type Batch, type Row } from '../../core/batch.js'
import type { JoinSpec } from '../../core/job-graph.js'
import type { KeyRef, Namespace } from '../../core/keyed-state.js'
import type { Operator, OperatorContext, OperatorDescriptor } from '../../core/operator.js'
import { compilePredicate } from '../../expr/index.js'
import { joinSide, type JoinSideState } from './join-side.js'

export class RegularJoinOperator implements Operator {
  private readonly sides: readonly [JoinSideState, JoinSideState]
  private readonly residual: ((row: Row) => boolean) | null
  private readonly out = new BatchBuilder()
  private ctx!: OperatorContext
  /** The keys stateRequests named so far (reused). */
  private readonly requested = new Set<string>()

  /** @param hash the hash a side without a unique key stores rows under (tests pass one that collides) */
  constructor(readonly spec: JoinSpec, hash?: (row: Row) => number) {
    this.sides = [joinSide(spec.left, 'left', hash), joinSide(spec.right, 'right', hash)]
    this.residual = spec.residual === undefined ? null : compilePredicate(spec.residual)
  }

  /**
   * For a disk backend: each distinct join key of the batch once (every row of a key touches the same
   * two sides' state), and no NULL key (its rows touch no state). Rather than the runtime's request per
   * row: a batch of q20's bids names ~100 auctions in 1,024 rows.
   */
  stateRequests(batch: Batch, input: number, add: (key: KeyRef, namespace: Namespace | undefined, appendOnly?: readonly string[]) => void): void {
    const keys = this.ctx.keysOf(batch.rows, input)
    // This input's side, if it is kept as a list, is only appended to (a disk backend need not read it).
    const appended = this.sides[input]!.appendedState
    const seen = this.requested
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!
      if (seen.has(key.encoded) || hasNull(key.values)) continue
      seen.add(key.encoded)
      add(key, '', appended)
    }
    seen.clear()
  }

  open(ctx: OperatorContext): void {
    this.ctx = ctx
    for (const side of this.sides) side.open(ctx.state)
  }

  processBatch(batch: Batch, input: number): void {
    const rows = batch.rows
    const n = rows.length
    if (n === 0) return
    const keys = this.ctx.keysOf(rows, input)
    const state = this.ctx.state
    const kinds = batch.kinds
    for (let i = 0; i < n; i++) {
      const row = rows[i]!
      const kind = (kinds === null ? RowKind.INSERT : kinds[i]!) as RowKind
      const key = keys[i]!
      if (hasNull(key.values)) {
        if (this.sides[input]!.outer) this.out.push(this.padded(row, input), isRetraction(kind) ? RowKind.DELETE : RowKind.INSERT)
        continue
      }
      state.setCurrentKey(key)
      if (isRetraction(kind)) this.retract(row, kind, input)
      else this.insert(row, kind, input)
    }
    this.sides[input]!.endBatch()
    const out = this.out.take()
    if (out !== null) this.ctx.output.emit(out)
  }

  private insert(row: Row, kind: RowKind, input: number): void {
    const me = this.sides[input]!
    const other = this.sides[1 - input]!
    const out = this.out
    let matched = 0
    const n = other.scan()
    const records = other.records
    for (let j = 0; j < n; j++) {
      const r = records[j]!
      const joined = this.joined(row, r.row, input)
      if (joined === null) continue
      matched += r.count
      if (other.outer) {
        // The other row stops being unmatched: its padded rows go before the pairs come.
        if (r.matches === 0) { for (let c = 0; c < r.count; c++) out.push(this.padded(r.row, 1 - input), RowKind.DELETE) }
        other.setMatches(r, r.matches + 1)
      }
      for (let c = 0; c < r.count; c++) out.push(joined, kind)
    }
    if (me.outer && matched === 0) out.push(this.padded(row, input), RowKind.INSERT)
    me.insert(row, me.outer ? matched : 0)
  }

  private retract(row: Row, kind: RowKind, input: number): void {
    const me = this.sides[input]!
    const other = this.sides[1 - input]!
    // A row state does not hold (its state expired) has no results left to retract that state could name.
    if (!me.retract(row)) return
    const out = this.out
    let matched = 0
    const n = other.scan()
    const records = other.records
    for (let j = 0; j < n; j++) {
      const r = records[j]!
      const joined = this.joined(row, r.row, input)
      if (joined === null) continue
      matched += r.count
      for (let c = 0; c < r.count; c++) out.push(joined, kind)
      if (other.outer) {
        const left = Math.max(0, r.matches - 1)
        other.setMatches(r, left)
        // Its last match went: the other row is unmatched again.
        if (left === 0) { for (let c = 0; c < r.count; c++) out.push(this.padded(r.row, 1 - input), RowKind.INSERT) }
      }
    }
    if (me.outer && matched === 0) out.push(this.padded(row, input), RowKind.DELETE)
  }

  /** The output row of `row` (from `input`) with `other`, or null when the residual condition rejects it. */
  private joined(row: Row, other: Row, input: number): Row | null {
    const joined = input === 0 ? row.concat(other) : other.concat(row)
    return this.residual === null || this.residual(joined) ? joined : null
  }

  /** `row` of `input` with NULLs for the other side's columns. */
  private padded(row: Row, input: number): Row {
    const nulls = new Array<unknown>(this.sides[1 - input]!.width).fill(null)
    return input === 0 ? row.concat(nulls) : nulls.concat(row)
  }
}

function isRetraction(kind: number): boolean {
  return kind === RowKind.UPDATE_BEFORE || kind === RowKind.DELETE
}

function hasNull(values: readonly unknown[]): boolean {
  for (let i = 0; i < values.length; i++) if (values[i] === null || values[i] === undefined) return true
  return false
}

/** Keyed by the join key on both inputs; a side with a TTL is swept so its state stops growing. */
export const regularJoin: OperatorDescriptor<JoinSpec> = {
  traits: spec => ({ keyedState: true, input: 'batch', ttlSweep: spec.left.ttlMs > 0 || spec.right.ttlMs > 0, timers: [] }),
  create: spec => new RegularJoinOperator(spec),
}
