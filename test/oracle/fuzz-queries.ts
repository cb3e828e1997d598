// Random queries for the fuzz oracle tests (fuzz.test.ts, fuzz-restore.test.ts): regular, interval,
// window and temporal joins of filtered, grouped, deduplicated, ranked, set-op and scalar-subquery
// views of `t` (inner, outer, with residual conditions), semi and anti joins, OVER frames, window
// Top-N, and filters, aggregates, Top-N and a third join over a join's result. Each is written so
// that its result has one batch meaning, the same in Flink SQL and in DuckDB: ties in a ranking or a
// deduplication never decide a value the query returns, and NULLs are kept out of ORDER BY keys (the
// engines order them differently).
import { OracleData, Rng } from './oracle.js'
import { DUCK_WINDOWS, WEIR_WINDOWS } from './window-tvfs.js'

type Kind = 'str' | 'num' | 'time'

interface Column {
  readonly name: string
  readonly kind: Kind
}

/** A view of `t`: its SQL in each engine (the same text but for window TVFs), its columns, what it is. */
interface Relation {
  readonly weir: string
  readonly duck: string
  readonly columns: readonly Column[]
  readonly what: string
}

/** A relation whose SQL is the same in both engines. */
function same(sql: string, columns: readonly Column[], what: string): Relation {
  return { weir: sql, duck: sql, columns, what }
}

const STR_PREDICATES = ['k IS NOT NULL', "s LIKE '%a%'", "k <> 'c'", "k IN ('a', 'b', 'c')", 's IS NULL OR v > 50']

function predicate(rng: Rng): string {
  switch (rng.int(0, 4)) {
    case 0:
      return `v < ${rng.int(-20, 60)}`
    case 1:
      return `v > ${rng.int(0, 90)}`
    case 2: {
      const lo = rng.int(-40, 70)
      return `v BETWEEN ${lo} AND ${lo + rng.int(5, 40)}`
    }
    case 3:
      return `x > ${rng.int(-900, 900)}`
    default:
      return rng.pick(STR_PREDICATES)
  }
}

const FILTERED_COLUMNS: readonly Column[] = [{ name: 'k', kind: 'str' }, { name: 's', kind: 'str' }, { name: 'v', kind: 'num' }, { name: 'x', kind: 'num' }]

/** A filtered append-only view. */
function filtered(rng: Rng): Relation {
  return same(`SELECT k, s, v, x FROM t WHERE ${predicate(rng)}`, FILTERED_COLUMNS, 'filter')
}

/** A GROUP BY: updating, one row per group. */
function grouped(rng: Rng): Relation {
  const by = rng.pick([['k'], ['s'], ['k', 's']])
  const keys = by.join(', ')
  if (rng.chance(0.15)) {
    // SELECT DISTINCT: a GROUP BY without aggregates.
    return same(`SELECT DISTINCT ${keys} FROM t WHERE ${predicate(rng)}`, by.map(name => ({ name, kind: 'str' as const })), `distinct ${keys}`)
  }
  const having = rng.chance(0.3) ? ` HAVING COUNT(*) > ${rng.int(1, 8)}` : ''
  return same(`SELECT ${keys}, COUNT(*) AS c, SUM(v) AS sv, MAX(v) AS mv FROM t WHERE ${predicate(rng)} GROUP BY ${keys}${having}`, [
    ...by.map(name => ({ name, kind: 'str' as const })),
    { name: 'c', kind: 'num' },
    { name: 'sv', kind: 'num' },
    { name: 'mv', kind: 'num' },
  ], `group by ${keys}`)
}

/** Keep-first or keep-last per key by event time: only the key and the time are returned (rows of a key may share a time). */
function deduplicated(rng: Rng): Relation {
  const dir = rng.pick(['ASC', 'DESC'])
  const by = rng.pick([['k'], ['s'], ['k', 's']])
  const keys = by.join(', ')
  return same(
    `SELECT ${keys}, ts FROM (SELECT ${keys}, ts, ROW_NUMBER() OVER (PARTITION BY ${keys} ORDER BY ts ${dir}) AS rn FROM t WHERE ${
      predicate(rng)
    }) WHERE rn = 1`,
    [...by.map(name => ({ name, kind: 'str' as const })), { name: 'ts', kind: 'time' }],
    `dedup ${dir}`,
  )
}

