// A vitest reporter that ends the run with its ten slowest files (wall time of each file, set-up
// included) and the ten that took the most CPU (the integration files' own and their child processes',
// test/file-cpu.ts): where the next minute of the suite is to be found.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Reporter, TestModule, Vitest } from 'vitest/node';
import { CPU_LOG_DIR } from './file-cpu.ts';

const table = (rows: { file: string; s: number }[]) => rows.map(({ file, s }) => `  ${s.toFixed(1).padStart(6)} s  ${file}`).join('\n');

export default class SlowestFiles implements Reporter {
  private root = process.cwd();
  private runId: string | undefined;

  onInit(vitest: Vitest) {
    this.root = vitest.config.root;
  }

  onTestRunStart() {
    this.runId = undefined;
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>) {
    const timed = modules
      .map((m) => {
        const d = m.diagnostic();
        return { file: m.relativeModuleId, s: (d.environmentSetupDuration + d.prepareDuration + d.setupDuration + d.collectDuration + d.duration) / 1000 };
      })
      .sort((a, b) => b.s - a.s)
      .slice(0, 10);
    if (timed.length) process.stdout.write(`\nThe ten slowest files (wall time):\n${table(timed)}\n`);
    const template = modules.map((m) => m.project.getProvidedContext().templateDatabase as string | undefined).find(Boolean);
    const log = template && join(CPU_LOG_DIR, `${template}.jsonl`);
    if (!log || !existsSync(log)) return;
    const rows = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { file: string; seconds: number })
      .map(({ file, seconds }) => ({ file: relative(this.root, file), s: seconds }));
    rmSync(log, { force: true });
    const total = rows.reduce((sum, r) => sum + r.s, 0);
    const top = rows.sort((a, b) => b.s - a.s).slice(0, 10);
    process.stdout.write(`\nThe ten files that took the most CPU (of ${total.toFixed(0)} s in the integration files):\n${table(top)}\n`);
  }
}
