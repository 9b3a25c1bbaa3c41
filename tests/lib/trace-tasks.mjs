// The page's main-thread tasks in a Chromium trace (Tracing.dataCollected events): used by the
// timing test and bench/scale.mjs to find the longest task while typing.

/** Task durations (ms, longest first) of the renderer main thread with the most task time. */
function mainThreadTasks(events) {
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

/**
 * Starts a Chromium trace of the page's tasks on a CDP session; the function it returns ends the
 * trace and gives mainThreadTasks of what was recorded.
 */
export async function traceMainThreadTasks(cdp) {
  const events = [];
  cdp.on('Tracing.dataCollected', (e) => events.push(...e.value));
  await cdp.send('Tracing.start', { categories: 'toplevel,devtools.timeline', transferMode: 'ReportEvents' });
  return async () => {
    const done = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
    await cdp.send('Tracing.end');
    await done;
    return mainThreadTasks(events);
  };
}
