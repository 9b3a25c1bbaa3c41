// Export: the Save buttons download the current view as PNG and SVG files.
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { FILE, OUT, check, explorer, newPage, url, waitDrawn } from '../lib/session.mjs';

export async function testExport() {
  const page = await newPage();
  await page.goto(url(FILE, 'index.html'));
  await waitDrawn(page);
  for (const [button, magic, ext] of [['.save-png', '\x89PNG', 'png'], ['.save-svg', '<?xml', 'svg']]) {
    const [download] = await Promise.all([page.waitForEvent('download'), explorer(page).locator(button).click()]);
    const file = path.join(OUT, `export.${ext}`);
    await download.saveAs(file);
    const head = (await readFile(file)).subarray(0, 5).toString('latin1');
    const size = (await stat(file)).size;
    check(`export: ${ext.toUpperCase()} of the current view (${download.suggestedFilename()}, ${size} bytes)`, head.startsWith(magic) && size > 1000);
  }
  const svgText = await readFile(path.join(OUT, 'export.svg'), 'utf8');
  check('export: the SVG names the attention it shows', svgText.includes('Layer 1 · head 1'));
  check('export: no page errors', page.problems.length === 0, page.problems.join('; '));
  await page.context().close();
}
