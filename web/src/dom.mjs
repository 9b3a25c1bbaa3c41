// Small DOM helpers. Text always goes in through textContent and attributes through
// setAttribute, so nothing a user types is ever parsed as markup.

export const SVG_NS = 'http://www.w3.org/2000/svg';

function applyAttributes(element, attributes) {
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'text') element.textContent = String(value);
    else if (name === 'dataset') Object.assign(element.dataset, value);
    else if (name.startsWith('on') && typeof value === 'function') {
      element.addEventListener(name.slice(2), value);
    } else element.setAttribute(name, value === true ? '' : String(value));
  }
}

function appendChildren(element, children) {
  for (const child of [children].flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** html('button', {class: 'x', text: 'Go', onclick: fn}, children) */
export function html(name, attributes = {}, children = []) {
  const element = document.createElement(name);
  applyAttributes(element, attributes);
  appendChildren(element, children);
  return element;
}

/** svg('rect', {x: 0, y: 0, width: 4, height: 4}) */
export function svg(name, attributes = {}, children = []) {
  const element = document.createElementNS(SVG_NS, name);
  applyAttributes(element, attributes);
  appendChildren(element, children);
  return element;
}

/** A getter for one stylesheet of `css`, built on first use and shared by every shadow root
 * that adopts it. */
export function sharedStyleSheet(css) {
  let sheet = null;
  return () => {
    if (!sheet) {
      sheet = new CSSStyleSheet();
      sheet.replaceSync(css);
    }
    return sheet;
  };
}

export function replaceChildrenOf(element, children) {
  element.replaceChildren();
  appendChildren(element, children);
}

let measureContext = null;
const widthCache = new Map();

/** Width in px of `text` in the figure font at `size` px (cached; canvas measureText). */
export function textWidth(text, size = 12, weight = 400) {
  const key = `${weight}|${size}|${text}`;
  let width = widthCache.get(key);
  if (width !== undefined) return width;
  if (!measureContext) measureContext = document.createElement('canvas').getContext('2d');
  measureContext.font = `${weight} ${size}px ${FIGURE_FONT}`;
  width = measureContext.measureText(text).width;
  if (widthCache.size > 5000) widthCache.clear();
  widthCache.set(key, width);
  return width;
}

export const FIGURE_FONT =
  'system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "DejaVu Sans", sans-serif';
