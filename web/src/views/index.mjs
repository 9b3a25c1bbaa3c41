// The views, in tab order. A view is one module exporting {id, label, controls, render}
// (optionally needsCompare: it reads sentence B's run; readout: it writes the line under the
// figure): adding a view is adding its file and one line here. render(ctx) returns
// {figure, notes, wire?(figure, explorer)}.
// controls name the shared controls it shows: 'rollout', 'whatif', 'compare', 'scale', 'special'.

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

export const VIEWS = [rowView, gridView, headView, rolloutView, matrixView, entropyView, contributionsView, mlmView, compareView, layerView, scalingView];
export const VIEW_IDS = VIEWS.map((v) => v.id);
export const viewById = (id) => VIEWS.find((v) => v.id === id);
