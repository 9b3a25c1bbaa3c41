// A tiny static server for the browser suites' http cases, on 127.0.0.1 at a free port.
// Serves `root`, and the directories in `served` under their URL prefixes; answers one range
// per request, as the page asks for the weights' parts. The maps let a test make the server
// misbehave: `noRanges` paths are served whole whatever the Range header asks (a server
// without ranges), `missingRanges` (path → [from, to)) answer 404 to range requests starting
// there, `slowRanges` (path → [first byte, ms, end byte]) answer range requests starting from
// there (up to the end byte, if given) that much later.
import http from 'node:http';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript',
  '.css': 'text/css', '.wasm': 'application/wasm', '.bin': 'application/octet-stream', '.svg': 'image/svg+xml' };

export function startServer(root, { served = new Map(), noRanges = new Set(), missingRanges = new Map(), slowRanges = new Map() } = {}) {
  const server = http.createServer(async (request, response) => {
    try {
      const pathname = decodeURIComponent(new URL(request.url, 'http://localhost').pathname);
      const prefix = [...served.keys()].find((p) => pathname.startsWith(p));
      const dir = prefix ? served.get(prefix) : root;
      const file = path.join(dir, path.normalize(prefix ? pathname.slice(prefix.length - 1) : pathname));
      if (!file.startsWith(dir + path.sep)) throw new Error('outside');
      const data = await readFile(file);
      const type = TYPES[path.extname(file)] || 'application/octet-stream';
      const range = /^bytes=(\d+)-(\d*)$/.exec(request.headers.range || '');
      if (range && !noRanges.has(pathname)) {
        const start = Number(range[1]);
        const [missingFrom, missingTo] = missingRanges.get(pathname) ?? [Infinity, Infinity];
        if (start >= missingFrom && start < missingTo) throw new Error('a range made missing');
        const [slowFrom, delay, slowTo = Infinity] = slowRanges.get(pathname) ?? [Infinity, 0];
        if (start >= slowFrom && start < slowTo) await new Promise((resolve) => setTimeout(resolve, delay));
        const end = Math.min(range[2] ? Number(range[2]) + 1 : data.length, data.length);
        if (start >= data.length || end <= start) {
          response.writeHead(416, { 'content-range': `bytes */${data.length}` });
          response.end();
          return;
        }
        response.writeHead(206, { 'content-type': type, 'content-length': end - start, 'accept-ranges': 'bytes',
          'content-range': `bytes ${start}-${end - 1}/${data.length}` });
        response.end(data.subarray(start, end));
        return;
      }
      response.writeHead(200, { 'content-type': type, 'content-length': data.length });
      response.end(data);
    } catch {
      response.writeHead(404, { 'content-type': 'text/plain' });
      response.end('not found');
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}
