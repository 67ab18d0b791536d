// A vitest reporter that ends the run with its ten slowest files (wall time of each file, set-up
// included): where the next minute of the suite is to be found.
import type { Reporter, TestModule } from 'vitest/node';

export default class SlowestFiles implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>) {
    const timed = modules
      .map((m) => {
        const d = m.diagnostic();
        return { file: m.relativeModuleId, ms: d.environmentSetupDuration + d.prepareDuration + d.setupDuration + d.collectDuration + d.duration };
      })
      .sort((a, b) => b.ms - a.ms)
      .slice(0, 10);
    if (!timed.length) return;
    const lines = timed.map(({ file, ms }) => `  ${(ms / 1000).toFixed(1).padStart(6)} s  ${file}`);
    process.stdout.write(`\nThe ten slowest files:\n${lines.join('\n')}\n`);
  }
}
