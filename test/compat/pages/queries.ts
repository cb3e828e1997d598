// Flink's query pages beyond windows (docs/content/docs/dev/table/sql/queries/*.md): SELECT/WHERE,
// group aggregation and grouping sets, OVER, joins, Top-N, deduplication, set operations, ORDER BY
// and LIMIT, and the aggregate functions of the functions page. Where a page shows its query without
// a result, the tables here are small and the result is the query's meaning over them.
import type { CompatPage, CompatTable } from '../compat-case.js'

const ORDERS: CompatTable = {
  name: 'Orders',
  columns: "order_id INT, product STRING, amount INT, customer_id INT, order_time TIMESTAMP(3), WATERMARK FOR order_time AS order_time - INTERVAL '1' SECOND",
  rows: [
    [1, 'apple', 3, 10, '08:00:01'],
    [2, 'pear', 5, 11, '08:00:02'],
    [3, 'apple', 2, 10, '08:00:03'],
    [4, 'plum', 7, 12, '08:00:04'],
    [5, 'pear', 1, 10, '08:00:05'],
    [6, 'apple', 4, 13, '08:00:06'],
  ].map(([order_id, product, amount, customer_id, t]) => ({ order_id, product, amount, customer_id, order_time: `2024-01-01 ${t}` })),
}

const CUSTOMERS: CompatTable = {
  name: 'Customers',
  columns: 'id INT, name STRING',
  rows: [{ id: 10, name: 'ann' }, { id: 11, name: 'bob' }, { id: 12, name: 'cy' }, { id: 14, name: 'dee' }],
}

const PRODUCTS = `(VALUES ('supplier1', 'product1', 4), ('supplier1', 'product2', 3), ('supplier2', 'product3', 3), ('supplier2', 'product4', 4))
  AS Products(supplier_id, product_id, rating)`

const SETS = `CREATE VIEW t1(s) AS VALUES ('c'), ('a'), ('b'), ('b'), ('c');
  CREATE VIEW t2(s) AS VALUES ('d'), ('e'), ('a'), ('b'), ('b');`

