// The `weir` command's usage text, kept apart so --help and --version load nothing else.
export const USAGE = `weir — streaming SQL

usage:
  weir                            the interactive SQL REPL (same as weir repl)
  weir repl [--init FILE.sql]     the REPL; --init runs FILE's DDL and SET first. With stdin not a terminal
                                  (weir repl < script.sql) it runs the statements and prints plain text
  weir run FILE.sql [options]     run the statements of FILE; INSERT INTO starts a job; waits for every job
      --fresh                     start from scratch, not from the job's latest checkpoint or savepoint
      --from-checkpoint PATH      start from this checkpoint folder (…/<job>/chk-<n>)
      --from-savepoint PATH       start from this savepoint folder (…/<job>/savepoint-<n>)
      --quiet, -q                 no progress messages
      --stats [INTERVAL]          print every operator subtask's rows in/out, rows/s, busy and backpressured %,
                                  watermark, state size and last checkpoint to stderr every INTERVAL
                                  (default 5s; 2s, 500ms, 1min) and at the end
  weir savepoint FILE.sql         take a savepoint of the jobs \`weir run FILE.sql\` runs here, stop them, print where it is
  weir explain FILE.sql           print the plan of each INSERT / SELECT in FILE (DDL and SET are applied)
  weir --version | --help

In FILE, statements end with ';'. Options are set with SET 'key' = 'value'.
A job resumes from its latest checkpoint or savepoint in 'state.checkpoints.dir' (default .weir/checkpoints).
Ctrl-C stops the running jobs without a savepoint; SIGTERM (or weir savepoint) stops them with one.`
