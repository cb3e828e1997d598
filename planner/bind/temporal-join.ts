// Temporal joins: `FROM o [LEFT] JOIN v FOR SYSTEM_TIME AS OF o.ts ON o.k = v.k`. The right side is
// a versioned table — one with a primary key (and, for event time, a watermark), or a view that
// deduplicates an append-only table keeping the last row per key by its rowtime (versioned-view.ts):
// each probe row of the left joins the version of its key valid at its time. The condition must
// equate every primary key column with the probe side; the join is keyed by the primary key, and the
// rest of the condition is tested against the version found.
import type * as ast from '../../grammar/ast.js'
import type { Span } from '../../common/span.js'
import type { Field } from '../../common/types.js'
import { formatType, isIntegral, sameType, timeAttrOf, withNullable, withoutTimeAttr } from '../../common/types.js'
import { WeirError } from '../../common/errors.js'
import type { Rex } from '../../core/rex.js'
import { inputRef, remapInputs } from '../../core/rex.js'
import { castTo, commonType, resolveCall } from '../../expr/index.js'
import type { LogicalPlan } from '../logical/nodes.js'
import { optimize } from '../rules/index.js'
import { uniqueKeyOf } from '../unique-keys.js'
import { bindExpr } from './expr-binder.js'
import type { JoinInputs } from './join-binder.js'
import { equiPair, withKeyColumns } from './regular-join.js'
import { viewVersions } from './versioned-view.js'

/** The versioned side of a temporal join: a table written `v FOR SYSTEM_TIME AS OF …` on the right of a JOIN. */
export function isTemporal(join: ast.Join): boolean {
  return join.right.kind === 'TableRef' && join.right.asOf !== undefined
}

/** FOR SYSTEM_TIME AS OF anywhere but on the right side of a JOIN. */
export function misplacedAsOf(span: Span): WeirError {
  return WeirError.plan('FOR SYSTEM_TIME AS OF belongs on the right side of a JOIN (the versioned table of a temporal join)', {
    span,
    help: 'write FROM probe [LEFT] JOIN versioned FOR SYSTEM_TIME AS OF probe.time_column ON probe.k = versioned.k',
  })
}