/**
 * Top-N per key over `t` (append-only) or over a GROUP BY (updating). Returned: the partition key, the
 * order key and the rank, which ties do not change (tied rows have the same order key).
 */
function ranked(rng: Rng): Relation {
  const fn = rng.pick(['ROW_NUMBER()', 'RANK()', 'DENSE_RANK()'])
  const n = rng.int(1, 4)
  const bound = rng.pick([`rn <= ${n}`, `rn < ${n + 1}`, `rn BETWEEN 2 AND ${n + 1}`])
  const dir = rng.pick(['ASC', 'DESC'])
  if (rng.chance(0.5)) {
    return same(
      `SELECT k, v, rn FROM (SELECT k, v, ${fn} OVER (PARTITION BY k ORDER BY v ${dir}) AS rn FROM t WHERE v IS NOT NULL AND ${predicate(rng)}) WHERE ${bound}`,
      [{ name: 'k', kind: 'str' }, { name: 'v', kind: 'num' }, { name: 'rn', kind: 'num' }],
      `${fn} ${bound} over t`,
    )
  }
  return same(
    `SELECT k, c, rn FROM (SELECT k, c, ${fn} OVER (PARTITION BY k ORDER BY c ${dir}) AS rn FROM (SELECT k, s, COUNT(*) AS c FROM t WHERE ${
      predicate(rng)
    } GROUP BY k, s)) WHERE ${bound}`,
    [{ name: 'k', kind: 'str' }, { name: 'c', kind: 'num' }, { name: 'rn', kind: 'num' }],
    `${fn} ${bound} over a GROUP BY`,
  )
}

type WindowKind = keyof typeof WEIR_WINDOWS

/**
 * A window aggregate per key (append-only once the watermark passes a window's end): window_start
 * and window_end as ws and we. DuckDB computes each row's windows (window-tvfs.ts).
 */
function windowed(rng: Rng, kind: WindowKind): Relation {
  const p = predicate(rng)
  const by = rng.pick(['k', 's'])
  return {
    weir: `SELECT ${by}, window_start AS ws, window_end AS we, COUNT(*) AS c, SUM(v) AS sv FROM TABLE(${
      WEIR_WINDOWS[kind]('t')
    }) WHERE ${p} GROUP BY ${by}, window_start, window_end`,
    duck: `SELECT ${by}, epoch_ms(ws) AS ws, epoch_ms(we) AS we, c, sv FROM (SELECT ${by}, ws, we, COUNT(*) AS c, SUM(v) AS sv FROM (${
      DUCK_WINDOWS[kind]('t')
    }) WHERE ${p} GROUP BY ${by}, ws, we)`,
    columns: [{ name: by, kind: 'str' }, { name: 'ws', kind: 'time' }, { name: 'we', kind: 'time' }, { name: 'c', kind: 'num' }, { name: 'sv', kind: 'num' }],
    what: `${kind} by ${by}`,
  }
}

/** UNION ALL of two filtered views, or INTERSECT / EXCEPT [ALL] of two projections of `t`. */
function setOp(rng: Rng): Relation {
  if (rng.chance(0.4)) {
    return same(`SELECT k, s, v, x FROM t WHERE ${predicate(rng)} UNION ALL SELECT k, s, v, x FROM t WHERE ${predicate(rng)}`, FILTERED_COLUMNS, 'union all')
  }
  const op = rng.pick(['INTERSECT', 'INTERSECT ALL', 'EXCEPT', 'EXCEPT ALL'])
  const cols = rng.pick([['k'], ['k', 's'], ['s', 'v'], ['k', 'v']])
  return same(`SELECT ${cols.join(', ')} FROM t WHERE ${predicate(rng)} ${op} SELECT ${cols.join(', ')} FROM t WHERE ${predicate(rng)}`,
    cols.map(name => ({ name, kind: name === 'v' ? 'num' as const : 'str' as const })), op.toLowerCase())
}

