// The page's worker (worker.mjs: the converter, shares of the mean head importance), started
// from a blob URL: the bundle carries its code (ATTN_WORKER, tools/build-web.mjs), so a page
// opened from file:// has one too.

/* global ATTN_WORKER */
const WORKER_SOURCE = typeof ATTN_WORKER === 'string' ? ATTN_WORKER : null;

/** A new worker, or null where the page can have none (web/src loaded unbundled, or no Worker). A content security policy without blob: shows as the worker's error event. */
export function startPageWorker() {
  if (!WORKER_SOURCE || typeof Worker !== 'function') return null;
  const url = URL.createObjectURL(new Blob([WORKER_SOURCE], { type: 'text/javascript' }));
  try { return new Worker(url); } catch { return null; } finally { URL.revokeObjectURL(url); }
}
