// Steps of a browser script that build on each other: after the first
// failure the rest are skipped (and counted as failed). onFail(name) runs
// when a step fails, e.g. to take a screenshot; its own errors are ignored.
export function steps(onFail) {
  const s = { passed: 0, failed: 0 };
  let stop = false;
  s.check = async (name, fn) => {
    if (stop) {
      console.log(`skip ${name} (an earlier step failed)`);
      s.failed++;
      return;
    }
    try {
      await fn();
      s.passed++;
      console.log(`ok   ${name}`);
    } catch (e) {
      s.failed++;
      stop = true;
      console.log(`FAIL ${name}\n${e.stack ?? e}`);
      await Promise.resolve().then(() => onFail(name)).catch(() => {});
    }
  };
  return s;
}
