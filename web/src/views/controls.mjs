// Controls that several views show (each view lists the ones it shows in `controls`). A
// control declares its state keys with their defaults, its hash/attribute parameters and
// build(ui) → {element, sync(state)}; `ui` is the small interface of views/index.mjs.

import { enumParam } from '../view-state.mjs';
import { toggle } from '../widgets.mjs';

/** Bars on a fixed 0–1 scale (the same for every head) or fitted to the row. */
export const scaleControl = {
  name: 'scale',
  state: { scale: 'auto' },
  params: [enumParam('scale', {
    values: ['auto', 'fixed'], toState: (scale) => ({ scale }), fromState: (s) => s.scale, isDefault: (s) => s.scale === 'auto',
    used: (s) => ['problem.usedScale', { scale: s.scale }],
  })],
  build(ui) {
    const { input, control } = toggle('scale-toggle', null, ui.t('control.scale'), (on) => ui.select({ scale: on ? 'fixed' : 'auto' }));
    return { element: control, sync: (state) => { input.checked = state.scale === 'fixed'; } };
  },
};

/** [CLS] and [SEP] hidden, the other weights renormalised (exBERT's option). */
export const specialControl = {
  name: 'special',
  state: { hideSpecial: false },
  params: [enumParam('special', {
    values: ['show', 'hide'], toState: (word) => ({ hideSpecial: word === 'hide' }), fromState: () => 'hide', isDefault: (s) => !s.hideSpecial,
    used: (s) => [s.hideSpecial ? 'problem.usedSpecialHidden' : 'problem.usedSpecialShown', {}],
  })],
  build(ui) {
    const { input, control } = toggle('special-toggle', null, ui.t('control.special'), (on) => ui.select({ hideSpecial: on }));
    return { element: control, sync: (state) => { input.checked = state.hideSpecial; } };
  },
};
