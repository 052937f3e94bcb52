// SPDX-License-Identifier: GPL-2.0-only
//
// ai-fabric's results page, part 1 of 3 (embed.cmake joins report-common.js, report-charts.js and
// report-pages.js, in that order, inside one function scope): the page's data, DOM and number
// helpers, and which numbers the cards and the run table show. Plain JavaScript, no library;
// everything the page shows comes from the JSON embedded in it (#aif-data), which the runner
// wrote from summary.json / results.csv and each run's steps.csv / timeline.csv.

const data = JSON.parse(document.getElementById('aif-data').textContent);
const main = document.getElementById('main');

// ---- small helpers --------------------------------------------------------------------

/** An element: el('td', {class: 'x', 'data-field': 'f'}, 'text', child, ...). */
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v !== undefined && v !== null) {
      e.setAttribute(k, String(v));
    }
  }
  for (const c of children) {
    if (c !== undefined && c !== null) {
      e.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
  }
  return e;
}

/** A number with `digits` significant digits and no trailing zeros (the dashboard's Num). */
function fmt(v, digits) {
  if (typeof v !== 'number' || !isFinite(v)) {
    return String(v);
  }
  if (Number.isInteger(v) && Math.abs(v) < 1e15) {
    return String(v);
  }
  let s = v.toPrecision(digits || 4);
  if (s.includes('e')) {
    return String(Number(s));
  }
  if (s.includes('.')) {
    s = s.replace(/0+$/, '').replace(/\.$/, '');
  }
  return s;
}

/** RFC 4180 CSV (quoted fields, doubled quotes) into an array of objects by header. */
function parseCsv(text) {
  const rows = [];
  let row = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; ++i) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        ++i;
      } else if (c === '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c === '"') {
      quoted = true;
    } else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else if (c !== '\r') {
      field += c;
    }
  }
  if (field !== '' || row.length) {
    row.push(field);
    rows.push(row);
  }
  const header = rows.shift() || [];
  return {
    header,
    rows: rows.map((r) => Object.fromEntries(header.map((h, i) => [h, r[i] ?? '']))),
  };
}

/** summary['a']['b'] for 'a.b'; undefined when absent. */
function get(obj, path) {
  let o = obj;
  for (const k of path.split('.')) {
    if (o === null || typeof o !== 'object' || !(k in o)) {
      return undefined;
    }
    o = o[k];
  }
  return o;
}

const collectiveNames = {
  allreduce: 'AllReduce', reducescatter: 'ReduceScatter', allgather: 'AllGather',
  alltoall: 'AllToAll', broadcast: 'Broadcast', sendrecv: 'SendRecv',
};

function section(title, id) {
  const s = el('section', {id}, el('h2', {}, title));
  main.append(s);
  return s;
}

const tip = document.getElementById('tip');
function showTip(ev, text) {
  if (!text) {
    tip.style.display = 'none';
    return;
  }
  tip.textContent = text;
  tip.style.display = 'block';
  tip.style.left = ev.clientX + 14 + 'px';
  tip.style.top = ev.clientY + 12 + 'px';
}

/** A canvas sized for the device's pixels; returns its 2-D context in CSS pixels. */
function fitCanvas(canvas, cssHeight) {
  const dpr = window.devicePixelRatio || 1;
  const w = Math.max(200, canvas.clientWidth || canvas.parentElement.clientWidth || 900);
  canvas.style.height = cssHeight + 'px';
  canvas.width = Math.round(w * dpr);
  canvas.height = Math.round(cssHeight * dpr);
  const g = canvas.getContext('2d');
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  return {g, w, h: cssHeight};
}

function cssVar(name) {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
}

/** Tick positions for [lo, hi]: about `n` round steps. */
function ticks(lo, hi, n) {
  const span = Math.max(hi - lo, 1e-12);
  const raw = span / n;
  const mag = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) || 10 * mag;
  const out = [];
  for (let t = Math.ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) {
    out.push(Number(t.toPrecision(12)));
  }
  return out;
}

// ---- the numbers ----------------------------------------------------------------------