/** A scalar subquery in the select list, uncorrelated or correlated on k (updating: the scalar changes as rows come). */
function scalar(rng: Rng): Relation {
  const sub = rng.pick([`(SELECT MAX(v) FROM t WHERE ${predicate(rng)})`, `(SELECT COUNT(*) FROM t t2 WHERE t2.k = t1.k AND (${predicate(rng)}))`])
  return same(`SELECT k, s, v, ${sub} AS m FROM t t1 WHERE ${predicate(rng)}`, [{ name: 'k', kind: 'str' }, { name: 's', kind: 'str' }, { name: 'v',
    kind: 'num' }, { name: 'm', kind: 'num' }], 'scalar subquery')
}

function relation(rng: Rng): Relation {
  const r = rng.next()
  if (r < 0.04) return scalar(rng)
  if (r < 0.1) return setOp(rng)
  if (r < 0.35) return filtered(rng)
  if (r < 0.6) return grouped(rng)
  if (r < 0.75) return deduplicated(rng)
  return ranked(rng)
}

const JOIN_TYPES = ['JOIN', 'LEFT JOIN', 'RIGHT JOIN', 'FULL OUTER JOIN'] as const

/** A column of each relation to join on (strings mostly, numbers sometimes), or null when they have none of a kind. */
function joinKeys(rng: Rng, a: Relation, b: Relation): [Column, Column] | null {
  const kind: Kind = rng.chance(0.2) ? 'num' : 'str'
  const as = a.columns.filter(c => c.kind === kind), bs = b.columns.filter(c => c.kind === kind)
  if (as.length === 0 || bs.length === 0) return null
  // The same name where both have it (k = k), so most keys meet.
  const same = as.filter(c => bs.some(d => d.name === c.name))
  if (same.length > 0 && rng.chance(0.8)) {
    const c = rng.pick(same)
    return [c, c]
  }
  return [rng.pick(as), rng.pick(bs)]
}

function residual(rng: Rng, a: Relation, b: Relation): string {
  const an = a.columns.filter(c => c.kind === 'num'), bn = b.columns.filter(c => c.kind === 'num')
  if (an.length === 0 || bn.length === 0 || rng.chance(0.5)) return ''
  const x = rng.pick(an).name, y = rng.pick(bn).name
  return rng.pick([` AND a.${x} < b.${y}`, ` AND a.${x} + b.${y} > ${rng.int(0, 100)}`, ` AND (a.${x} > ${rng.int(0, 60)} OR b.${y} IS NULL)`])
}

type Engine = 'weir' | 'duck'

/** A query in both engines' SQL, with what it is (for a failure's message). */
export interface FuzzQuery {
  readonly weir: string
  readonly duck: string
  readonly what: string
  /** Weir statements to run before the query (a view it reads), each ending in ';'. */
  readonly views?: string
}

/**
 * An event-time temporal join: rows of `t` joined with the version valid at their time of a
 * deduplicating view of other rows of `t` (Flink's versioned view: the last row per key by time).
 * DuckDB finds the version with an ASOF JOIN. Only the version's time is returned: rows of a key
 * may share a time, and which of them is the version then is either.
 */
function temporalJoin(rng: Rng): FuzzQuery {
  const cut = rng.int(0, 60)
  const left = rng.chance(0.5)
  const views =
    `CREATE TEMPORARY VIEW ver AS SELECT k, ts FROM (SELECT k, ts, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts DESC) AS rn FROM t WHERE v >= ${cut}) WHERE rn = 1;\n`
  // Columns named by the probe side: the view has k and ts too.
  const probe = `o.v < ${cut}` + (rng.chance(0.5) ? ` AND o.x > ${rng.int(-900, 900)}` : '')
  return {
    views,
    weir: `SELECT o.k, o.v, o.ts, r.ts AS vts FROM t AS o ${left ? 'LEFT ' : ''}JOIN ver FOR SYSTEM_TIME AS OF o.ts AS r ON o.k = r.k WHERE ${probe}`,
    duck: `SELECT o.k, o.v, o.ts, r.ts AS vts FROM t AS o ASOF ${
      left ? 'LEFT ' : ''
    }JOIN (SELECT k, ts FROM t WHERE v >= ${cut}) r ON o.k = r.k AND o.ts >= r.ts WHERE ${probe}`,
    what: `temporal ${left ? 'LEFT ' : ''}join, versions v >= ${cut}`,
  }
}

