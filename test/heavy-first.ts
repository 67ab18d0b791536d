// The order files start in: the longest first, so that no long file starts last and runs on alone while
// the other workers have nothing left (on two cores the suite is CPU-bound until its last minutes). A
// fresh clone has no record of earlier runs, and vitest would then start the largest files first, which
// are not the slowest (the bench smoke run is a small file that starts 18 benches). The list is the ten
// slowest files of a measured run (the run's report ends with them); every other file follows in
// vitest's own order (its record of durations, else file size).
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const SLOWEST = [
  'bench/smoke.test.ts',
  'apps/server/test/einvoice-inbound.test.ts',
  'apps/server/test/startup.test.ts',
  'apps/server/test/fuzz.test.ts',
  'apps/server/test/faults.test.ts',
  'apps/server/test/backup.test.ts',
  'apps/server/test/webhook-faults.test.ts',
  'apps/server/test/saft.test.ts',
  'apps/server/test/admin.test.ts',
  'apps/server/test/openapi-lint.test.ts',
];

export default class HeavyFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification) => {
      const i = SLOWEST.findIndex((s) => f.moduleId.endsWith(`/${s}`));
      return i < 0 ? SLOWEST.length : i;
    };
    const sorted = await super.sort(files);
    // Array.prototype.sort is stable: the rest keeps vitest's order.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}
