// The views, in tab order. A view is one module exporting an object that declares all of it:
//   id, aliases    the name in `view=` (and older names that keep working)
//   labelKey       the catalogue key of its tab's label (i18n/en.mjs); `messages` ({en, fr, …})
//                  may bring a view's own catalogue entries
//   state          its own state keys with their defaults
//   shapeState(shape)  the state keys whose value follows the model's shape ({key: value}): set
//                  when a model is shown unless the reader chose one (a control may declare it too)
//   params         its URL-hash/attribute parameters ({name, read, write}; view-state.mjs helpers)
//   controls       the controls it shows above the figure: shared ones (controls.mjs) or its own
//                  ({name, state, params, build(ui) → {element, sync(state)}})
//   focus          the selector of the element its keyboard handling focuses in the figure
//   readout        true when it writes the line under the figure
//   ownsClicks     true when it handles clicks on its figure itself (without the token strip,
//                  a click on a row of any other figure drawn a row per token picks that token)
//   redrawsAsWeightsArrive  true when it shows the progress of the weights still loading
//   compareText(state)  sentence B's text, for a view that reads a second run beside sentence
//                  A's (the run scheduler runs it in a session of its own, with A's)
//   layersShown(state, shape)  how many layers, from the first, it reads (default: up to the
//                  chosen layer); it is drawn once a run has them, while the others compute
//   render(ctx)    → {figure, notes, wire?(figure, ui)}
// The element, the hash, the keyboard handling and the tests iterate this list: adding a view
// is adding its module and its line here (or registerView from a page's script).
// `ui`, the interface a view's controls and wire get: {state, shape, tokens, t, id(name),
// select(changes, focus), type(changes, event), runNow(changes), toggleHead(layer, head, focus),
// isOff(layer, head), readout, notes}. The heads switched off (`off`) are the element's own
// control (view-state.mjs ELEMENT_CONTROLS): every view shows the model without them.

import { controlSources } from '../view-state.mjs';
import { rowView } from './row.mjs';
import { gridView } from './grid.mjs';
import { headView } from './head-view.mjs';
import { rolloutView } from './rollout.mjs';
import { matrixView } from './matrix.mjs';
import { entropyView } from './entropy.mjs';
import { contributionsView } from './contributions.mjs';
import { mlmView } from './mlm.mjs';
import { compareView } from './compare.mjs';
import { layerView } from './layer.mjs';
import { scalingView } from './scaling.mjs';
import { importanceView } from './importance.mjs';
import { addMessages } from '../i18n/index.mjs';

export const VIEWS = [rowView, gridView, headView, rolloutView, matrixView, entropyView, contributionsView, mlmView, compareView, layerView, scalingView, importanceView];

/** A view's own catalogue entries (`messages: {en: {…}, fr: {…}}`) join the catalogues. */
function addViewMessages(view) {
  for (const [lang, messages] of Object.entries(view.messages ?? {})) addMessages(lang, messages);
}
VIEWS.forEach(addViewMessages);

const normalName = (name) => String(name ?? '').trim().toLowerCase();

/** The view a name means: its id or one of its aliases, in any case; or undefined. */
export function findView(name) {
  const wanted = normalName(name);
  return VIEWS.find((v) => v.id === wanted || (v.aliases ?? []).includes(wanted));
}

export const viewById = (id) => VIEWS.find((v) => v.id === id);

/** The layers the current view reads, from the first: a run draws it once they are done. */
export function layersShown(state, shape) {
  const view = viewById(state.view) ?? VIEWS[0];
  const count = view.layersShown ? view.layersShown(state, shape) : state.layer + 1;
  return Math.max(1, Math.min(shape.layers, count));
}

/**
 * Sets the state keys the views and their controls derive from the model's shape (shapeState):
 * those still null, or all of them for a newly shown model.
 */
export function fitStateToShape(state, shape, newModel = false) {
  for (const source of controlSources(VIEWS)) {
    const fitted = source.shapeState?.(shape) ?? {};
    for (const [key, value] of Object.entries(fitted)) if (newModel || state[key] === null) state[key] = value;
  }
}

/**
 * Adds a view after the built-in ones (before the explorers that show it are created). Its
 * attributes are observed only when it is registered before <attention-explorer> is defined;
 * its hash parameters always work.
 */
export function registerView(view) {
  const problems = [];
  if (!/^[a-z][a-z0-9-]*$/.test(view?.id ?? '')) problems.push('id must be kebab-case');
  for (const name of [view?.id, ...(view?.aliases ?? [])]) if (findView(name)) problems.push(`"${name}" is already a view's name`);
  if (typeof view?.render !== 'function') problems.push('render(ctx) is missing');
  if (typeof view?.labelKey !== 'string') problems.push('labelKey is missing');
  if (problems.length) throw new Error(`registerView: ${problems.join('; ')}`);
  addViewMessages(view);
  VIEWS.push(view);
  return view;
}
