// The `theme` attribute's values (any case); without one the reader's system setting is used.
export const THEMES = ['light', 'dark'];
