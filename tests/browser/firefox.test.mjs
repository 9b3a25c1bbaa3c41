// The browser suite's Firefox set in Debian's firefox-esr (npm puppeteer-core over WebDriver BiDi): suite.mjs.
import { browserSuite } from './suite.mjs';

browserSuite('firefox');
