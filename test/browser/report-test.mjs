// SPDX-License-Identifier: GPL-2.0-only
//
// The results pages in a real browser: Debian's Chromium, headless, driven by playwright-core.
// Loads the page of a run and of a gathered sweep from file:// with every non-file request
// refused (and counted: there must be none), then checks through the DOM that the numbers shown
// are summary.json's / results.csv's, that changing a control changes them, that the figures
// load, that the timeline zooms and the wave plays; saves a screenshot of each page.
//
//   node report-test.mjs RUN_DIR SWEEP_GATHERED_DIR SCREENSHOT_DIR
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {pathToFileURL} from 'node:url';
import {chromium} from 'playwright-core';

const [runDir, sweepDir, shots] = process.argv.slice(2);
if (!runDir || !sweepDir || !shots) {
  console.error('usage: node report-test.mjs RUN_DIR SWEEP_GATHERED_DIR SCREENSHOT_DIR');
  process.exit(2);
}

/** A CSV of ours (RFC 4180 quoting) as objects by header; parsed here, not by the page. */
function readCsv(file) {
  const lines = [];
  let row = [];
  let f = '';
  let q = false;
  const t = fs.readFileSync(file, 'utf8');
  for (let i = 0; i < t.length; ++i) {
    const c = t[i];
    if (q) {
      if (c === '"' && t[i + 1] === '"') {
        f += '"';
        ++i;
      } else if (c === '"') {
        q = false;
      } else {
        f += c;
      }
    } else if (c === '"') {
      q = true;
    } else if (c === ',') {
      row.push(f);
      f = '';
    } else if (c === '\n') {
      row.push(f);
      lines.push(row);
      row = [];
      f = '';
    } else {
      f += c;
    }
  }
  const header = lines.shift();
  return lines.map((r) => Object.fromEntries(header.map((h, i) => [h, r[i]])));
}

const get = (o, p) => p.split('.').reduce((x, k) => (x == null ? undefined : x[k]), o);

/** The number a cell shows ("43.3 %", "$1.85/hr", "0.914 µs") against the value it stands for. */
function expectShown(text, value, scale, where) {
  const m = text.replace(/,/g, '').match(/-?\d+(\.\d+)?(e[-+]?\d+)?/);
  assert.ok(m, `${where}: "${text}" shows no number`);
  const shown = Number(m[0]);
  const want = Number(value) * scale;
  const tol = Math.max(Math.abs(want) * 5e-3, 1e-12);
  assert.ok(Math.abs(shown - want) <= tol, `${where}: shows ${shown}, the file says ${want}`);
}

const scaleOf = (field) => (field === 'mfu_effective' ? 100 : 1);

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu'],
});

/** A page that may load file: URLs only; errors and refused requests are collected. */
async function open(dir) {
  const page = await browser.newPage({viewport: {width: 1280, height: 900}});
  const problems = [];
  page.on('pageerror', (e) => problems.push('page error: ' + e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') {
      problems.push('console error: ' + m.text());
    }
  });
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith('file:')) {
      return route.continue();
    }
    problems.push('network request: ' + url);
    return route.abort();
  });
  await page.goto(pathToFileURL(path.join(dir, 'index.html')).href);
  await page.waitForSelector('body[data-ready]');
  assert.equal(await page.evaluate(() => document.body.dataset.ready), '1', problems.join('\n'));
  return {page, problems};
}

async function cards(page) {
  return page.$$eval('#cards [data-field]', (els) =>
    els.map((e) => ({field: e.dataset.field, value: e.dataset.value, text: e.textContent})));
}

async function imagesLoaded(page) {
  await page.evaluate(() => Promise.all([...document.images].map((i) => i.decode().catch(() => 0))));
  return page.$$eval('img', (imgs) => imgs.map((i) => ({src: i.src, ok: i.naturalWidth > 0})));
}

async function playWave(page) {
  const before = await page.textContent('#wave-status');
  await page.click('#wave-play');
  await page.waitForTimeout(700);
  const during = await page.textContent('#wave-status');
  assert.notEqual(during, before, 'the wave did not start');
  assert.match(during, /^STEP \d+/);
}

// ---- the run page -----------------------------------------------------------------------

