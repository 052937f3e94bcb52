// SPDX-License-Identifier: GPL-2.0-only
//
// A screenshot of a results page as the docs show it (doc/figures/report-run.png and
// report-sweep.png): the page in Debian's Chromium, headless, at 1280 x HEIGHT CSS pixels,
// optionally with controls set (KEY=VALUE: the sweep page's select[data-key=KEY], or
// run=INDEX for the run page's run control) and the wave played for MS milliseconds first.
//
//   node screenshot.mjs DIR OUT.png [--height PX] [--play MS] [KEY=VALUE ...]
import path from 'node:path';
import {pathToFileURL} from 'node:url';
import {chromium} from 'playwright-core';

const args = process.argv.slice(2);
const [dir, out] = args;
if (!dir || !out) {
  console.error('usage: node screenshot.mjs DIR OUT.png [--height PX] [--play MS] [KEY=VALUE ...]');
  process.exit(2);
}
let height = 900;
let play = 0;
const controls = [];
for (let i = 2; i < args.length; ++i) {
  if (args[i] === '--height') {
    height = Number(args[++i]);
  } else if (args[i] === '--play') {
    play = Number(args[++i]);
  } else {
    const eq = args[i].indexOf('=');
    controls.push([args[i].slice(0, eq), args[i].slice(eq + 1)]);
  }
}
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu'],
});
const page = await browser.newPage({viewport: {width: 1280, height}});
await page.route('**/*', (r) => (r.request().url().startsWith('file:') ? r.continue() : r.abort()));
await page.goto(pathToFileURL(path.join(dir, 'index.html')).href);
await page.waitForSelector('body[data-ready="1"]');
for (const [key, value] of controls) {
  await page.selectOption(key === 'run' ? '#run-select' : `select[data-key="${key}"]`, value);
}
if (play) {
  await page.click('#wave-play');
  await page.waitForTimeout(play);
}
await page.screenshot({path: out});
await browser.close();
