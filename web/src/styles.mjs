// The explorer's stylesheet (adopted into its shadow root, so it works under a CSP
// without 'unsafe-inline'). Colours are custom properties; .theme-dark swaps them.

export const EXPLORER_CSS = `
:host { display: block; margin: 1.5rem 0; }
:host([hidden]) { display: none; }
* { box-sizing: border-box; }
.explorer {
  --bg: #ffffff; --ink: #1b1f24; --muted: #56606b; --line: #d8dde3; --line-strong: #8f99a4;
  --plot: #f3f5f8; --chosen-band: rgba(0, 114, 178, 0.09); --accent: #0072b2; --focus: #b35806;
  --special: #7b3fa0; --cell: #f7f8fa; --chip: #f1f3f6; --chip-on: #0072b2; --chip-on-ink: #ffffff;
  --warn-bg: #fff4e0; --warn-line: #e69f00; --error-bg: #fdecea; --error-line: #c0392b;
  --badge-positional: #fbe0cc; --badge-positional-ink: #8a3300; --badge-sink: #e6e8ec; --badge-sink-ink: #3b4350;
  --badge-broad: #d7ecf8; --badge-broad-ink: #00466e;
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "DejaVu Sans", sans-serif;
  color: var(--ink); background: var(--bg); border: 1px solid var(--line); border-radius: 14px;
  padding: 18px 20px 20px; container-type: inline-size;
}
.explorer.theme-dark {
  --bg: #15181d; --ink: #e9ecef; --muted: #a4adb8; --line: #2f353d; --line-strong: #65707c;
  --plot: #1c2027; --chosen-band: rgba(86, 180, 233, 0.13); --accent: #56b4e9; --focus: #e69f00;
  --special: #c9a4e0; --cell: #1b1f25; --chip: #232830; --chip-on: #56b4e9; --chip-on-ink: #0b1116;
  --warn-bg: #2f2613; --warn-line: #e69f00; --error-bg: #3a1d1a; --error-line: #ff8a7a;
  --badge-positional: #4a2a14; --badge-positional-ink: #ffc7a0; --badge-sink: #2c323a; --badge-sink-ink: #d2d8df;
  --badge-broad: #123247; --badge-broad-ink: #a8dcfa;
}
button, textarea, input { font: inherit; color: inherit; }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }

.status { display: flex; align-items: center; gap: 12px; color: var(--muted); font-size: 14px; min-height: 28px; }
.status[hidden] { display: none; }
.progress { flex: 0 0 160px; height: 6px; border-radius: 3px; background: var(--plot); overflow: hidden; border: 1px solid var(--line); }
.progress-bar { height: 100%; width: 0; background: var(--accent); transition: width 120ms linear; }
.progress.indeterminate .progress-bar { width: 35%; animation: slide 1.1s ease-in-out infinite alternate; }
@keyframes slide { from { margin-left: 0; } to { margin-left: 65%; } }
@media (prefers-reduced-motion: reduce) { .progress.indeterminate .progress-bar { animation: none; width: 100%; opacity: .5; } }
.error { border: 1px solid var(--error-line); background: var(--error-bg); border-radius: 10px; padding: 12px 14px; }
.error[hidden] { display: none; }
.error strong { display: block; margin-bottom: 4px; }
.error code { font-size: 13px; }
.main[hidden] { display: none; }

.field-label { display: block; font-weight: 600; font-size: 14px; margin: 0 0 6px; }
.field-help { font-weight: 400; color: var(--muted); }
textarea {
  width: 100%; min-height: 2.6em; resize: vertical; padding: 8px 10px; border-radius: 8px;
  border: 1px solid var(--line-strong); background: var(--bg); line-height: 1.4; font-size: 16px;
}
.token-info { display: flex; flex-wrap: wrap; gap: 4px 16px; justify-content: space-between; color: var(--muted); font-size: 13px; margin: 10px 0 6px; }
.notice { color: var(--ink); background: var(--warn-bg); border-left: 4px solid var(--warn-line); padding: 4px 10px; border-radius: 4px; margin: 6px 0; font-size: 14px; }
.notice[hidden] { display: none; }
.busy { font-size: 13px; color: var(--muted); }
.busy[hidden] { display: none; }
.tokens { display: flex; flex-wrap: wrap; gap: 5px; padding: 2px; max-height: 12.5em; overflow-y: auto; }
.token {
  border: 1px solid var(--line); background: var(--chip); border-radius: 7px; padding: 2px 8px 3px;
  cursor: pointer; font-size: 15px; line-height: 1.35; display: inline-flex; align-items: baseline; gap: 5px;
}
.token .index { font-size: 11px; color: var(--muted); font-variant-numeric: tabular-nums; }
.token .piece-mark { color: var(--muted); }
.token.special { border-style: dashed; border-color: var(--special); color: var(--special); font-size: 13px; font-weight: 600; }
.token[aria-selected="true"] { background: var(--chip-on); border-color: var(--chip-on); color: var(--chip-on-ink); }
.token[aria-selected="true"] .index, .token[aria-selected="true"] .piece-mark { color: inherit; opacity: .8; }
.mask-predictions { margin: 8px 0 0; font-size: 14px; }
.mask-predictions[hidden] { display: none; }
.mask-predictions .mask-line { margin: 2px 0; }
.mask-predictions b { font-weight: 600; }

.pickers { display: flex; flex-wrap: wrap; gap: 10px 22px; align-items: center; margin: 14px 0 10px; }
.picker { display: flex; align-items: center; gap: 6px; }
.picker-label { font-size: 14px; font-weight: 600; }
.segmented { display: inline-flex; border: 1px solid var(--line-strong); border-radius: 8px; overflow: hidden; }
.segmented button { border: 0; background: var(--bg); padding: 4px 12px; min-width: 2.4em; cursor: pointer; font-variant-numeric: tabular-nums; }
.segmented button + button { border-left: 1px solid var(--line); }
.segmented button[aria-checked="true"] { background: var(--accent); color: var(--chip-on-ink); font-weight: 600; }
.which { font-size: 14px; color: var(--muted); }
.which strong { color: var(--ink); }

.tabs { display: flex; flex-wrap: wrap; gap: 2px 4px; border-bottom: 1px solid var(--line); margin-top: 6px; }
.tab {
  border: 1px solid transparent; border-bottom: 0; background: none; padding: 7px 9px 8px; cursor: pointer;
  border-radius: 8px 8px 0 0; color: var(--muted); font-size: 14.5px; margin-bottom: -1px; white-space: nowrap;
}
.tab:hover { color: var(--ink); background: var(--plot); }
.tab[aria-selected="true"] { color: var(--ink); border-color: var(--line); background: var(--bg); font-weight: 650; box-shadow: inset 0 3px 0 var(--accent); }
.panel { padding-top: 12px; }
.view-controls { display: flex; flex-wrap: wrap; gap: 10px 20px; align-items: center; margin-bottom: 8px; }
.view-controls[hidden], .view-control[hidden] { display: none; }
.view-control { display: flex; flex-wrap: wrap; align-items: center; gap: 8px; width: 100%; }
.toggle { display: inline-flex; align-items: center; gap: 8px; cursor: pointer; font-size: 14.5px; }
.toggle input { width: 18px; height: 18px; accent-color: var(--accent); }
.whatif-tag { white-space: nowrap; font-size: 12px; font-weight: 700; letter-spacing: .04em; padding: 1px 6px; border-radius: 4px; background: var(--warn-bg); border: 1px solid var(--warn-line); }
.compare-box { width: 100%; }
.figure-box { width: 100%; overflow-x: auto; }
.figure-box.long { overflow-y: auto; max-height: min(80vh, 1400px); }
.figure-box svg { display: block; max-width: none; }
.figure-box svg:focus { outline: none; }
.figure-box svg:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.hover-readout { min-height: 1.5em; font-size: 14px; font-variant-numeric: tabular-nums; margin: 4px 0 0; }
.notes p { margin: 8px 0; }
.readout { display: flex; flex-wrap: wrap; gap: 6px 22px; font-size: 14.5px; }
.stat { display: inline-flex; gap: 6px; align-items: baseline; }
.stat-label { color: var(--muted); }
.stat-value { font-weight: 650; font-variant-numeric: tabular-nums; }
.reading { font-size: 15px; }
.hint { color: var(--muted); font-size: 14px; }
.warning { background: var(--warn-bg); border-left: 4px solid var(--warn-line); padding: 8px 12px; border-radius: 4px; font-size: 14.5px; }
.role-legend { display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px; font-size: 13.5px; color: var(--muted); margin: 8px 0; }
.role-legend dt { font-weight: 600; color: var(--ink); }
.role-legend dd { margin: 0; }
.actions { display: flex; flex-wrap: wrap; gap: 8px; margin-top: 12px; }
.actions button, .small-button {
  border: 1px solid var(--line-strong); background: var(--bg); border-radius: 8px; padding: 4px 12px; cursor: pointer; font-size: 14px;
}
.actions button:hover, .small-button:hover { background: var(--plot); }
.small-button:disabled { opacity: .5; cursor: default; }
.zoom-state { color: var(--muted); font-size: 13.5px; }
@media (max-width: 560px) {
  .explorer { padding: 12px 10px 14px; border-radius: 10px; }
}
@container (max-width: 520px) {
  .tab { padding: 6px 8px 7px; font-size: 13.5px; }
  .role-legend, .card-facts { grid-template-columns: 1fr; }
}

/* figures */
.figure text { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "DejaVu Sans", sans-serif; font-variant-numeric: tabular-nums; }
.fig-bg { fill: var(--bg); }
.fig-title { font-size: 15px; font-weight: 650; fill: var(--ink); }
.fig-sub { font-size: 13px; fill: var(--muted); }
.col-head { font-size: 13px; font-weight: 650; }
.col-head-ink { fill: var(--ink); }
.col-head-muted { font-size: 12.5px; font-weight: 600; fill: var(--muted); }
.col-stat { font-size: 12px; fill: var(--muted); }
.col-stat-main { fill: var(--ink); font-weight: 600; font-size: 12.5px; }
.tok { font-size: 12.5px; fill: var(--ink); }
.tok-special { fill: var(--special); font-weight: 600; }
.tok-chosen { font-weight: 750; text-decoration: underline; }
.tok-index { font-size: 11px; fill: var(--muted); }
.val { font-size: 11.5px; fill: var(--muted); }
.plot-bg { fill: var(--plot); }
.chosen-band { fill: var(--chosen-band); }
.uniform-line { stroke: var(--ink); stroke-width: 1.3; stroke-dasharray: 4 3; }
.uniform-line.thin { stroke-width: 0.8; stroke-dasharray: 3 2; stroke: var(--muted); }
.uniform-label { font-size: 11px; fill: var(--ink); }
.zero-line { stroke: var(--ink); stroke-width: 1; }
.axis { font-size: 11px; fill: var(--muted); }
.axis-line { stroke: var(--line-strong); stroke-width: 1; }
.legend-frame { fill: none; stroke: var(--line-strong); stroke-width: 1; }
.segment-line { stroke: var(--ink); stroke-width: 1.5; }
.head-cell { cursor: pointer; }
.head-cell:focus { outline: none; }
.cell-bg { fill: var(--cell); stroke: var(--line); stroke-width: 1; }
.head-cell:hover .cell-bg { stroke: var(--line-strong); }
.head-cell.selected .cell-bg { stroke: var(--accent); stroke-width: 2.5; }
.head-cell:focus-visible .cell-bg { stroke: var(--focus); stroke-width: 3; }
.cell-name { font-size: 12.5px; font-weight: 650; fill: var(--ink); }
.cell-sum { font-size: 11px; fill: var(--muted); }
.cell-ratio { font-size: 21px; font-weight: 700; fill: var(--ink); }
.cell-eff { font-size: 11.5px; fill: var(--muted); }
.cell-ratio-compact { font-size: 15px; font-weight: 700; fill: var(--ink); }
.badge { stroke: none; }
.badge-previous, .badge-next { fill: var(--badge-positional); }
.badge-cls-sink, .badge-sep-sink, .badge-punct-sink { fill: var(--badge-sink); }
.badge-broad { fill: var(--badge-broad); }
.badge-text { font-size: 10.5px; font-weight: 600; }
.badge-text-previous, .badge-text-next { fill: var(--badge-positional-ink); }
.badge-text-cls-sink, .badge-text-sep-sink, .badge-text-punct-sink { fill: var(--badge-sink-ink); }
.badge-text-broad { fill: var(--badge-broad-ink); }
.tok-sized { fill: var(--ink); }
.matrix-chosen { fill: none; stroke: var(--accent); stroke-width: 2; }
.matrix-cursor { fill: none; stroke: var(--focus); stroke-width: 2.5; }
.table-value { font-size: 13px; font-weight: 600; }
.table-chosen { fill: none; stroke: var(--ink); stroke-width: 3; }
.val-none { fill: var(--muted); }
.matrix-window { fill: none; stroke: var(--focus); stroke-width: 2; }
.matrix-image { image-rendering: pixelated; cursor: pointer; }
.isolating .hv-from { display: none; }
.isolating .hv-from.on { display: inline; }
.hv-left { cursor: pointer; }
.hv-left:focus { outline: none; }
.hv-left:focus-visible { text-decoration: underline; fill: var(--focus); }
.hv-current { font-weight: 700; fill: var(--ink); }
.ablation { display: flex; flex-wrap: wrap; align-items: center; gap: 6px 12px; color: var(--ink); background: var(--warn-bg); border-left: 4px solid var(--warn-line); padding: 5px 10px; border-radius: 4px; margin: 0 0 8px; font-size: 14px; }
.ablation[hidden] { display: none; }
.ablation-text strong { margin-right: 6px; }
.ablation-reset { font: inherit; font-size: 13.5px; padding: 3px 10px; border-radius: 6px; border: 1px solid var(--line-strong); background: var(--bg); color: var(--ink); cursor: pointer; }
.head-switch { cursor: pointer; }
.head-switch:focus { outline: none; }
.switch-track { fill: var(--accent); stroke: none; }
.switch-knob { fill: var(--bg); stroke: none; }
.switch-text { font-size: 11px; font-weight: 600; fill: var(--ink); }
.head-switch[aria-checked="false"] .switch-track { fill: var(--muted); }
.head-switch:focus-visible .switch-track { stroke: var(--focus); stroke-width: 3; }
.head-cell.head-off .cell-bg { stroke-dasharray: 5 3; fill: var(--bg); }
.head-cell.head-off .sparkline, .head-cell.head-off .cell-ratio, .head-cell.head-off .cell-ratio-compact { opacity: 0.45; }
.hv-line.off { stroke-dasharray: 4 3; }
.hv-legend-item { cursor: pointer; }
.hv-legend-item:focus { outline: none; }
.hv-legend-item:focus-visible text { text-decoration: underline; fill: var(--focus); }
.hv-legend-item[aria-pressed="true"] text { font-weight: 700; fill: var(--ink); text-decoration: underline; }
.hv-line.solo-hidden { display: none; }
.imp-cell { cursor: pointer; }
.imp-cell:focus { outline: none; }
.imp-cell:focus-visible .imp-bg { stroke: var(--focus); stroke-width: 3; }
.imp-chosen { fill: none; stroke: var(--ink); stroke-width: 3; }
.imp-bar-bg { fill: var(--plot); }
.imp-off .imp-bg { stroke: var(--line-strong); stroke-dasharray: 4 3; }
.imp-off-text { fill: var(--muted); font-style: italic; }
.imp-axis-zero { stroke: var(--ink); stroke-width: 1.5; }
.imp-axis-tick { stroke: var(--line-strong); }
.answer-label { display: inline-flex; flex-wrap: wrap; align-items: center; gap: 0.4em; }
.answer-input { font: inherit; width: 10em; max-width: 100%; }
.imp-progress-track { fill: var(--plot); stroke: var(--line-strong); }
.imp-progress-bar { fill: var(--accent); }
.token-stepper { display: flex; align-items: center; gap: 8px; margin: 0 0 6px; font-size: 14px; }
.token-stepper[hidden] { display: none; }
.token-stepper button { font: inherit; font-size: 18px; line-height: 1; min-width: 36px; min-height: 32px; border-radius: 6px; border: 1px solid var(--line-strong); background: var(--bg); color: var(--ink); cursor: pointer; }
.token-stepper button:disabled { opacity: 0.4; cursor: default; }
/* controls="compact": the pickers and the token stepper on one line, the figure, one line of reading;
   controls="none": the stepper above the figure. */
.controls-compact .sentence-label, .controls-compact textarea, .controls-compact .token-info, .controls-compact .tokens,
.controls-compact .mask-predictions, .controls-compact .which, .controls-compact .tabs, .controls-compact .view-controls,
.controls-compact .notes, .controls-compact .actions, .controls-compact .model-card-box, .controls-compact .hover-readout,
.controls-compact .convert-host,
.controls-none .sentence-label, .controls-none textarea, .controls-none .token-info, .controls-none .tokens,
.controls-none .picker, .controls-none .which, .controls-none .tabs, .controls-none .view-controls, .controls-none .notes, .controls-none .actions,
.controls-none .model-card-box, .controls-none .hover-readout, .controls-none .convert-host, .controls-none .stepper-short { display: none; }
.controls-compact .pickers { flex-wrap: nowrap; gap: 6px 10px; margin: 0 0 6px; }
.controls-compact .picker { gap: 4px; min-width: 0; }
.controls-compact .picker-label { font-size: 13px; }
.controls-compact .segmented button { padding: 3px 4px; min-width: 1.7em; min-height: 32px; }
.controls-compact .token-stepper { margin: 0; gap: 4px; min-width: 0; flex: 1 1 auto; justify-content: flex-end; }
.controls-compact .token-stepper button { min-width: 30px; }
/* compact: the short token text is shown, the whole one is still read out (a live region) */
.controls-compact .stepper-text { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
.stepper-short { font-size: 13.5px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; min-width: 0; }
.controls-none .pickers { margin: 0 0 6px; }
.compact-reading { margin: 4px 0 0; font-size: 13.5px; color: var(--muted); font-variant-numeric: tabular-nums; }
.compact-reading[hidden] { display: none; }
@container (max-width: 420px) {
  .controls-compact .picker-label { display: none; }
}
.problems { color: var(--ink); background: var(--warn-bg); border-left: 4px solid var(--warn-line); padding: 6px 10px; border-radius: 4px; margin: 0 0 10px; font-size: 14px; }
.problems[hidden] { display: none; }
.problems ul { margin: 4px 0 0; padding-left: 20px; }
.problems code { font-size: 13px; }
.definition, .why-sum { color: var(--muted); font-size: 13.5px; }
.mask-caveat { color: var(--muted); font-size: 13px; margin: 4px 0 0; }
.model-card { margin-top: 14px; border-top: 1px solid var(--line); padding-top: 8px; font-size: 14px; }
.model-card summary { cursor: pointer; font-weight: 600; }
.model-card { overflow-wrap: break-word; }
.card-facts { display: grid; grid-template-columns: fit-content(45%) minmax(0, 1fr); gap: 2px 14px; margin: 8px 0; }
.card-facts dt { color: var(--muted); min-width: 0; }
.card-facts dd { margin: 0; min-width: 0; }
@container (max-width: 520px) {
  .card-facts { grid-template-columns: minmax(0, 1fr); }
  .card-facts dd { margin-bottom: 4px; }
}
.card-limits { margin: 4px 0; padding-left: 20px; }
.card-limits-title { margin: 8px 0 0; font-weight: 600; }
`;
