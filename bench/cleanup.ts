// What every benchmark needs to stop by itself: a stack of clean-up steps run once, in reverse order,
// on normal end, on SIGINT/SIGTERM, and with output readers that go away (| head) ignored.
// With `limitMs`, the run also stops itself (exit 124) once that much time has passed.
export function cleanupStack(log: (m: string) => void, limitMs?: number) {
  const steps: (() => Promise<void>)[] = [];
  let running: Promise<void> | undefined;
  const run = () =>
    (running ??= (async () => {
      for (const step of steps.reverse()) await step().catch((e) => log(`cleanup: ${e}`));
    })());
  process.once('SIGINT', () => void run().then(() => process.exit(130)));
  process.once('SIGTERM', () => void run().then(() => process.exit(143)));
  // Ctrl-C reaches the whole process group and tlr.mjs relays it once more: a second SIGINT must not end
  // the process (default action) while the first one's clean-up runs.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => {});
  const deadline =
    limitMs === undefined
      ? undefined
      : setTimeout(() => {
          log(`time limit of ${limitMs / 1000} s reached: stopping`);
          void run().then(() => process.exit(124));
        }, limitMs).unref();
  // A reader that goes away (| head) must not kill the run before it has stopped what it started.
  process.stdout.on('error', () => {});
  process.stderr.on('error', () => {});
  return { push: (step: () => Promise<void>) => void steps.push(step), run: () => (clearTimeout(deadline), run()) };
}
