-- error: unexpected
-- at: 4:10
CREATE TABLE t (a INT) WITH ('connector' = 'datagen');
SELECT a FORM t;
