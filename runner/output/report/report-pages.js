// SPDX-License-Identifier: GPL-2.0-only
//
// ai-fabric's results page, part 3 of 3: the run page (dashboard cards and table, timeline,
// figures), the sweep page (the seed's widget: a control per swept key, the numbers of the chosen
// point and its wave, the results table) and the start (body[data-ready] = '1' once drawn).

// ---- the run page ---------------------------------------------------------------------

function runPage() {
  const summary = data.summary;
  const runs = summary.runs || [];
  document.getElementById('title').textContent = 'ai-fabric — ' + (data.title || 'run');
  document.title = 'ai-fabric: ' + (data.title || 'run');
  const c0 = runs[0] || {};
  document.getElementById('subtitle').textContent = runs.length + ' run' +
    (runs.length === 1 ? '' : 's') + (c0.gpus ? ' · ' + c0.gpus + ' GPUs' : '') +
    (c0.topology ? ' · ' + c0.topology : '') + ' · from summary.json';

  const pick = el('select', {id: 'run-select'});
  runs.forEach((r, i) => pick.append(el('option', {value: i}, r.name)));
  const top = section('Cluster sync & tail latency', 'cards-section');
  top.append(el('div', {class: 'controls'}, el('label', {}, 'Run', pick)));
  const cards = el('div', {class: 'cards', id: 'cards'});
  top.append(el('div', {style: 'height:10px'}), cards);

  const tbl = section('All runs', 'dashboard');
  const table = el('table', {id: 'dashboard-table'});
  const head = el('tr', {}, el('th', {}, ''));
  runs.forEach((r) => head.append(el('th', {}, r.name)));
  table.append(el('thead', {}, head));
  const body = el('tbody');
  const collectives = new Set(runs.map((r) => r.collective).filter(Boolean));
  for (const d of tableDefs) {
    if (!runs.some((r) => get(r, d.path) !== undefined)) {
      continue;
    }
    let label = d.label;
    if (d.path.startsWith('collective_ms') && collectives.size === 1) {
      label = label.replace('Collective', collectiveNames[[...collectives][0]] || 'Collective');
    }
    const tr = el('tr', {}, el('th', {}, label));
    runs.forEach((r, i) => {
      const v = get(r, d.path);
      tr.append(el('td', {'data-run': i, 'data-field': d.path, 'data-value': v ?? ''},
        shown(d, v)));
    });
    body.append(tr);
  }
  table.append(body);
  tbl.append(el('div', {class: 'scroll'}, table));

  const tl = Timeline(section('Per-rank timeline', 'timeline-section'));
  const wave = Wave(section('AllReduce synchronization wave', 'wave-section'));
  const figs = [];
  for (const f of data.figures || []) {
    figs.push({href: href(f), caption: f});
  }
  const figBox = {list: figs};

  function select(i) {
    const r = runs[i] || {};
    const files = (data.runs || [])[i] || {};
    renderCards(cards, cardDefs(r.collective), (p) => get(r, p));
    tl.show(files);
    wave.show(files.steps_csv, files.trimmed);
    const old = document.getElementById('figures');
    if (old) {
      old.remove();
    }
    figuresSection('Figures', figBox.list.concat((files.figures || []).map((f) => ({
      href: href(files.dir, f), caption: files.dir + '/' + f}))));
  }
  pick.addEventListener('change', () => select(Number(pick.value)));
  select(0);
}

// ---- the sweep page -------------------------------------------------------------------

