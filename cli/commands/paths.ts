// Where `weir` keeps its files in the directory it runs in.
import { resolve } from 'node:path'

/** `weir run FILE.sql` holds its run lock here (`<name>/`: its pid and start time) while it runs, for `weir savepoint FILE.sql`. */
export const RUN_DIR = resolve('.weir/run')
