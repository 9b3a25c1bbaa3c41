// Controls the explorer and its views build alike: a segmented radio group moved by the
// arrow keys, and a labelled checkbox.

import { html } from './dom.mjs';

/** Keyboard movement in a one-dimensional list: the new index, or null for other keys. */
export function listMove(key, index, count) {
  switch (key) {
    case 'ArrowLeft': case 'ArrowUp': return Math.max(0, index - 1);
    case 'ArrowRight': case 'ArrowDown': return Math.min(count - 1, index + 1);
    case 'Home': return 0;
    case 'End': return count - 1;
    default: return null;
  }
}

/** Buttons 1…count as a radio group; `label(i)` names button i for screen readers. */
export function segmented(label, count, className, onPick, buttonLabel = (i) => `${label} ${i + 1}`) {
  const group = html('div', { class: `segmented ${className}`, role: 'radiogroup', 'aria-label': label });
  for (let i = 0; i < count; i++) {
    group.append(html('button', {
      type: 'button', role: 'radio', 'aria-checked': 'false', tabindex: -1, dataset: { value: String(i) },
      'aria-label': buttonLabel(i), text: String(i + 1), onclick: () => onPick(i),
    }));
  }
  group.addEventListener('keydown', (event) => {
    const current = [...group.children].findIndex((b) => b.getAttribute('aria-checked') === 'true');
    const next = listMove(event.key, current, count);
    if (next === null) return;
    event.preventDefault();
    onPick(next);
  });
  return group;
}

/** Marks the button whose value is `value` as the checked (and focusable) one. */
export function checkSegmented(group, value) {
  for (const button of group.children) {
    const on = Number(button.dataset.value) === value;
    button.setAttribute('aria-checked', String(on));
    button.tabIndex = on ? 0 : -1;
  }
}

/** A checkbox with its label in a view-control row: {input, text, control}. */
export function toggle(className, tag, label, onChange) {
  const input = html('input', { type: 'checkbox', class: className });
  input.addEventListener('change', () => onChange(input.checked));
  const text = html('span', { text: label });
  return { input, text, control: html('div', { class: 'view-control' }, [html('label', { class: 'toggle' }, [input, tag, text])]) };
}