/** A relation built from others: `sql` writes it for one engine. */
function derived(sql: (e: Engine) => string, columns: readonly Column[], what: string): Relation {
  return { weir: sql('weir'), duck: sql('duck'), columns, what }
}

/** Picks some of `cols` (at least one) and names them c0, c1, … */
function pick(rng: Rng, cols: readonly Column[]): { list: string; columns: Column[] } {
  const picked = cols.filter(() => rng.chance(0.6))
  if (picked.length === 0) picked.push(cols[0]!)
  return { list: picked.map((c, i) => `${c.name} AS c${i}`).join(', '), columns: picked.map((c, i) => ({ name: `c${i}`, kind: c.kind })) }
}

const qualified = (r: Relation, alias: string): Column[] => r.columns.map(c => ({ ...c, name: `${alias}.${c.name}` }))

/** A regular join of two views on a string or number key, maybe an expression, maybe with a residual condition. */
function regularJoin(rng: Rng): Relation | null {
  const a = relation(rng), b = relation(rng)
  const keys = joinKeys(rng, a, b)
  if (keys === null) return null
  const type = rng.pick(JOIN_TYPES)
  const out = pick(rng, [...qualified(a, 'a'), ...qualified(b, 'b')])
  // Now and then an expression key (computed into a column of the input).
  const left = keys[0].kind === 'str' && rng.chance(0.15) ? `COALESCE(a.${keys[0].name}, 'a')` : `a.${keys[0].name}`
  const on = `${left} = b.${keys[1].name}${residual(rng, a, b)}`
  return derived(e => `SELECT ${out.list} FROM (${a[e]}) a ${type} (${b[e]}) b ON ${on}`, out.columns,
    `${a.what} ${type} ${b.what} on ${keys[0].name} = ${keys[1].name}`)
}

/** An interval join of two filtered views of `t` on k, inner or outer, in one of the bound forms. */
function intervalJoin(rng: Rng): Relation {
  const type = rng.pick(JOIN_TYPES)
  const lo = rng.int(0, 3), hi = rng.int(0, 3)
  const bounds = rng.pick([
    `a.ts BETWEEN b.ts - INTERVAL '${lo}' SECOND AND b.ts + INTERVAL '${hi}' SECOND`,
    `a.ts >= b.ts - INTERVAL '${lo}' SECOND AND a.ts < b.ts + INTERVAL '${hi}' SECOND`,
    `a.ts > b.ts AND a.ts <= b.ts + INTERVAL '${hi + 1}' SECOND`,
  ])
  const side = (): string => `SELECT k, s, v, ts FROM t WHERE ${predicate(rng)}`
  const a = side(), b = side()
  const cols: Column[] = [{ name: 'a.k', kind: 'str' }, { name: 'a.v', kind: 'num' }, { name: 'a.ts', kind: 'time' }, { name: 'b.s', kind: 'str' }, {
    name: 'b.v',
    kind: 'num',
  }, { name: 'b.ts', kind: 'time' }]
  const out = pick(rng, cols)
  return same(`SELECT ${out.list} FROM (${a}) a ${type} (${b}) b ON a.k = b.k AND ${bounds}`, out.columns, `interval ${type}: ${bounds}`)
}

/** Two window aggregates of one window kind joined on their key and window (Weir: a window join). */
function windowJoin(rng: Rng): Relation {
  const kind = rng.pick(['TUMBLE', 'HOP', 'CUMULATE'] as const)
  const a = windowed(rng, kind), b = windowed(rng, kind)
  const type = rng.pick(JOIN_TYPES)
  const key = a.columns[0]!.name === b.columns[0]!.name ? `a.${a.columns[0]!.name} = b.${b.columns[0]!.name} AND ` : ''
  const out = pick(rng, [...qualified(a, 'a'), ...qualified(b, 'b')])
  return derived(e => `SELECT ${out.list} FROM (${a[e]}) a ${type} (${b[e]}) b ON ${key}a.ws = b.ws AND a.we = b.we`, out.columns,
    `window ${type} of ${a.what}, ${b.what}`)
}

