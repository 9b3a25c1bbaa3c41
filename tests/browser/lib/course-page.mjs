// The README's embedding recipe, as a course author follows it: the files its table lists
// and its HTML snippet, copied into an empty folder beside a page holding the snippet.
import { readFileSync, readdirSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** The files (`dist/…` rows of its table) and the HTML snippet of a README's embedding section. */
export function embeddingRecipe(root, file, heading) {
  const section = readFileSync(path.join(root, file), 'utf8').split(/^## /m).find((s) => s.startsWith(heading)) ?? '';
  return {
    files: [...section.matchAll(/^\| `(dist\/[\w.*-]+)` \|/gm)].map((m) => m[1]),
    snippet: /```html\n([\s\S]*?)```/.exec(section)?.[1],
  };
}

/** Copies the recipe's files from web/ (a row may name a family: dist/name-*.js) to `dir`, and writes `dir`/lesson.html. */
export async function writeCoursePage(root, dir, { files, snippet }) {
  await mkdir(path.join(dir, 'dist'), { recursive: true });
  const matching = (pattern) => {
    if (!pattern.includes('*')) return [pattern];
    const [before, after] = path.basename(pattern).split('*');
    return readdirSync(path.join(root, 'web/dist')).filter((n) => n.startsWith(before) && n.endsWith(after)).map((n) => `dist/${n}`);
  };
  for (const file of files.flatMap(matching)) await writeFile(path.join(dir, file), readFileSync(path.join(root, 'web', file)));
  await writeFile(path.join(dir, 'lesson.html'), `<!doctype html>\n<meta charset="utf-8">\n<title>a course page</title>\n${snippet}`);
  return path.join(dir, 'lesson.html');
}
