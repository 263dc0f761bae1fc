// Runs the test binary as the cache stand-in's save half.
require("child_process").execFileSync(process.env.STANDIN_BIN, [], {
  env: { ...process.env, PERFGATE_STANDIN: "cache-save" },
  stdio: "inherit",
});