export function temporalJoin(j: JoinInputs): LogicalPlan {
  const ref = j.join.right as ast.TableRef
  const asOf = ref.asOf!
  const table = ref.name.parts.at(-1)!.value
  if (j.join.joinType !== 'INNER' && j.join.joinType !== 'LEFT') {
    throw WeirError.unsupported(`a temporal join is INNER or LEFT, not ${j.join.joinType === 'CROSS' ? 'a comma join' : j.join.joinType}`, {
      span: j.span,
      help: 'write JOIN or LEFT JOIN … FOR SYSTEM_TIME AS OF … ON …',
    })
  }
  const lw = j.left.plan.fields.length
  const leftTime = probeTime(asOf, j)
  const timeDomain = timeAttrOf(j.left.plan.fields[leftTime]!.type) === 'rowtime' ? 'event' : 'processing'
  const isTable = j.right.plan.kind === 'Scan' && j.right.plan.table.name.toLowerCase() === table.toLowerCase()
  // A view's ROW_NUMBER() filter becomes a Deduplicate here, as it would in the whole plan.
  const optimized = isTable ? j.right.plan : optimize(j.right.plan)
  const versions = timeDomain === 'event' && !isTable ? viewVersions(optimized, table, ref.name.span) : undefined
  // Processing time joins the view's current row per key: its deduplication stays, and keys it.
  const right = versions?.plan ?? optimized
  const pk = versions?.keys ?? uniqueKeyOf(right)
  if (pk === undefined || pk.length === 0) {
    throw WeirError.plan(`'${table}' has no PRIMARY KEY, so it is not a versioned table: a temporal join looks up one version per key`, {
      span: ref.name.span,
      help: isTable ?
        `declare PRIMARY KEY (…) NOT ENFORCED on '${table}' (a debezium-json table's key), or use a regular JOIN without FOR SYSTEM_TIME AS OF` :
        `a view is versioned when it keeps the last row per key: SELECT … FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY <key> ORDER BY <rowtime> DESC) AS rn FROM <table>) WHERE rn = 1`,
    })
  }
  const rightTime = versions?.time ?? (timeDomain === 'event' ? right.fields.findIndex(f => timeAttrOf(f.type) === 'rowtime') : -1)
  if (timeDomain === 'event' && rightTime < 0) {
    throw WeirError.plan(`'${table}' has no watermark, so its versions have no event time to be looked up AS OF`, {
      span: ref.name.span,
      help: isTable ?
        `declare WATERMARK FOR <time column> AS … on '${table}', or join on processing time: AS OF a PROCTIME() column of the probe side` :
        `select in '${table}' a rowtime column of the table it reads (one declared with WATERMARK FOR), or join on processing time: AS OF a PROCTIME() column of the probe side`,
    })
  }
  // Each primary key column equated with the probe side becomes the key; everything else is residual.
  const keyOf = new Map<number, Rex>()
  const residual: Rex[] = []
  for (const c of j.conjuncts) {
    const pair = equiPair(c, lw)
    const col = pair?.right.kind === 'Input' ? pair.right.index : -1
    if (pair === undefined || !pk.includes(col) || keyOf.has(col)) residual.push(c)
    else keyOf.set(col, castKey(pair.left, right.fields[col]!, j.span))
  }
  const missing = pk.filter(c => !keyOf.has(c))
  if (missing.length > 0) {
    const names = (cols: readonly number[]) => cols.map(c => right.fields[c]!.name).join(', ')
    const key = versions === undefined ? 'primary key' : 'PARTITION BY columns'
    throw WeirError.plan(
      `the join condition does not cover the ${key} of '${table}' (${names(pk)}): ${names(missing)} ${
        missing.length > 1 ? 'are' : 'is'
      } not equated with the probe side`,
      { span: j.join.on?.span ?? j.span, help: `add ${missing.map(c => `o.<column> = ${table}.${right.fields[c]!.name}`).join(' AND ')} to ON` },
    )
  }
  const left = withKeyColumns(j.left.plan, pk.map(c => keyOf.get(c)!))
  const lx = left.plan.fields.length - lw
  const shifted = residual.map(r => remapInputs(r, i => (i < lw ? i : i + lx)))
  // The probe's columns keep their time attributes: the join emits each row once the watermark passes it.
  const fields: Field[] = [...left.plan.fields,
    ...right.fields.map(f => ({ name: f.name, type: withoutTimeAttr(j.join.joinType === 'LEFT' ? withNullable(f.type, true) : f.type) }))]
  const node: LogicalPlan = {
    kind: 'TemporalJoin',
    joinType: j.join.joinType,
    timeDomain,
    left: left.plan,
    right,
    leftKeys: left.keys,
    rightKeys: pk,
    leftTime,
    rightTime,
    residual: shifted.length > 0 ? shifted.reduce((a, b) => resolveCall('AND', [a, b])) : undefined,
    ...(versions === undefined ? {} : { versionedView: table }),
    fields,
    span: j.span,
  }
  if (lx === 0) return node
  const keep = [...Array.from({ length: lw }, (_, i) => i), ...right.fields.map((_, i) => lw + lx + i)]
  return { kind: 'Project', input: node, exprs: keep.map(i => inputRef(i, fields[i]!.type)), fields: keep.map(i => fields[i]!), span: j.span }
}

/** The AS OF column: a time attribute (rowtime or PROCTIME()) of the probe side. */
function probeTime(asOf: NonNullable<ast.TableRef['asOf']>, j: JoinInputs): number {
  const notTime = (what: string) =>
    WeirError.plan(`FOR SYSTEM_TIME AS OF needs a time attribute of the probe side (the left input of the join); ${what}`, {
      span: asOf.expr.span,
      help: "name the probe table's rowtime column (declared with WATERMARK FOR) for event time, or a column declared AS PROCTIME() for processing time",
    })
  let rex: Rex
  try {
    rex = bindExpr(asOf.expr, { scope: j.left.scope, clause: 'FOR SYSTEM_TIME AS OF' })
  } catch (e) {
    if (e instanceof WeirError && e.kind === 'plan') throw notTime(`this is not a column of it (${e.message})`)
    throw e
  }
  if (rex.kind !== 'Input' || timeAttrOf(rex.type) === undefined) {
    throw notTime(`this is ${rex.kind === 'Input' ? 'a plain column' : 'an expression'} of type ${formatType(rex.type)}`)
  }
  return rex.index
}

/** A probe-side key expression in the primary key column's type (keys compare by their stored encoding). */
function castKey(probe: Rex, pkField: Field, span: Span): Rex {
  const a = withoutTimeAttr(probe.type), b = withoutTimeAttr(pkField.type)
  if (sameType(withNullable(a, false), withNullable(b, false)) || (isIntegral(a) && isIntegral(b))) return probe
  if (commonType([a, b]) === null) {
    throw WeirError.plan(`the join condition compares ${formatType(a)} with the primary key column ${pkField.name} ${formatType(b)}`, { span,
      help: 'CAST one side' })
  }
  return castTo(probe, withNullable(b, true), span)
}
