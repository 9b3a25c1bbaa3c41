// The page's main-thread tasks in a Chromium trace (Tracing.dataCollected events): used by the
// timing test and bench/scale.mjs to find the longest task while typing.

/** Task durations (ms, longest first) of the renderer main thread with the most task time. */
export function mainThreadTasks(events) {
  const names = new Map(events.filter((e) => e.ph === 'M' && e.name === 'thread_name').map((e) => [`${e.pid}:${e.tid}`, e.args.name]));
  const threads = new Map();
  for (const e of events) {
    const key = `${e.pid}:${e.tid}`;
    if (e.ph !== 'X' || e.name !== 'ThreadControllerImpl::RunTask' || names.get(key) !== 'CrRendererMain') continue;
    threads.set(key, [...(threads.get(key) ?? []), e.dur / 1000]);
  }
  const total = (tasks) => tasks.reduce((a, b) => a + b, 0);
  return ([...threads.values()].sort((a, b) => total(b) - total(a))[0] ?? []).sort((a, b) => b - a);
}