/**
 * An OVER aggregate on event time with a RANGE frame (peers, rows of the same time, share a result),
 * or a ROWS frame's COUNT(*) / ROW_NUMBER() with only the key and the time returned (rows of a key
 * may share a time, and which of them is counted first then changes no returned row).
 */
function over(rng: Rng): Relation {
  if (rng.chance(0.35)) {
    const by = rng.pick(['k', 's'])
    const fn = rng.pick([`COUNT(*) OVER (PARTITION BY ${by} ORDER BY ts ROWS BETWEEN ${rng.int(0, 3)} PRECEDING AND CURRENT ROW)`,
      `ROW_NUMBER() OVER (PARTITION BY ${by} ORDER BY ts)`, `COUNT(*) OVER (PARTITION BY ${by} ORDER BY ts ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)`])
    return same(`SELECT ${by}, ts, ${fn} AS o FROM t WHERE ${predicate(rng)}`, [{ name: by, kind: 'str' }, { name: 'ts', kind: 'time' }, { name: 'o',
      kind: 'num' }], `over ${fn}`)
  }
  const agg = rng.pick(['COUNT(v)', 'SUM(v)', 'MIN(v)', 'MAX(v)', 'COUNT(*)'])
  const frame = rng.pick([`RANGE BETWEEN INTERVAL '${rng.int(1, 4)}' SECOND PRECEDING AND CURRENT ROW`, 'RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW'])
  const by = rng.pick(['k', 's'])
  return same(`SELECT ${by}, ts, v, ${agg} OVER (PARTITION BY ${by} ORDER BY ts ${frame}) AS o FROM t WHERE ${predicate(rng)}`, [{ name: by, kind: 'str' }, {
    name: 'ts',
    kind: 'time',
  }, { name: 'v', kind: 'num' }, { name: 'o', kind: 'num' }], `over ${agg} ${frame}`)
}