// The seed's four numbers plus busbw. `path` is the key in summary.json's runs[] (dotted) and
// the column of results.csv; `scale` turns the stored value into the shown one.
function cardDefs(collective) {
  const title = collectiveNames[collective] || 'Collective';
  return [
    {path: 'mfu_effective', label: 'Effective MFU (compute efficiency)', short: 'MFU',
      scale: 100, unit: ' %',
      digits: 3, hint: () => 'Time GPUs spent on real math'},
    {path: 'collective_ms.mean', label: title + ' sync duration (mean)', short: 'collective',
      unit: ' ms', digits: 4,
      hint: (get1) => {
        const c = get1('compute_ms');
        return c === undefined ? '' : 'Forward/backward took ' + fmt(c, 4) + ' ms';
      }},
    {path: 'idle_cost_usd_per_hr', label: 'Cluster idle cost burn', short: 'idle cost',
      prefix: '$', unit: '/hr',
      digits: 5, hint: () => 'Dollars paid for waiting silicon'},
    {path: 'message_latency_us.p99', label: 'Message latency GPU to GPU (tail p99)',
      short: 'p99 latency', unit: ' µs', digits: 4,
      hint: (get1) => {
        const idle = get1('idle_message_latency_us.us');
        return 'One way, GPU memory to GPU memory, host path included' +
          (idle === undefined || idle === '' ? '' : '; idle 1 KiB: ' + fmt(Number(idle), 4) + ' µs');
      }},
    {path: 'busbw_gbytes_per_s', label: 'Bus bandwidth (busbw)', short: 'busbw', unit: ' GB/s',
      digits: 4,
      hint: (get1) => {
        const a = get1('algbw_gbytes_per_s');
        return a === undefined ? '' : 'algbw ' + fmt(Number(a), 4) + ' GB/s';
      }},
  ];
}

function shown(def, value) {
  if (value === undefined || value === '' || value === null) {
    return '-';
  }
  const v = Number(value) * (def.scale || 1);
  return (def.prefix || '') + fmt(v, def.digits) + (def.unit || '');
}

/** The cards of one run; `get1(path)` reads its values. */
function renderCards(box, defs, get1) {
  box.replaceChildren();
  for (const d of defs) {
    const v = get1(d.path);
    box.append(el('div', {class: 'card'},
      el('div', {class: 'label'}, d.label),
      el('div', {class: 'value', 'data-field': d.path, 'data-value': v ?? ''}, shown(d, v)),
      el('div', {class: 'hint'}, d.hint(get1))));
  }
}

// Rows of the run page's table: shown when some run has the value.
const tableDefs = [
  {path: 'mfu_effective', label: 'Effective MFU', scale: 100, unit: ' %', digits: 3},
  {path: 'collective_ms.mean', label: 'Collective duration (mean)', unit: ' ms', digits: 4},
  {path: 'collective_ms.p99', label: 'Collective duration (p99)', unit: ' ms', digits: 4},
  {path: 'step_ms.mean', label: 'Step time (mean)', unit: ' ms', digits: 4},
  {path: 'step_ms.max', label: 'Step time (max)', unit: ' ms', digits: 4},
  {path: 'compute_ms', label: 'Compute per step', unit: ' ms', digits: 4},
  {path: 'idle_cost_usd_per_hr', label: 'Idle cost', prefix: '$', unit: '/hr', digits: 5},
  {path: 'message_latency_us.p99', label: 'p99 message latency, GPU to GPU', unit: ' µs',
    digits: 4},
  {path: 'idle_message_latency_us.us', label: 'Idle 1 KiB message, GPU to GPU', unit: ' µs',
    digits: 4},
  {path: 'network_latency_us.p99', label: 'p99 packet latency, NIC to NIC', unit: ' µs',
    digits: 4},
  {path: 'algbw_gbytes_per_s', label: 'algbw', unit: ' GB/s', digits: 4},
  {path: 'busbw_gbytes_per_s', label: 'busbw', unit: ' GB/s', digits: 4},
  {path: 'training.phases_ms.tp_exposed', label: 'TP exposed', unit: ' ms', digits: 4},
  {path: 'training.phases_ms.pp_bubble', label: 'PP bubble', unit: ' ms', digits: 4},
  {path: 'training.phases_ms.dp_exposed', label: 'DP exposed', unit: ' ms', digits: 4},
  {path: 'training.phases_ms.barrier_wait', label: 'Barrier wait', unit: ' ms', digits: 4},
  {path: 'flows.slowdown.p99', label: 'FCT slowdown p99', digits: 3},
  {path: 'counters.retransmitted_packets', label: 'Retransmitted packets', digits: 6},
  {path: 'counters.timeouts', label: 'Timeouts', digits: 6},
  {path: 'counters.pfc_pause_frames', label: 'PFC pause frames', digits: 6},
  {path: 'counters.ecn_marks', label: 'ECN marks', digits: 6},
  {path: 'sim.wall_s', label: 'Simulation wall time', unit: ' s', digits: 3},
  {path: 'sim.events', label: 'Simulation events', digits: 6},
];