function sweepPage() {
  const csv = parseCsv(data.csv || '');
  const rows = csv.rows;
  document.getElementById('title').textContent = 'ai-fabric — sweep ' + (data.title || '');
  document.title = 'ai-fabric: sweep ' + (data.title || '');
  document.getElementById('subtitle').textContent = rows.length + ' runs from results.csv' +
    (data.missing ? ' · ' + data.missing + ' points not finished' : '');
  // The controls: each swept key, the seed, and the run name when a point has several runs.
  const controlKeys = (data.keys || []).slice();
  for (const k of ['seed', 'run']) {
    if (new Set(rows.map((r) => r[k])).size > 1 && !controlKeys.includes(k)) {
      controlKeys.push(k);
    }
  }
  const box = section('Cluster sync & tail latency simulator', 'widget');
  const controls = el('div', {class: 'controls', id: 'controls'});
  const selects = {};
  const numeric = (k) => rows.every((r) => r[k] !== '' && !isNaN(Number(r[k])));
  for (const k of controlKeys) {
    const values = [...new Set(rows.map((r) => r[k]))];
    if (numeric(k)) {
      values.sort((a, b) => Number(a) - Number(b));
    }
    const s = el('select', {'data-key': k, id: 'control-' + k.replace(/[^A-Za-z0-9_-]/g, '_')});
    values.forEach((v) => {
      // A topology key's value with the cluster size it makes ("16 (128 GPUs)").
      const gpus = new Set(rows.filter((r) => r[k] === v).map((r) => r.gpus));
      const label = k.startsWith('topology.') && gpus.size === 1 && [...gpus][0]
        ? v + ' (' + [...gpus][0] + ' GPUs)' : v;
      s.append(el('option', {value: v}, label));
    });
    selects[k] = s;
    controls.append(el('label', {}, k, s));
  }
  const pointLine = el('p', {class: 'note', id: 'point'});
  const cards = el('div', {class: 'cards', id: 'cards'});
  box.append(controls, pointLine, cards);
  const wave = Wave(section('AllReduce synchronization wave', 'wave-section'));

  // The row the controls choose; when a combination was not run, the nearest that was (the
  // control just changed keeps its value).
  function chosen(changed) {
    const want = Object.fromEntries(controlKeys.map((k) => [k, selects[k].value]));
    let best = null;
    let bestScore = -1;
    for (const r of rows) {
      if (changed && r[changed] !== want[changed]) {
        continue;
      }
      let score = 0;
      controlKeys.forEach((k, i) => {
        score += r[k] === want[k] ? 1 << (controlKeys.length - i) : 0;
      });
      if (score > bestScore) {
        best = r;
        bestScore = score;
      }
    }
    return best;
  }

  function show(changed) {
    const r = chosen(changed);
    if (!r) {
      return;
    }
    for (const k of controlKeys) {
      selects[k].value = r[k];
    }
    pointLine.textContent = 'point ' + r.point_id + ', run "' + r.run + '"';
    pointLine.dataset.pointId = r.point_id;
    pointLine.dataset.run = r.run;
    renderCards(cards, cardDefs(r.collective), (p) => (p in r && r[p] !== '' ? r[p] : undefined));
    const w = (data.waves || {})[r.point_id + '/' + r.run];
    wave.show(w, w ? data.waves_note : data.waves_note || 'No steps.csv for this point.');
  }
  for (const k of controlKeys) {
    selects[k].addEventListener('change', () => show(k));
  }
  show(null);

  const t = section('Every run', 'results');
  const table = el('table', {id: 'results-table'});
  const cols = ['point_id'].concat(controlKeys.filter((k) => k !== 'run'), ['run'],
    cardDefs('').map((d) => d.path));
  const short = Object.fromEntries(cardDefs('').map((d) => [d.path, d.short]));
  table.append(el('thead', {}, el('tr', {}, ...cols.map((c) => el('th', {title: c},
    short[c] || c)))));
  const body = el('tbody');
  const defs = Object.fromEntries(cardDefs('').map((d) => [d.path, d]));
  for (const r of rows) {
    body.append(el('tr', {}, ...cols.map((c) => el('td', {'data-field': c},
      defs[c] ? shown(defs[c], r[c] === '' ? undefined : r[c]) : r[c]))));
  }
  table.append(body);
  t.append(el('div', {class: 'scroll'}, table));
  figuresSection('Figures', (data.figures || []).map((f) => ({href: href(f), caption: f})));
}

try {
  if (data.kind === 'sweep') {
    sweepPage();
  } else {
    runPage();
  }
  document.body.dataset.ready = '1';
} catch (e) {
  main.append(el('p', {class: 'error'}, 'This page could not be drawn: ' + e.message));
  document.body.dataset.ready = 'error';
  throw e;
}