/** One random query with a batch meaning. */
export function fuzzQuery(rng: Rng): FuzzQuery {
  for (;;) {
    const shape = rng.next()
    let r: Relation | null
    if (shape < 0.05) return temporalJoin(rng)
    if (shape < 0.07) {
      // Window Top-N over a window aggregate (per window, by the count; ties keep the returned columns).
      const w = windowed(rng, rng.pick(['TUMBLE', 'HOP', 'CUMULATE'] as const))
      const fn = rng.pick(['ROW_NUMBER()', 'RANK()', 'DENSE_RANK()'])
      const n = rng.int(1, 3)
      return derived(
        e => `SELECT ws, we, c, rn FROM (SELECT ws, we, c, ${fn} OVER (PARTITION BY ws, we ORDER BY c DESC) AS rn FROM (${w[e]})) WHERE rn <= ${n}`,
        [],
        `window top-${n} ${fn} of ${w.what}`,
      )
    }
    if (shape < 0.1) {
      // Semi and anti joins.
      const a = relation(rng), b = relation(rng)
      const keys = joinKeys(rng, a, b)
      if (keys === null) continue
      const [x, y] = keys
      const form = rng.pick([
        (e: Engine) => `a.${x.name} IN (SELECT b.${y.name} FROM (${b[e]}) b)`,
        (e: Engine) => `a.${x.name} NOT IN (SELECT b.${y.name} FROM (${b[e]}) b)`,
        (e: Engine) => `EXISTS (SELECT * FROM (${b[e]}) b WHERE b.${y.name} = a.${x.name})`,
        (e: Engine) => `NOT EXISTS (SELECT * FROM (${b[e]}) b WHERE b.${y.name} = a.${x.name})`,
      ])
      return derived(e => `SELECT * FROM (${a[e]}) a WHERE ${form(e)}`, a.columns, `${a.what} semi/anti ${b.what}: ${form('weir').slice(0, 24)}`)
    }
    if (shape < 0.18) r = intervalJoin(rng)
    else if (shape < 0.26) r = windowJoin(rng)
    else if (shape < 0.32) r = over(rng)
    else r = regularJoin(rng)
    if (r === null) continue
    const j = r
    const post = rng.next()
    if (post < 0.35) return j
    if (post < 0.45) {
      // A filter and an expression over it (NULLs from outer padding).
      const c = rng.pick(j.columns)
      const cond = c.kind === 'num' ? `${c.name} IS NULL OR ${c.name} > ${rng.int(-10, 60)}` : c.kind === 'str' ? `${c.name} IS NOT NULL` : `${c.name} IS NULL`
      const expr = c.kind === 'str' ? `COALESCE(${c.name}, '-')` : c.kind === 'num' ? `COALESCE(${c.name}, -1) * 2` : `${c.name}`
      return derived(e => `SELECT *, ${expr} AS e FROM (${j[e]}) WHERE ${cond}`, [], `filter ${cond} over ${j.what}`)
    }
    const strCol = j.columns.find(c => c.kind === 'str')
    const numCol = j.columns.find(c => c.kind === 'num')
    if (post < 0.7 && strCol !== undefined) {
      // An aggregate over it (retractions from outer padding and updating inputs).
      const agg = numCol === undefined ? '' : rng.pick([
        `, SUM(${numCol.name}) AS sm, MIN(${numCol.name}) AS mn`,
        `, MAX(${numCol.name}) AS mx, COUNT(DISTINCT ${numCol.name}) AS nd`,
      ])
      return derived(e => `SELECT ${strCol.name}, COUNT(*) AS n${agg} FROM (${j[e]}) GROUP BY ${strCol.name}`, [], `agg over ${j.what}`)
    }
    if (post < 0.85) {
      // A third view joined to its result.
      const c = relation(rng)
      const cs = c.columns.filter(x => x.kind === 'str')
      if (strCol === undefined || cs.length === 0) continue
      const type = rng.pick(JOIN_TYPES)
      return derived(e => `SELECT j.*, c3.${cs[0]!.name} AS z0 FROM (${j[e]}) j ${type} (${c[e]}) c3 ON j.${strCol.name} = c3.${cs[0]!.name}`, [],
        `(${j.what}) ${type} ${c.what}`)
    }
    if (numCol !== undefined && strCol !== undefined) {
      // Top-N over its result: partition key, order key and rank (ties keep those).
      const fn = rng.pick(['ROW_NUMBER()', 'RANK()', 'DENSE_RANK()'])
      const n = rng.int(1, 3)
      return derived(
        e =>
          `SELECT ${strCol.name}, ${numCol.name}, rn FROM (SELECT ${strCol.name}, ${numCol.name}, ${fn} OVER (PARTITION BY ${strCol.name} ORDER BY ${numCol.name} DESC) AS rn FROM (${
            j[e]
          }) WHERE ${numCol.name} IS NOT NULL) WHERE rn <= ${n}`,
        [],
        `top-n over ${j.what}`,
      )
    }
  }
}

/** The seeds a fuzz test runs: `count` from 1 unless WEIR_FUZZ_COUNT and WEIR_FUZZ_SEED say otherwise. */
export function fuzzSeeds(count: number): number[] {
  const n = Number(process.env['WEIR_FUZZ_COUNT'] ?? String(count))
  const first = Number(process.env['WEIR_FUZZ_SEED'] ?? '1')
  return Array.from({ length: n }, (_, i) => first + i)
}

/** The rows the queries read, loaded into both engines. */
export async function fuzzData(seed: number, rows: number): Promise<OracleData> {
  const data = await OracleData.create({ seed, rows })
  // DuckDB's rewrite of a ROW_NUMBER filter fails an internal assertion on some generated shapes.
  await data.duck("SET disabled_optimizers = 'top_n_window_elimination'")
  return data
}

/** The query's Weir text with the views it reads before it. */
export function weirText(q: FuzzQuery): string {
  return `${q.views ?? ''}${q.weir}`
}