{
  const summary = JSON.parse(fs.readFileSync(path.join(runDir, 'summary.json'), 'utf8'));
  const {page, problems} = await open(runDir);
  const runs = summary.runs;
  assert.ok(runs.length >= 2, 'the run page test needs two runs');
  const cells = await page.$$eval('#dashboard-table td[data-field]', (els) =>
    els.map((e) => ({run: Number(e.dataset.run), field: e.dataset.field, value: e.dataset.value,
      text: e.textContent})));
  const fields = new Set(cells.map((c) => c.field));
  for (const f of ['mfu_effective', 'collective_ms.mean', 'idle_cost_usd_per_hr',
    'message_latency_us.p99', 'idle_message_latency_us.us', 'network_latency_us.p99',
    'busbw_gbytes_per_s', 'algbw_gbytes_per_s', 'step_ms.mean']) {
    assert.ok(fields.has(f), `the dashboard has no row ${f}`);
  }
  for (const c of cells) {
    const v = get(runs[c.run], c.field);
    assert.equal(Number(c.value), v, `run ${c.run} ${c.field}: data-value`);
    expectShown(c.text, v, scaleOf(c.field), `run ${c.run} ${c.field}`);
  }
  assert.equal(cells.length, fields.size * runs.length);
  const heads = await page.$$eval('#dashboard-table thead th', (t) => t.map((x) => x.textContent));
  assert.deepEqual(heads.slice(1), runs.map((r) => r.name));

  // The cards follow the run control.
  const check = async (i) => {
    const cs = await cards(page);
    assert.equal(cs.length, 5);
    for (const c of cs) {
      assert.equal(Number(c.value), get(runs[i], c.field), `card ${c.field} of run ${i}`);
      expectShown(c.text, get(runs[i], c.field), scaleOf(c.field), `card ${c.field}`);
    }
    return cs.map((c) => c.text).join('|');
  };
  const first = await check(0);
  await page.selectOption('#run-select', '1');
  const second = await check(1);
  assert.notEqual(first, second, 'choosing another run did not change the numbers');
  await page.selectOption('#run-select', '0');

  // Figures: every one the directory has is on the page and loads.
  const imgs = await imagesLoaded(page);
  const wanted = fs.readdirSync(runDir).filter((f) => f.endsWith('.png')).length +
    fs.readdirSync(path.join(runDir, JSON.parse(await page.textContent('#aif-data')).runs[0].dir))
      .filter((f) => f.endsWith('.png')).length;
  assert.equal(imgs.length, wanted);
  for (const i of imgs) {
    assert.ok(i.ok, `figure did not load: ${i.src}`);
  }

  // The timeline opens on step 0's collective; "whole run" widens it; the wheel zooms in.
  const span = async () => page.$eval('#timeline', (c) =>
    Number(c.dataset.viewEnd) - Number(c.dataset.viewStart));
  const zoomed = await span();
  await page.click('#tl-all');
  const whole = await span();
  assert.ok(whole > zoomed, `whole run ${whole} ms is not wider than step 0's ${zoomed} ms`);
  const box = await page.$eval('#timeline', (c) => {
    const r = c.getBoundingClientRect();
    return {x: r.left + r.width / 2, y: r.top + r.height / 2};
  });
  await page.mouse.move(box.x, box.y);
  await page.mouse.wheel(0, -300);
  await page.waitForTimeout(100);
  assert.ok((await span()) < whole, 'the wheel did not zoom in');
  await page.click('#tl-step0');
  await playWave(page);
  assert.deepEqual(problems, []);
  await page.waitForTimeout(1500);
  await page.screenshot({path: path.join(shots, 'report-run.png'), fullPage: true});
  await page.close();
}

// ---- the sweep page ---------------------------------------------------------------------

{
  const rows = readCsv(path.join(sweepDir, 'results.csv'));
  const {page, problems} = await open(sweepDir);
  const rowOf = async () => {
    const id = await page.$eval('#point', (p) => p.dataset.pointId);
    const run = await page.$eval('#point', (p) => p.dataset.run);
    const r = rows.find((x) => x.point_id === id && x.run === run);
    assert.ok(r, `the page shows point ${id}, run ${run}: not in results.csv`);
    return r;
  };
  const check = async () => {
    const r = await rowOf();
    const cs = await cards(page);
    assert.deepEqual(cs.map((c) => c.field), ['mfu_effective', 'collective_ms.mean',
      'idle_cost_usd_per_hr', 'message_latency_us.p99', 'busbw_gbytes_per_s']);
    for (const c of cs) {
      assert.equal(c.value, r[c.field], `card ${c.field} of point ${r.point_id}`);
      expectShown(c.text, r[c.field], scaleOf(c.field), `card ${c.field}`);
    }
    // The controls show the row's own values.
    for (const s of await page.$$('#controls select')) {
      const key = await s.getAttribute('data-key');
      assert.equal(await s.inputValue(), r[key], `control ${key}`);
    }
    return cs.map((c) => c.text).join('|');
  };
  const keys = await page.$$eval('#controls select', (s) => s.map((x) => x.dataset.key));
  assert.ok(keys.includes('fabric'), 'no control for the swept fabric');
  const before = await check();
  const now = await page.inputValue('select[data-key="fabric"]');
  const other = rows.map((r) => r.fabric).find((f) => f !== now);
  await page.selectOption('select[data-key="fabric"]', other);
  const after = await check();
  assert.equal((await rowOf()).fabric, other);
  assert.notEqual(after, before, 'changing the fabric did not change the numbers');
  // Every run of results.csv is in the table.
  assert.equal(await page.$$eval('#results-table tbody tr', (t) => t.length), rows.length);
  for (const i of await imagesLoaded(page)) {
    assert.ok(i.ok, `figure did not load: ${i.src}`);
  }
  await playWave(page);
  assert.deepEqual(problems, []);
  await page.waitForTimeout(1500);
  await page.screenshot({path: path.join(shots, 'report-sweep.png'), fullPage: true});
  await page.close();
}

await browser.close();
console.log('browser test: run and sweep pages checked; screenshots in ' + shots);
