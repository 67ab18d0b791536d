// What every benchmark needs to stop by itself: a stack of clean-up steps run once, in reverse order,
// on normal end, on SIGINT/SIGTERM, and with output readers that go away (| head) ignored.
export function cleanupStack(log: (m: string) => void) {
  const steps: (() => Promise<void>)[] = [];
  let running: Promise<void> | undefined;
  const run = () =>
    (running ??= (async () => {
      for (const step of steps.reverse()) await step().catch((e) => log(`cleanup: ${e}`));
    })());
  process.once('SIGINT', () => void run().then(() => process.exit(130)));
  process.once('SIGTERM', () => void run().then(() => process.exit(143)));
  // A reader that goes away (| head) must not kill the run before it has stopped what it started.
  process.stdout.on('error', () => {});
  process.stderr.on('error', () => {});
  return { push: (step: () => Promise<void>) => void steps.push(step), run };
}
