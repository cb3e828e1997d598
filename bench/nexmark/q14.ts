// Nexmark q14 with its published text (nexmark-flink/…/queries/q14.sql) and its user-defined
// function count_char written in TypeScript (udf/count-char.ts, compiled when CREATE FUNCTION loads
// it) instead of the suite's Java class; the sink is the published one, renamed to the bench's `sink`.
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const HERE = fileURLToPath(import.meta.url)
/** The repository's bench/nexmark, from the sources (tests) or from dist/bench/nexmark (the built bench). */
const SOURCES = HERE.endsWith('.ts') ? dirname(HERE) : resolve(dirname(HERE), '../../../bench/nexmark')

/** The module of count_char. */
export const COUNT_CHAR_MODULE = resolve(SOURCES, 'udf/count-char.ts')

/** q14's statements after the `bid` table: the function, the sink and the INSERT, as published but for the function's path. */
export function q14Statements(): string {
  return `CREATE FUNCTION count_char AS '${COUNT_CHAR_MODULE}#countChar';

CREATE TABLE sink (
    auction BIGINT,
    bidder BIGINT,
    price  DECIMAL(23, 3),
    bidTimeType VARCHAR,
    dateTime TIMESTAMP(3),
    extra VARCHAR,
    c_counts BIGINT
) WITH (
  'connector' = 'blackhole'
);

INSERT INTO sink
SELECT 
    auction,
    bidder,
    0.908 * price as price,
    CASE
        WHEN HOUR(dateTime) >= 8 AND HOUR(dateTime) <= 18 THEN 'dayTime'
        WHEN HOUR(dateTime) <= 6 OR HOUR(dateTime) >= 20 THEN 'nightTime'
        ELSE 'otherTime'
    END AS bidTimeType,
    dateTime,
    extra,
    count_char(extra, 'c') AS c_counts
FROM bid
WHERE 0.908 * price > 1000000 AND 0.908 * price < 50000000;
`
}
