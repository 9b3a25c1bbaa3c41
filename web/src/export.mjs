// Saves the current figure as SVG or PNG. The live figure is styled by the explorer's
// stylesheet; the exported copy carries its computed colours and fonts as attributes so
// it looks the same anywhere.

import { FIGURE_FONT } from './dom.mjs';

const STYLE_PROPERTIES = [
  'fill', 'fill-opacity', 'stroke', 'stroke-width', 'stroke-dasharray', 'stroke-opacity', 'opacity',
  'font-size', 'font-weight', 'font-style', 'visibility',
];

function inlineStyles(live, copy) {
  const computed = getComputedStyle(live);
  for (const property of STYLE_PROPERTIES) {
    const value = computed.getPropertyValue(property);
    if (value && !copy.hasAttribute(property)) copy.setAttribute(property, value);
  }
  copy.removeAttribute('class');
  copy.removeAttribute('tabindex');
  const liveChildren = live.children, copyChildren = copy.children;
  for (let i = 0; i < liveChildren.length; i++) inlineStyles(liveChildren[i], copyChildren[i]);
}

/** A standalone SVG document for a figure. */
export function figureToSvgText(figure) {
  const copy = figure.cloneNode(true);
  inlineStyles(figure, copy);
  copy.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
  copy.setAttribute('font-family', FIGURE_FONT);
  for (const element of copy.querySelectorAll('[visibility="hidden"]')) element.remove();
  return '<?xml version="1.0" encoding="UTF-8"?>\n' + new XMLSerializer().serializeToString(copy);
}

function download(blob, name) {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.rel = 'noopener';
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

export function saveSvg(figure, name) {
  download(new Blob([figureToSvgText(figure)], { type: 'image/svg+xml' }), `${name}.svg`);
}

/** Draws the SVG on a canvas at 2× and saves it as PNG. */
export async function savePng(figure, name) {
  const text = figureToSvgText(figure);
  const url = URL.createObjectURL(new Blob([text], { type: 'image/svg+xml' }));
  try {
    const image = new Image();
    image.src = url;
    await image.decode();
    const scale = 2;
    const canvas = document.createElement('canvas');
    canvas.width = Math.ceil(Number(figure.getAttribute('width')) * scale);
    canvas.height = Math.ceil(Number(figure.getAttribute('height')) * scale);
    const context = canvas.getContext('2d');
    context.scale(scale, scale);
    context.drawImage(image, 0, 0);
    const blob = await new Promise((resolve) => canvas.toBlob(resolve, 'image/png'));
    download(blob, `${name}.png`);
  } finally {
    URL.revokeObjectURL(url);
  }
}
