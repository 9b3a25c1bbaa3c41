// The browser suite in Chromium (npm playwright-core, Debian's chromium): suite.mjs.
import { browserSuite } from './suite.mjs';

browserSuite('chromium');
