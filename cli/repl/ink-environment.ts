// How the REPL loads Ink and React: both read the environment once, when they load.
//
// - Ink reads CI and CONTINUOUS_INTEGRATION and, with either set, draws nothing but its static
//   output until the app exits: no prompt, no live result. At a terminal the user asked for the
//   interactive REPL (a CI runner's shell or a build container exports CI=true), so Ink loads
//   without them.
// - React picks its development build unless NODE_ENV is 'production': that build checks and
//   records every element, and made a frame of the live table several times slower
//   (bench/repl/frame.ts). React loads as production unless NODE_ENV was set.
//
// The variables are back as they were once the modules are loaded, before any job starts.

/** Runs `load` (the dynamic imports of Ink, React and what uses them) in that environment. */
export async function withInkEnvironment<T>(load: () => Promise<T>): Promise<T> {
  const saved = { CI: process.env['CI'], CONTINUOUS_INTEGRATION: process.env['CONTINUOUS_INTEGRATION'], NODE_ENV: process.env['NODE_ENV'] }
  delete process.env['CI']
  delete process.env['CONTINUOUS_INTEGRATION']
  process.env['NODE_ENV'] ??= 'production'
  try {
    return await load()
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k]
      else process.env[k] = v
    }
  }
}
