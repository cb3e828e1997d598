// The join of every row with a scalar subquery's single row (all rows on one key, one subtask):
// its left rows are kept as row → count, the subquery's rows as row → count. A left row is emitted
// with the subquery's value (NULL while the subquery has no row); when that row changes, every
// left row's output is retracted (-U) and emitted again with the new value (+U). A -U/+U pair from
// the subquery (a global aggregate's update) becomes one such change. A second row fails the job
// naming the subquery, as SQL requires of a scalar subquery.
//
// A correlated subquery is decorrelated into rows keyed by its correlation columns (an aggregate
// grouped by them): both inputs are hashed by those keys and all of the above holds per key. A left
// row whose key holds a NULL equals no key (`p.k = o.k` is not true): it gets the empty row and is
// not stored; a right row with a NULL key is dropped. While a key has no row, a left row gets the
// `empty` row: NULLs, or what the subquery gives over no rows (COUNT's 0).
import { BatchBuilder, RowKind, type Batch, type Row } from '../../core/batch.js'
import type { ScalarJoinSpec } from '../../core/subquery-specs.js'
import { WeirError } from '../../common/errors.js'
import type { KeyRef } from '../../core/keyed-state.js'
import type { Operator, OperatorContext, OperatorDescriptor } from '../../core/operator.js'
import { CountedRows } from './counted-rows.js'
import { hasNull, isRetraction } from './row-kinds.js'

export class ScalarJoinOperator implements Operator {
  private readonly left: CountedRows
  private readonly right: CountedRows
  private readonly nulls: Row
  private readonly out = new BatchBuilder()
  private ctx!: OperatorContext
  /** The subquery's row retracted by a -U whose +U may follow: the left rows still show it. */
  private pending: Row | null = null
  /** The key `pending` is under (a correlated subquery's -U and +U come under one key). */
  private pendingKey: KeyRef | null = null

  constructor(readonly spec: ScalarJoinSpec) {
    this.left = new CountedRows('left', spec.ttlMs)
    this.right = new CountedRows('right', spec.ttlMs)
    this.nulls = spec.empty === undefined ? new Array<unknown>(spec.rightWidth).fill(null) : [...spec.empty]
  }

  open(ctx: OperatorContext): void {
    this.ctx = ctx
    this.left.open(ctx.state)
    this.right.open(ctx.state)
  }

  processBatch(batch: Batch, input: number): void {
    const rows = batch.rows
    if (rows.length === 0) return
    const keys = this.ctx.keysOf(rows, input)
    const kinds = batch.kinds
    const keyed = this.spec.keyed
    for (let i = 0; i < rows.length; i++) {
      const kind = (kinds === null ? RowKind.INSERT : kinds[i]!) as RowKind
      if (keyed && hasNull(keys[i]!.values)) {
        // Equal to no key: the left row keeps the empty row for good.
        if (input === 0) this.out.push(rows[i]!.concat(this.nulls), kind)
        continue
      }
      // A held-back -U whose +U does not follow under its key: settle it there first.
      if (this.pendingKey !== null && this.pendingKey.encoded !== keys[i]!.encoded) this.settle()
      this.ctx.state.setCurrentKey(keys[i]!)
      if (input === 0) this.leftRow(rows[i]!, kind)
      else this.rightRow(rows[i]!, kind, keys[i]!)
    }
    if (input === 1) this.settle()
    const out = this.out.take()
    if (out !== null) this.ctx.output.emit(out)
  }

  private leftRow(row: Row, kind: RowKind): void {
    if (isRetraction(kind)) {
      if (!this.left.retract(row)) return
    } else this.left.add(row)
    this.out.push(row.concat(this.current() ?? this.nulls), kind)
  }

  private rightRow(row: Row, kind: RowKind, key: KeyRef): void {
    if (isRetraction(kind)) {
      this.settle()
      const shown = this.current()
      if (!this.right.retract(row)) return
      // Hold the change back: the +U that usually follows makes it one update of every left row.
      if (kind === RowKind.UPDATE_BEFORE) {
        this.pending = shown
        this.pendingKey = key
      } else this.changeTo(shown, this.current())
      return
    }
    const shown = this.pending ?? this.current()
    this.pending = null
    this.pendingKey = null
    this.right.add(row)
    this.changeTo(shown, this.current())
  }

  /** Emits what a held-back -U changed (when no +U came for it). */
  private settle(): void {
    if (this.pending === null) return
    const was = this.pending
    this.pending = null
    this.ctx.state.setCurrentKey(this.pendingKey!)
    this.pendingKey = null
    this.changeTo(was, this.current())
  }

  /** The subquery's row; fails when it has more than one. */
  private current(): Row | null {
    let found: Row | null = null
    for (const [row, count] of this.right.entries()) {
      if (found !== null || count > 1) {
        throw WeirError.execution(`${this.spec.label} returned more than one row`, {
          help: 'a scalar subquery must return at most one row: aggregate its result (e.g. MAX(…), a global COUNT(*)), or filter it down to one row',
        })
      }
      found = row
    }
    return found
  }

  private changeTo(was: Row | null, now: Row | null): void {
    if (was === now || (was !== null && now !== null && sameRow(was, now))) return
    const before = was ?? this.nulls, after = now ?? this.nulls
    for (const [row, count] of this.left.entries()) {
      for (let c = 0; c < count; c++) {
        this.out.push(row.concat(before), RowKind.UPDATE_BEFORE)
        this.out.push(row.concat(after), RowKind.UPDATE_AFTER)
      }
    }
  }
}

function sameRow(a: Row, b: Row): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i])
}

/** All rows on one key: the single exchange sends both inputs to one subtask. */
export const scalarJoin: OperatorDescriptor<ScalarJoinSpec> = {
  traits: spec => ({ keyedState: true, input: 'batch', ttlSweep: spec.ttlMs > 0, timers: [] }),
  create: spec => new ScalarJoinOperator(spec),
}
