// Runs the test binary as the cache stand-in's restore half.
require("child_process").execFileSync(process.env.STANDIN_BIN, [], {
  env: { ...process.env, PERFGATE_STANDIN: "cache-restore" },
  stdio: "inherit",
});
