import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['node_modules/**', 'dist/**'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // --expose-gc lets the leak check collect before it looks (test/support/file-handle-leaks.ts).
    execArgv: ['--expose-gc'],
    setupFiles: ['test/support/file-handle-leaks.ts'],
    env: {
      // The AWS SDK warns once per process that it will need Node 22 from 2027; the CLI silences it
      // the same way (cli/main.ts), and tests that start the SDK in-process must too.
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      // Ink, when it loads with CI set (CI runners export CI=true), draws only its static output until
      // the app exits; the REPL loads it without CI (cli/repl/ink-environment.ts), and the component
      // tests, which render the App themselves, need the same ('false' counts as unset).
      CI: 'false',
      CONTINUOUS_INTEGRATION: 'false',
    },
  },
})
