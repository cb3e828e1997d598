// Flink's DDL and statement pages (docs/content/docs/dev/table/sql/{create,alter,drop,show,use,
// explain,describe}.md): CREATE TABLE (computed columns, watermarks, PRIMARY KEY, LIKE, AS SELECT),
// CREATE VIEW and FUNCTION, ALTER, SHOW, USE, EXPLAIN — each statement's effect as the page says.
import { join } from 'node:path'
import type { CompatPage } from '../compat-case.js'

const T = `CREATE TABLE Orders (order_id INT, amount INT, price AS amount * 2, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ('connector' = 'datagen', 'number-of-rows' = '10');`

// The UDF modules of test/udf, from the repository root (where vitest and the count command run).
const REVERSE_MODULE = join(process.cwd(), 'test', 'udf', 'modules', 'plain.mjs')

export const DDL_PAGES: readonly CompatPage[] = [{
  page: 'sql/create.md',
  cases: [
    {
      name: 'CREATE TABLE with a computed column and a watermark: DESCRIBE',
      sql: `${T} DESCRIBE Orders`,
      // As Flink: the rowtime attribute marked in the type column, the watermark's expression beside it.
      expect: ['order_id | INT | TRUE |  |  | ', 'amount | INT | TRUE |  |  | ', 'price | INT | TRUE |  | AS amount * 2 | ',
        "ts | TIMESTAMP(3) *ROWTIME* | TRUE |  |  | ts - INTERVAL '5' SECOND"],
    },
    {
      name: 'CREATE TABLE with PRIMARY KEY NOT ENFORCED: its columns are NOT NULL',
      sql: "CREATE TABLE u (id INT, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'datagen'); DESCRIBE u",
      expect: ['id | INT | FALSE | PRI(id) |  | ', 'name | STRING | TRUE |  |  | '],
    },
    {
      name: 'CREATE TABLE … LIKE with EXCLUDING OPTIONS',
      sql: `${T} CREATE TABLE Orders2 WITH ('connector' = 'datagen', 'number-of-rows' = '1') LIKE Orders (EXCLUDING OPTIONS); SHOW CREATE TABLE Orders2`,
      contains: true,
      expect: ["'number-of-rows' = '1'", 'WATERMARK FOR `ts` AS'],
    },
    {
      name: 'CREATE TABLE … AS SELECT fills the table',
      before: `CREATE TABLE big WITH ('connector' = 'filesystem', 'path' = '${'${dir}'}/big', 'format' = 'json')
        AS SELECT order_id FROM (VALUES (1), (2), (3)) AS t(order_id) WHERE order_id > 1`,
      sql: 'SELECT * FROM big',
      expect: ['2', '3'],
    },
    {
      name: 'CREATE VIEW and query it',
      sql: 'CREATE VIEW v (a, b) AS SELECT x, x * 10 FROM (VALUES (1), (2)) AS t(x); SELECT b FROM v WHERE a = 2',
      expect: ['20'],
    },
    {
      name: 'CREATE TEMPORARY VIEW',
      sql: "CREATE TEMPORARY VIEW tv AS SELECT 'x' AS s; SELECT s FROM tv",
      expect: ['x'],
    },
    {
      name: 'CREATE FUNCTION … LANGUAGE JAVASCRIPT, then call it',
      sql: `CREATE FUNCTION rev AS '${REVERSE_MODULE}' LANGUAGE JAVASCRIPT; SELECT rev('Flink')`,
      expect: ['knilF'],
    },
    {
      name: 'CREATE FUNCTION … LANGUAGE JAVA',
      sql: "CREATE FUNCTION f AS 'com.example.MyFunction' LANGUAGE JAVA; SELECT f(1)",
      expect: ['1'],
      fails: 'Java classes cannot be loaded; Weir takes JavaScript/TypeScript modules',
    },
    {
      name: 'CREATE CATALOG and DATABASE, then USE',
      sql: `CREATE CATALOG c WITH ('type' = 'generic_in_memory'); CREATE DATABASE c.db; USE CATALOG c; USE db;
        CREATE TABLE t (x INT) WITH ('connector' = 'datagen'); SHOW TABLES`,
      expect: ['t'],
    },
  ],
}, {
  page: 'sql/alter.md, drop.md',
  cases: [
    {
      name: 'ALTER TABLE SET changes an option',
      sql: `${T} ALTER TABLE Orders SET ('number-of-rows' = '3'); SELECT COUNT(*) FROM Orders`,
      expect: ['3'],
    },
    {
      name: 'ALTER TABLE RENAME TO',
      sql: `${T} ALTER TABLE Orders RENAME TO Orders3; SHOW TABLES`,
      expect: ['Orders3'],
    },
    {
      name: 'ALTER TABLE RESET an option',
      sql: `${T} ALTER TABLE Orders SET ('fields.amount.min' = '5'); ALTER TABLE Orders RESET ('fields.amount.min'); SHOW CREATE TABLE Orders`,
      contains: true,
      expect: ["'number-of-rows' = '10'"],
    },
    {
      name: 'ALTER TABLE ADD a column',
      sql: `${T} ALTER TABLE Orders ADD note STRING; DESCRIBE Orders`,
      expect: ['order_id | INT | TRUE |  |  | ', 'amount | INT | TRUE |  |  | ', 'price | INT | TRUE |  | AS amount * 2 | ',
        "ts | TIMESTAMP(3) *ROWTIME* | TRUE |  |  | ts - INTERVAL '5' SECOND", 'note | STRING | TRUE |  |  | '],
    },
    { name: 'DROP TABLE', sql: `${T} DROP TABLE Orders; SHOW TABLES`, expect: [] },
    { name: 'DROP TABLE IF EXISTS of no table', sql: 'DROP TABLE IF EXISTS nothing; SHOW TABLES', expect: [] },
    { name: 'DROP VIEW', sql: 'CREATE VIEW v AS SELECT 1 AS x; DROP VIEW v; SHOW VIEWS', expect: [] },
  ],
}, {
  page: 'sql/show.md, use.md, describe.md',
  cases: [
    { name: 'SHOW CATALOGS', sql: 'SHOW CATALOGS', expect: ['default_catalog'] },
    { name: 'SHOW CURRENT CATALOG', sql: 'SHOW CURRENT CATALOG', expect: ['default_catalog'] },
    { name: 'SHOW DATABASES', sql: 'SHOW DATABASES', expect: ['default_database'] },
    { name: 'SHOW CURRENT DATABASE', sql: 'SHOW CURRENT DATABASE', expect: ['default_database'] },
    { name: 'SHOW TABLES', sql: `${T} SHOW TABLES`, expect: ['Orders'] },
    { name: 'SHOW VIEWS', sql: 'CREATE VIEW v1 AS SELECT 1 AS x; SHOW VIEWS', expect: ['v1'] },
    {
      name: 'SHOW CREATE TABLE',
      sql: `${T} SHOW CREATE TABLE Orders`,
      contains: true,
      // Flink quotes the names inside expressions too (`ts` - INTERVAL …); Weir prints them as written.
      expect: ['CREATE TABLE `Orders` (', '`price` AS', "WATERMARK FOR `ts` AS ts - INTERVAL '5' SECOND", "'connector' = 'datagen'"],
    },
    {
      name: 'SHOW CREATE VIEW',
      sql: 'CREATE VIEW v AS SELECT 1 AS x; SHOW CREATE VIEW v',
      contains: true,
      expect: ['CREATE VIEW'],
    },
    { name: 'USE a database', sql: 'CREATE DATABASE d2; USE d2; SHOW CURRENT DATABASE', expect: ['d2'] },
    {
      name: 'SHOW FUNCTIONS lists built-in functions',
      sql: 'SHOW FUNCTIONS',
      contains: true,
      expect: ['UPPER | scalar', 'COUNT | aggregate', 'TUMBLE | window table function'],
    },
    {
      name: 'SHOW TABLES LIKE',
      sql: `${T} CREATE TABLE other (x INT) WITH ('connector' = 'datagen'); SHOW TABLES LIKE 'Ord%'`,
      expect: ['Orders'],
    },
    { name: 'SHOW COLUMNS FROM … LIKE', sql: `${T} SHOW COLUMNS FROM Orders LIKE '%r%'`,
      expect: ['order_id | INT | TRUE |  |  | ', 'price | INT | TRUE |  | AS amount * 2 | '] },
  ],
}, {
  page: 'sql/explain.md',
  cases: [
    {
      name: 'EXPLAIN a query: the physical plan',
      sql: `${T} EXPLAIN SELECT order_id FROM Orders WHERE amount > 10`,
      contains: true,
      expect: ['== Physical Plan ==', 'Source(table=[Orders]'],
    },
    {
      name: 'EXPLAIN CHANGELOG_MODE of an aggregate',
      sql: `${T} EXPLAIN CHANGELOG_MODE SELECT amount, COUNT(*) FROM Orders GROUP BY amount`,
      contains: true,
      expect: ['changelogMode=[I,UB,UA]'],
    },
    {
      name: 'EXPLAIN PLAN FOR',
      sql: `${T} EXPLAIN PLAN FOR SELECT order_id FROM Orders`,
      contains: true,
      expect: ['== Physical Plan =='],
    },
    {
      name: 'EXPLAIN ESTIMATED_COST, JSON_EXECUTION_PLAN',
      sql: `${T} EXPLAIN ESTIMATED_COST, JSON_EXECUTION_PLAN SELECT order_id FROM Orders`,
      contains: true,
      expect: ['== Physical Plan ==', '== Physical Execution Plan =='],
    },
  ],
}]
