// Layout checks run inside the page: every text box of the current figure must lie inside
// the figure, no two may intersect, the figure must fit the width of its box, and nothing
// in the explorer may scroll sideways. Boxes are the browser's own (getBoundingClientRect),
// so rotated labels, fonts and wrapping are measured as drawn.
//
// With { box: 'ink' } a text's box is narrowed vertically to its glyphs' ink, measured on a
// canvas in the text's font. Firefox's box of an SVG text is the font's cell rounded up plus
// a pixel on each side (19 px for 13 px DejaVu Sans; Chromium's is 15 px), so caption lines
// set 17 px apart overlap by box while 4 px lie between their glyphs. Rotated text keeps the
// browser's box.

/**
 * Runs in the page: problems of explorer `index`'s current view, as strings (empty = clean).
 * Called as page.evaluate(layoutProblemsInPage, index) or, with options, as
 * page.evaluate(layoutProblemsInPage, [index, { box: 'ink' }]) (Playwright passes one argument).
 */
export function layoutProblemsInPage(where) {
  const [index, { box: textBox = 'font' } = {}] = Array.isArray(where) ? where : [where];
  const TOLERANCE = 1.5; // px: neighbouring rows may touch, not overlap
  const canvas = textBox === 'ink' ? document.createElement('canvas').getContext('2d') : null;
  const boxOf = (t) => {
    const r = t.getBoundingClientRect();
    const m = t.getScreenCTM();
    if (!canvas || !m || Math.abs(m.b) > 1e-6 || Math.abs(m.c) > 1e-6) return r;
    const style = getComputedStyle(t);
    canvas.font = `${style.fontStyle} ${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    const metrics = canvas.measureText(t.textContent);
    const scale = Math.abs(m.d);
    const cell = (metrics.fontBoundingBoxAscent + metrics.fontBoundingBoxDescent) * scale;
    const baseline = r.top + (r.height - cell) / 2 + metrics.fontBoundingBoxAscent * scale;
    const top = baseline - metrics.actualBoundingBoxAscent * scale, bottom = baseline + metrics.actualBoundingBoxDescent * scale;
    return { left: r.left, right: r.right, width: r.width, top, bottom, height: bottom - top };
  };
  const element = document.querySelectorAll('attention-explorer')[index];
  const root = element.shadowRoot;
  const figure = root.querySelector('.figure-box > svg');
  const problems = [];
  if (!figure) return ['no figure'];
  const box = root.querySelector('.figure-box');
  const figureRect = figure.getBoundingClientRect();
  if (figureRect.width > box.clientWidth + 1) problems.push(`figure ${Math.round(figureRect.width)} px wide in a ${box.clientWidth} px box`);
  const explorerBox = root.querySelector('.explorer');
  if (explorerBox.scrollWidth > explorerBox.clientWidth + 1) problems.push(`explorer scrolls sideways (${explorerBox.scrollWidth} > ${explorerBox.clientWidth})`);
  // The model card, open or not, stays inside the explorer; nothing makes the page scroll sideways.
  const explorerRect = explorerBox.getBoundingClientRect();
  for (const part of root.querySelectorAll('.model-card, .model-card summary, .card-facts dt, .card-facts dd, .card-limits li')) {
    const r = part.getBoundingClientRect();
    if (r.width && (r.right > explorerRect.right + 1 || r.left < explorerRect.left - 1)) {
      problems.push(`model card: "${part.textContent.slice(0, 30)}" leaves the explorer (${Math.round(r.left)}–${Math.round(r.right)} px of ${Math.round(explorerRect.left)}–${Math.round(explorerRect.right)})`);
    }
  }
  const page = document.scrollingElement;
  if (page.scrollWidth > page.clientWidth + 1) problems.push(`the page scrolls sideways (${page.scrollWidth} > ${page.clientWidth})`);
  for (const block of root.querySelectorAll('.notes p, .readout, .view-controls, .tabs, .pickers, .model-card')) {
    if (block.scrollWidth > block.clientWidth + 1) problems.push(`${block.className} is cut (${block.scrollWidth} > ${block.clientWidth})`);
  }
  const texts = [...figure.querySelectorAll('text')].filter((t) => t.textContent.trim() && t.getClientRects().length &&
    getComputedStyle(t).display !== 'none' && getComputedStyle(t).visibility !== 'hidden');
  const boxes = texts.map((t) => ({ t, r: boxOf(t) })).filter(({ r }) => r.width > 0 && r.height > 0);
  const name = (t) => `"${t.textContent.slice(0, 30)}"`;
  for (const { t, r } of boxes) {
    if (r.left < figureRect.left - TOLERANCE || r.right > figureRect.right + TOLERANCE ||
        r.top < figureRect.top - TOLERANCE || r.bottom > figureRect.bottom + TOLERANCE) {
      problems.push(`${name(t)} is cut by the figure's edge`);
    }
  }
  boxes.sort((a, b) => a.r.top - b.r.top);
  for (let i = 0; i < boxes.length && problems.length < 20; i++) {
    const a = boxes[i].r;
    for (let j = i + 1; j < boxes.length; j++) {
      const b = boxes[j].r;
      if (b.top >= a.bottom - TOLERANCE) break;
      const overlapX = Math.min(a.right, b.right) - Math.max(a.left, b.left);
      const overlapY = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
      if (overlapX > TOLERANCE && overlapY > TOLERANCE) problems.push(`${name(boxes[i].t)} overlaps ${name(boxes[j].t)}`);
    }
  }
  return problems;
}
