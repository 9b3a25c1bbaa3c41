// Colour scales. Sequential: ColorBrewer Blues (light) and viridis (dark); diverging:
// ColorBrewer PuOr (orange for negative, purple for positive); categorical: Okabe–Ito.
// All are distinguishable with the common colour-vision deficiencies.

const SEQUENTIAL = {
  light: ['#f7fbff', '#deebf7', '#c6dbef', '#9ecae1', '#6baed6', '#4292c6', '#2171b5', '#08519c', '#08306b'],
  dark: ['#1a1d24', '#2b1f4d', '#3b2f7a', '#31688e', '#26828e', '#1f9e89', '#35b779', '#90d743', '#fde725'],
};
const DIVERGING = {
  light: ['#b35806', '#e08214', '#fdb863', '#fee0b6', '#f7f7f7', '#d8daeb', '#b2abd2', '#8073ac', '#542788'],
  dark: ['#f1a340', '#d08a2e', '#8f5b1f', '#4a3520', '#22252c', '#3b3560', '#6f64a8', '#a49ad8', '#d8d2f7'],
};

/** Okabe–Ito colours used for the columns of a figure (head, rollout, compare B, …). */
export const SERIES = {
  light: { head: '#0072b2', rollout: '#d55e00', second: '#009e73', whatif: '#cc79a7', muted: '#7a7f87' },
  dark: { head: '#56b4e9', rollout: '#e69f00', second: '#2fd1a0', whatif: '#e59ac6', muted: '#9aa0a8' },
};

function parseHex(hex) {
  const v = parseInt(hex.slice(1), 16);
  return [(v >> 16) & 255, (v >> 8) & 255, v & 255];
}

const parsedStops = new Map();
function stopsOf(list) {
  let parsed = parsedStops.get(list);
  if (!parsed) parsedStops.set(list, (parsed = list.map(parseHex)));
  return parsed;
}

function interpolate(list, t) {
  const stops = stopsOf(list);
  const x = Math.min(1, Math.max(0, Number.isFinite(t) ? t : 0)) * (stops.length - 1);
  const i = Math.min(stops.length - 2, Math.floor(x));
  const f = x - i;
  return stops[i].map((c, k) => Math.round(c + (stops[i + 1][k] - c) * f));
}

/** [r, g, b] for t in [0, 1]. */
export function sequentialRgb(t, theme) {
  return interpolate(SEQUENTIAL[theme], t);
}

export function sequential(t, theme) {
  const [r, g, b] = sequentialRgb(t, theme);
  return `rgb(${r},${g},${b})`;
}

/** t in [-1, 1]; 0 is the neutral middle. */
export function diverging(t, theme) {
  const [r, g, b] = interpolate(DIVERGING[theme], (t + 1) / 2);
  return `rgb(${r},${g},${b})`;
}

/** Black or white text, whichever reads better on an sRGB background. */
export function inkOn([r, g, b]) {
  const luminance = (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
  return luminance > 0.55 ? '#111' : '#fff';
}

/** Okabe–Ito, for the heads of a layer overlaid in one figure. */
const HEAD_COLOURS = {
  light: ['#0072b2', '#d55e00', '#009e73', '#cc79a7', '#e69f00', '#56b4e9', '#7a5c00', '#000000'],
  dark: ['#56b4e9', '#e69f00', '#2fd1a0', '#e59ac6', '#f0e442', '#0099e6', '#ff7f50', '#ffffff'],
};

/** A distinct colour for head h of `heads` (evenly spaced hues when there are more than 8). */
export function headColour(h, heads, theme) {
  const list = HEAD_COLOURS[theme];
  if (heads <= list.length) return list[h];
  return `hsl(${Math.round((360 * h) / heads)}, 75%, ${theme === 'dark' ? 65 : 40}%)`;
}