export const MORE_QUERY_PAGES: readonly CompatPage[] = [{
  page: 'sql/queries/select.md',
  tables: [ORDERS],
  cases: [
    { name: 'SELECT with WHERE', sql: "SELECT order_id, amount FROM Orders WHERE product = 'pear'", expect: ['2 | 5', '5 | 1'] },
    { name: 'SELECT an expression with a built-in function', sql: 'SELECT order_id, UPPER(product) FROM Orders WHERE amount > 4',
      expect: ['2 | PEAR', '4 | PLUM'] },
    { name: 'SELECT from inline VALUES', sql: 'SELECT a, b FROM (VALUES (1, 2.0), (2, 3.1)) AS t (a, b)', expect: ['1 | 2.0', '2 | 3.1'] },
    { name: 'SELECT DISTINCT', sql: 'SELECT DISTINCT product FROM Orders', expect: ['apple', 'pear', 'plum'] },
    {
      name: 'WITH clause',
      sql: 'WITH big AS (SELECT product, amount FROM Orders WHERE amount >= 3) SELECT product, SUM(amount) FROM big GROUP BY product',
      expect: ['apple | 7', 'pear | 5', 'plum | 7'],
    },
  ],
}, {
  page: 'sql/queries/group-agg.md',
  tables: [ORDERS],
  cases: [
    { name: 'COUNT(*) over a table', sql: 'SELECT COUNT(*) FROM Orders', expect: ['6'] },
    { name: 'GROUP BY with COUNT', sql: 'SELECT product, COUNT(*) FROM Orders GROUP BY product', expect: ['apple | 3', 'pear | 2', 'plum | 1'] },
    { name: 'COUNT(DISTINCT)', sql: 'SELECT COUNT(DISTINCT customer_id) FROM Orders', expect: ['4'] },
    {
      name: 'HAVING',
      sql: 'SELECT product, SUM(amount) AS total FROM Orders GROUP BY product HAVING SUM(amount) > 6',
      expect: ['apple | 9', 'plum | 7'],
    },
    {
      name: 'GROUPING SETS',
      sql: `SELECT supplier_id, rating, COUNT(*) AS total FROM ${PRODUCTS} GROUP BY GROUPING SETS ((supplier_id, rating), (supplier_id), ())`,
      expect: [
        'supplier1 | 4 | 1',
        'supplier1 | NULL | 2',
        'NULL | NULL | 4',
        'supplier1 | 3 | 1',
        'supplier2 | 3 | 1',
        'supplier2 | NULL | 2',
        'supplier2 | 4 | 1',
      ],
    },
    {
      name: 'ROLLUP',
      sql: `SELECT supplier_id, rating, COUNT(*) FROM ${PRODUCTS} GROUP BY ROLLUP (supplier_id, rating)`,
      expect: [
        'supplier1 | 4 | 1',
        'supplier1 | NULL | 2',
        'NULL | NULL | 4',
        'supplier1 | 3 | 1',
        'supplier2 | 3 | 1',
        'supplier2 | NULL | 2',
        'supplier2 | 4 | 1',
      ],
    },
    {
      name: 'CUBE',
      sql: `SELECT supplier_id, rating, product_id, COUNT(*) FROM ${PRODUCTS} GROUP BY CUBE (supplier_id, rating, product_id)`,
      // 4 rows × 8 sets, collapsed: each set's groups.
      expect: [
        ...['supplier1 | 4 | product1', 'supplier1 | 3 | product2', 'supplier2 | 3 | product3', 'supplier2 | 4 | product4'].map(r => `${r} | 1`),
        ...['supplier1 | 4 | NULL', 'supplier1 | 3 | NULL', 'supplier2 | 3 | NULL', 'supplier2 | 4 | NULL'].map(r => `${r} | 1`),
        ...['supplier1 | NULL | product1', 'supplier1 | NULL | product2', 'supplier2 | NULL | product3', 'supplier2 | NULL | product4'].map(r => `${r} | 1`),
        'supplier1 | NULL | NULL | 2',
        'supplier2 | NULL | NULL | 2',
        ...['NULL | 4 | product1', 'NULL | 3 | product2', 'NULL | 3 | product3', 'NULL | 4 | product4'].map(r => `${r} | 1`),
        'NULL | 4 | NULL | 2',
        'NULL | 3 | NULL | 2',
        ...['product1', 'product2', 'product3', 'product4'].map(p => `NULL | NULL | ${p} | 1`),
        'NULL | NULL | NULL | 4',
      ],
    },
    {
      name: 'GROUPING() and GROUPING_ID()',
      sql: `SELECT supplier_id, GROUPING(supplier_id), GROUPING_ID(supplier_id, rating), COUNT(*) FROM ${PRODUCTS}
        GROUP BY GROUPING SETS ((supplier_id, rating), ())`,
      expect: [
        'supplier1 | 0 | 0 | 1',
        'supplier1 | 0 | 0 | 1',
        'supplier2 | 0 | 0 | 1',
        'supplier2 | 0 | 0 | 1',
        'NULL | 1 | 3 | 4',
      ],
    },
    {
      name: 'GROUP_ID()',
      sql: `SELECT supplier_id, GROUP_ID() FROM ${PRODUCTS} GROUP BY GROUPING SETS ((supplier_id), (supplier_id))`,
      expect: ['supplier1 | 0', 'supplier2 | 0', 'supplier1 | 1', 'supplier2 | 1'],
    },
  ],
}, {
  page: 'functions/systemFunctions.md (aggregate functions)',
  tables: [ORDERS],
  cases: [
    {
      name: 'COUNT, SUM, AVG, MIN, MAX',
      sql: 'SELECT COUNT(amount), SUM(amount), AVG(amount), MIN(amount), MAX(amount) FROM Orders',
      expect: ['6 | 22 | 3 | 1 | 7'],
    },
    {
      name: 'STDDEV_POP, STDDEV_SAMP, VAR_POP, VAR_SAMP, VARIANCE over doubles',
      sql:
        'SELECT STDDEV_POP(x), STDDEV_SAMP(x), VAR_POP(x), VAR_SAMP(x), VARIANCE(x) FROM (VALUES (2.0E0), (4.0E0), (4.0E0), (4.0E0), (5.0E0), (5.0E0), (7.0E0), (9.0E0)) AS t(x)',
      expect: ['2.0 | 2.138089935299395 | 4.0 | 4.571428571428571 | 4.571428571428571'],
    },
    { name: 'COLLECT', sql: 'SELECT COLLECT(product) FROM Orders', expect: ['{apple=3, pear=2, plum=1}'] },
    { name: 'FIRST_VALUE, LAST_VALUE', sql: 'SELECT FIRST_VALUE(product), LAST_VALUE(product) FROM Orders', expect: ['apple | apple'] },
    { name: 'LISTAGG with the default separator', sql: "SELECT LISTAGG(product) FROM Orders WHERE product <> 'apple'", expect: ['pear,plum,pear'] },
    { name: 'LISTAGG with a separator', sql: "SELECT LISTAGG(product, ';') FROM Orders WHERE amount > 4", expect: ['pear;plum'] },
    { name: 'ARRAY_AGG', sql: 'SELECT ARRAY_AGG(amount) FROM Orders WHERE amount > 3', expect: ['[5, 7, 4]'] },
    { name: 'ARRAY_AGG(DISTINCT)', sql: 'SELECT ARRAY_AGG(DISTINCT product) FROM Orders', expect: ['[apple, pear, plum]'] },
    {
      name: "JSON_OBJECTAGG: the page's fruit counts",
      sql: "SELECT JSON_OBJECTAGG(KEY product VALUE cnt) FROM (VALUES ('Apple', 2), ('Banana', 17), ('Orange', 0)) AS orders(product, cnt)",
      expect: ['{"Apple":2,"Banana":17,"Orange":0}'],
    },
    {
      name: "JSON_ARRAYAGG: the page's fruits",
      sql: "SELECT JSON_ARRAYAGG(product) FROM (VALUES ('Apple'), ('Banana'), ('Orange')) AS orders(product)",
      expect: ['["Apple","Banana","Orange"]'],
    },
    {
      name: 'PERCENTILE, interpolated',
      sql: 'SELECT PERCENTILE(amount, 0.5) FROM Orders',
      expect: ['3.5'],
    },
    {
      name: 'PERCENTILE with a frequency',
      sql: 'SELECT PERCENTILE(col, 0.5, freq) FROM (VALUES (0, 1), (10, 2)) AS tab(col, freq)',
      expect: ['10.0'],
    },
    {
      name: 'PERCENTILE of an ARRAY of percentages',
      sql: 'SELECT PERCENTILE(col, ARRAY[0.25, 0.75]) FROM (VALUES (0), (10)) AS tab(col)',
      expect: ['[2.5, 7.5]'],
    },
  ],
}, {
  page: 'sql/queries/over-agg.md',
  tables: [ORDERS],
  cases: [
    {
      name: 'SUM over a RANGE interval per product',
      sql: `SELECT order_id, SUM(amount) OVER (PARTITION BY product ORDER BY order_time
          RANGE BETWEEN INTERVAL '2' SECOND PRECEDING AND CURRENT ROW) AS two_seconds FROM Orders`,
      expect: ['1 | 3', '2 | 5', '3 | 5', '4 | 7', '5 | 1', '6 | 4'],
    },
    {
      name: 'ROWS BETWEEN 1 PRECEDING, with a named WINDOW',
      sql: `SELECT order_id, SUM(amount) OVER w, COUNT(*) OVER w FROM Orders
        WINDOW w AS (PARTITION BY product ORDER BY order_time ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)`,
      expect: ['1 | 3 | 1', '2 | 5 | 1', '3 | 5 | 2', '4 | 7 | 1', '5 | 6 | 2', '6 | 6 | 2'],
    },
    {
      name: 'unbounded running MAX',
      sql: 'SELECT order_id, MAX(amount) OVER (ORDER BY order_time ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM Orders',
      expect: ['1 | 3', '2 | 5', '3 | 5', '4 | 7', '5 | 7', '6 | 7'],
    },
    {
      name: 'LAG over a partition',
      sql: 'SELECT order_id, LAG(amount) OVER (PARTITION BY product ORDER BY order_time) FROM Orders',
      expect: ['1 | NULL', '2 | NULL', '3 | 3', '4 | NULL', '5 | 5', '6 | 2'],
    },
    {
      name: 'LAG with an offset and a default',
      sql: 'SELECT order_id, LAG(amount, 2, 0) OVER (PARTITION BY product ORDER BY order_time) FROM Orders',
      expect: ['1 | 0', '2 | 0', '3 | 0', '4 | 0', '5 | 0', '6 | 3'],
    },
    {
      name: 'RANK and DENSE_RANK in time order',
      sql: 'SELECT order_id, RANK() OVER w, DENSE_RANK() OVER w FROM Orders WINDOW w AS (PARTITION BY product ORDER BY order_time)',
      expect: ['1 | 1 | 1', '2 | 1 | 1', '3 | 2 | 2', '4 | 1 | 1', '5 | 2 | 2', '6 | 3 | 3'],
    },
  ],
}, {
  page: 'sql/queries/joins.md',
  tables: [ORDERS, CUSTOMERS],
  cases: [
    {
      name: 'INNER JOIN',
      sql: 'SELECT o.order_id, c.name FROM Orders o INNER JOIN Customers c ON o.customer_id = c.id',
      expect: ['1 | ann', '2 | bob', '3 | ann', '4 | cy', '5 | ann'],
    },
    {
      name: 'LEFT JOIN',
      sql: 'SELECT o.order_id, c.name FROM Orders o LEFT JOIN Customers c ON o.customer_id = c.id WHERE o.order_id > 4',
      expect: ['5 | ann', '6 | NULL'],
    },
    {
      name: 'FULL OUTER JOIN',
      sql: 'SELECT o.order_id, c.name FROM (SELECT * FROM Orders WHERE order_id >= 4) o FULL OUTER JOIN Customers c ON o.customer_id = c.id',
      expect: ['4 | cy', '5 | ann', '6 | NULL', 'NULL | bob', 'NULL | dee'],
    },
    {
      name: 'interval join',
      sql: `SELECT a.order_id, b.order_id FROM Orders a, Orders b
        WHERE a.customer_id = b.customer_id AND a.order_id < b.order_id
        AND b.order_time BETWEEN a.order_time AND a.order_time + INTERVAL '2' SECOND`,
      expect: ['1 | 3', '3 | 5'],
    },
    {
      name: 'CROSS JOIN UNNEST of an array',
      sql: "SELECT k, x FROM (VALUES ('a', ARRAY[1, 2]), ('b', ARRAY[3])) AS t(k, arr) CROSS JOIN UNNEST(arr) AS u(x)",
      expect: ['a | 1', 'a | 2', 'b | 3'],
    },
  ],
}, {
  page: 'sql/queries/topn.md and deduplication.md',
  tables: [ORDERS],
  cases: [
    {
      name: 'Top-2 orders by amount per product',
      sql: `SELECT product, order_id, amount, row_num FROM (
          SELECT *, ROW_NUMBER() OVER (PARTITION BY product ORDER BY amount DESC) AS row_num FROM Orders)
        WHERE row_num <= 2`,
      expect: ['apple | 6 | 4 | 1', 'apple | 1 | 3 | 2', 'pear | 2 | 5 | 1', 'pear | 5 | 1 | 2', 'plum | 4 | 7 | 1'],
    },
    {
      name: 'Top-N without the rank column',
      sql: `SELECT product, order_id FROM (
          SELECT *, ROW_NUMBER() OVER (PARTITION BY product ORDER BY amount ASC) AS row_num FROM Orders)
        WHERE row_num = 1`,
      expect: ['apple | 3', 'pear | 5', 'plum | 4'],
    },
    {
      name: 'deduplication: the first row per customer by time',
      sql: `SELECT order_id, customer_id FROM (
          SELECT *, ROW_NUMBER() OVER (PARTITION BY customer_id ORDER BY order_time ASC) AS row_num FROM Orders)
        WHERE row_num = 1`,
      expect: ['1 | 10', '2 | 11', '4 | 12', '6 | 13'],
    },
    {
      name: 'deduplication: the last row per customer by time',
      sql: `SELECT order_id, customer_id FROM (
          SELECT *, ROW_NUMBER() OVER (PARTITION BY customer_id ORDER BY order_time DESC) AS row_num FROM Orders)
        WHERE row_num = 1`,
      expect: ['5 | 10', '2 | 11', '4 | 12', '6 | 13'],
    },
  ],
}, {
  page: 'sql/queries/set-ops.md',
  cases: [
    { name: 'UNION', sql: `${SETS} (SELECT s FROM t1) UNION (SELECT s FROM t2)`, expect: ['a', 'b', 'c', 'd', 'e'] },
    { name: 'UNION ALL', sql: `${SETS} (SELECT s FROM t1) UNION ALL (SELECT s FROM t2)`, expect: ['c', 'a', 'b', 'b', 'c', 'd', 'e', 'a', 'b', 'b'] },
    { name: 'INTERSECT', sql: `${SETS} (SELECT s FROM t1) INTERSECT (SELECT s FROM t2)`, expect: ['a', 'b'] },
    { name: 'INTERSECT ALL', sql: `${SETS} (SELECT s FROM t1) INTERSECT ALL (SELECT s FROM t2)`, expect: ['a', 'b', 'b'] },
    { name: 'EXCEPT', sql: `${SETS} (SELECT s FROM t1) EXCEPT (SELECT s FROM t2)`, expect: ['c'] },
    { name: 'EXCEPT ALL', sql: `${SETS} (SELECT s FROM t1) EXCEPT ALL (SELECT s FROM t2)`, expect: ['c', 'c'] },
    { name: 'IN (subquery)', sql: `${SETS} SELECT s FROM t1 WHERE s IN (SELECT s FROM t2)`, expect: ['a', 'b', 'b'] },
    { name: 'EXISTS (subquery)', sql: `${SETS} SELECT s FROM t1 WHERE EXISTS (SELECT s FROM t2 WHERE t2.s = t1.s)`, expect: ['a', 'b', 'b'] },
  ],
}, {
  page: 'sql/queries/orderby.md and limit.md',
  tables: [ORDERS],
  cases: [
    {
      name: 'ORDER BY the time attribute first',
      sql: 'SELECT order_time, order_id FROM Orders ORDER BY order_time, order_id DESC',
      expect: ['1', '2', '3', '4', '5', '6'].map(i => `2024-01-01 08:00:0${i}.000 | ${i}`),
      ordered: true,
    },
    {
      name: 'ORDER BY a column the query does not select',
      sql: 'SELECT order_id FROM Orders ORDER BY order_time, amount',
      expect: ['1', '2', '3', '4', '5', '6'],
      ordered: true,
    },
    { name: 'ORDER BY … DESC LIMIT over a bounded table', sql: 'SELECT order_id, amount FROM Orders ORDER BY amount DESC LIMIT 3',
      expect: ['4 | 7', '2 | 5', '6 | 4'], ordered: true },
    { name: 'LIMIT alone', sql: 'SELECT COUNT(*) FROM (SELECT * FROM Orders LIMIT 3)', expect: ['3'] },
    {
      name: 'FETCH FIRST n ROWS ONLY',
      sql: 'SELECT order_id, product FROM Orders ORDER BY order_id FETCH FIRST 2 ROWS ONLY',
      expect: ['1 | apple', '2 | pear'],
      ordered: true,
    },
  ],
}]
