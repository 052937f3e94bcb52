// SPDX-License-Identifier: GPL-2.0-only
//
// ai-fabric's results page, part 2 of 3: per-rank steps from steps.csv / timeline.csv, the zoomable
// Timeline (canvas), the synchronization Wave (who computes, who waits, who was last) and the
// figures grid.

// ---- per-rank steps: timeline and wave ---------------------------------------------------

/** steps.csv -> {ranks, steps: [{step, start, barrier, last, r: [{c, e}]}]} (ms). */
function parseSteps(text) {
  const byStep = new Map();
  let ranks = 0;
  for (const r of parseCsv(text || '').rows) {
    const s = Number(r.step);
    const k = Number(r.rank);
    if (!byStep.has(s)) {
      byStep.set(s, {step: s, start: Number(r.start_ms), barrier: Number(r.barrier_ms),
        last: -1, r: []});
    }
    const st = byStep.get(s);
    st.r[k] = {c: Number(r.compute_end_ms), e: Number(r.collective_end_ms)};
    if (r.last === '1') {
      st.last = k;
    }
    ranks = Math.max(ranks, k + 1);
  }
  const steps = [...byStep.values()].sort((a, b) => a.step - b.step);
  for (const st of steps) {
    // When the first rank finished its collective: from then on others wait on the last.
    st.firstDone = Math.min(...st.r.filter(Boolean).map((x) => x.e));
  }
  return {ranks, steps};
}

/** Bars of the timeline: from timeline.csv (each operation) or else steps.csv. */
function timelineBars(run) {
  const bars = [];
  if (run.timeline_csv) {
    for (const r of parseCsv(run.timeline_csv).rows) {
      bars.push({rank: Number(r.rank), s: Number(r.start_us) / 1e3, e: Number(r.end_us) / 1e3,
        kind: r.kind === 'compute' ? 'compute' : 'collective',
        what: r.kind + ' (' + r.phase + ') op ' + r.op});
    }
    return bars;
  }
  for (const st of parseSteps(run.steps_csv).steps) {
    st.r.forEach((x, k) => {
      if (!x) {
        return;
      }
      const tag = 'step ' + st.step + ', rank ' + k;
      bars.push({rank: k, s: st.start, e: x.c, kind: 'compute', what: tag + ': compute'});
      bars.push({rank: k, s: x.c, e: x.e, kind: 'collective', what: tag + ': collective'});
      if (st.barrier > x.e) {
        bars.push({rank: k, s: x.e, e: st.barrier, kind: 'wait',
          what: tag + ': waiting for rank ' + st.last});
      }
    });
  }
  return bars;
}

/**
 * A zoomable per-rank timeline: wheel zooms around the pointer, drag pans, double-click (or
 * "whole run") shows everything, "step 0's collective" zooms onto the first barrier.
 */
function Timeline(box) {
  const canvas = el('canvas', {id: 'timeline', 'aria-label': 'per-rank timeline'});
  const bar = el('div', {class: 'controls'});
  const whole = el('button', {id: 'tl-all'}, 'Whole run');
  const first = el('button', {id: 'tl-step0'}, "Step 0's collective");
  const range = el('span', {class: 'note', id: 'tl-range'});
  bar.append(whole, first, range);
  box.append(bar, el('div', {class: 'legend'},
    el('span', {}, el('i', {style: 'background:' + cssVar('--compute')}), 'compute'),
    el('span', {}, el('i', {style: 'background:' + cssVar('--collective')}),
      'collective / send / recv'),
    el('span', {}, el('i', {style: 'background:' + cssVar('--wait')}),
      'waiting at the barrier')), canvas);
  const note = el('p', {class: 'note'});
  box.append(note);
  let bars = [];
  let ranks = 1;
  let t0 = 0;
  let t1 = 1;
  let view = [0, 1];
  let zoom0 = null;
  const left = 56;
  const bottom = 24;
  const colour = {compute: cssVar('--compute'), collective: cssVar('--collective'),
    wait: cssVar('--wait')};

  function draw() {
    const height = Math.min(520, Math.max(160, ranks * 6 + bottom + 10));
    const {g, w, h} = fitCanvas(canvas, height);
    const plotW = w - left - 10;
    const plotH = h - bottom - 8;
    const [a, b] = view;
    const x = (t) => left + ((t - a) / (b - a)) * plotW;
    const rowH = plotH / ranks;
    g.clearRect(0, 0, w, h);
    g.fillStyle = '#94a3b8';
    g.font = '11px "DejaVu Sans", sans-serif';
    g.strokeStyle = '#24314f';
    for (const t of ticks(a, b, 8)) {
      const px = x(t);
      g.beginPath();
      g.moveTo(px, 4);
      g.lineTo(px, plotH + 8);
      g.stroke();
      g.fillText(fmt(t, 6) + ' ms', px - 18, h - 6);
    }
    const labelEvery = Math.max(1, Math.ceil(14 / rowH));
    for (let k = 0; k < ranks; k += labelEvery) {
      g.fillText('rank ' + k, 2, 8 + (k + 0.5) * rowH + 4);
    }
    g.save();
    g.beginPath();
    g.rect(left, 4, plotW, plotH + 4);
    g.clip();
    const gap = rowH > 4 ? 1 : 0;
    for (const bb of bars) {
      if (bb.e < a || bb.s > b) {
        continue;
      }
      g.fillStyle = colour[bb.kind];
      const x0 = x(bb.s);
      g.fillRect(x0, 8 + bb.rank * rowH, Math.max(1, x(bb.e) - x0), Math.max(1, rowH - gap));
    }
    g.restore();
    range.textContent = 'showing ' + fmt(a, 6) + ' – ' + fmt(b, 6) + ' ms';
    canvas.dataset.viewStart = a;
    canvas.dataset.viewEnd = b;
  }

  function at(ev) {
    const r = canvas.getBoundingClientRect();
    const plotW = r.width - left - 10;
    const t = view[0] + ((ev.clientX - r.left - left) / plotW) * (view[1] - view[0]);
    const plotH = r.height - bottom - 8;
    const rank = Math.floor(((ev.clientY - r.top - 8) / plotH) * ranks);
    return {t, rank, frac: (ev.clientX - r.left - left) / plotW};
  }

  canvas.addEventListener('wheel', (ev) => {
    ev.preventDefault();
    const p = at(ev);
    const f = ev.deltaY < 0 ? 0.8 : 1.25;
    const span = Math.min(t1 - t0, Math.max((view[1] - view[0]) * f, 1e-6));
    let a = p.t - span * Math.min(Math.max(p.frac, 0), 1);
    a = Math.min(Math.max(a, t0), t1 - span);
    view = [a, a + span];
    draw();
  }, {passive: false});
  let drag = null;
  canvas.addEventListener('mousedown', (ev) => {
    drag = {x: ev.clientX, view: view.slice()};
  });
  window.addEventListener('mouseup', () => {
    drag = null;
  });
  canvas.addEventListener('mousemove', (ev) => {
    if (drag) {
      const r = canvas.getBoundingClientRect();
      const dt = ((ev.clientX - drag.x) / (r.width - left - 10)) * (drag.view[1] - drag.view[0]);
      const span = drag.view[1] - drag.view[0];
      const a = Math.min(Math.max(drag.view[0] - dt, t0), t1 - span);
      view = [a, a + span];
      draw();
      return;
    }
    const p = at(ev);
    const hit = bars.find((bb) => bb.rank === p.rank && bb.s <= p.t && p.t <= bb.e);
    showTip(ev, hit ? hit.what + '\n' + fmt(hit.s, 7) + ' – ' + fmt(hit.e, 7) + ' ms (' +
      fmt(hit.e - hit.s, 4) + ' ms)' : '');
  });
  canvas.addEventListener('mouseleave', (ev) => showTip(ev, ''));
  canvas.addEventListener('dblclick', () => {
    view = [t0, t1];
    draw();
  });
  whole.addEventListener('click', () => {
    view = [t0, t1];
    draw();
  });
  first.addEventListener('click', () => {
    if (zoom0) {
      view = zoom0.slice();
      draw();
    }
  });
  window.addEventListener('resize', draw);

  return {
    show(run) {
      bars = timelineBars(run);
      ranks = Math.max(1, ...bars.map((bb) => bb.rank + 1));
      t0 = Math.min(...bars.map((bb) => bb.s));
      t1 = Math.max(...bars.map((bb) => bb.e));
      if (!bars.length) {
        t0 = 0;
        t1 = 1;
      }
      // Step 0's collective: from the first compute end to the barrier, padded by a quarter.
      const st = parseSteps(run.steps_csv).steps[0];
      zoom0 = null;
      if (st && st.r.length) {
        const lo = Math.min(...st.r.filter(Boolean).map((x) => x.c));
        const pad = Math.max((st.barrier - lo) * 0.25, 1e-4);
        zoom0 = [Math.max(t0, lo - pad), Math.min(t1, st.barrier + pad)];
      }
      first.disabled = !zoom0;
      view = zoom0 || [t0, t1];
      note.textContent = (run.timeline_csv ? 'Each operation of the first step (timeline.csv)'
        : 'Each rank\'s steps (steps.csv)') + (run.trimmed ? '; ' + run.trimmed : '') +
        '. Wheel: zoom, drag: pan, double-click: whole run.';
      draw();
    },
  };
}

/**
 * The seed's AllReduce synchronization wave: one cell per GPU, animated through the steps of
 * a run from steps.csv: computing, in the collective, done and waiting, and the rank the
 * barrier waited on (the last one).
 */
function Wave(box) {
  const status = el('div', {class: 'status', id: 'wave-status'}, 'READY');
  const play = el('button', {id: 'wave-play'}, '▶ Play the step');
  const canvas = el('canvas', {id: 'wave', 'aria-label': 'synchronization wave'});
  box.append(el('div', {class: 'controls'}, play), status, el('div', {class: 'legend'},
    el('span', {}, el('i', {style: 'background:' + cssVar('--compute')}), 'computing'),
    el('span', {}, el('i', {style: 'background:' + cssVar('--collective')}), 'in the collective'),
    el('span', {}, el('i', {style: 'background:' + cssVar('--wait')}), 'done, waiting'),
    el('span', {}, el('i', {style: 'background:' + cssVar('--last')}), 'the last rank')),
  canvas);
  const note = el('p', {class: 'note'});
  box.append(note);
  let steps = {ranks: 0, steps: []};
  let timer = null;
  let frame = {step: 0, t: 0};

  function stateOf(st, k, t) {
    const x = st.r[k];
    if (!x) {
      return 'none';
    }
    if (t < x.c) {
      return 'compute';
    }
    if (t >= st.barrier) {
      return 'done';
    }
    if (k === st.last && t >= st.firstDone) {
      return 'last'; // everyone who is done waits on this rank
    }
    return t < x.e ? 'collective' : 'wait';
  }

  function draw() {
    const n = Math.max(1, steps.ranks);
    const cols = Math.min(n, Math.ceil(Math.sqrt(n * 4)));
    const rows = Math.ceil(n / cols);
    const width = canvas.clientWidth || 900;
    const cell = Math.max(3, Math.min(28, Math.floor((width - 8) / cols)));
    const {g, w} = fitCanvas(canvas, Math.min(420, rows * cell + 8));
    g.clearRect(0, 0, w, rows * cell + 8);
    const st = steps.steps[frame.step];
    if (!st) {
      return;
    }
    const c = {compute: cssVar('--compute'), collective: cssVar('--collective'),
      wait: cssVar('--wait'), last: cssVar('--last'), done: '#475569', none: '#1e293b'};
    const counts = {compute: 0, collective: 0, wait: 0, last: 0, done: 0, none: 0};
    for (let k = 0; k < n; ++k) {
      const s = stateOf(st, k, frame.t);
      counts[s]++;
      g.fillStyle = c[s];
      g.fillRect(4 + (k % cols) * cell, 4 + Math.floor(k / cols) * cell, cell - 1, cell - 1);
    }
    const rel = frame.t - st.start;
    const stepMs = st.barrier - st.start;
    let text;
    if (frame.t >= st.barrier) {
      text = 'STEP ' + st.step + ' DONE in ' + fmt(stepMs, 4) + ' ms — the barrier waited on rank ' +
        st.last;
    } else if (counts.compute > 0) {
      text = 'STEP ' + st.step + ' +' + fmt(rel, 4) + ' ms: ' + counts.compute + ' computing';
    } else {
      text = 'STEP ' + st.step + ' +' + fmt(rel, 4) + ' ms: ' + (counts.collective + counts.last) +
        ' in the collective, ' + counts.wait + ' waiting';
    }
    status.textContent = text;
    canvas.dataset.step = st.step;
    canvas.dataset.waiting = counts.wait;
  }

  function stop() {
    if (timer) {
      cancelAnimationFrame(timer);
      timer = null;
    }
    play.textContent = '▶ Play the step';
  }

  play.addEventListener('click', () => {
    if (timer) {
      stop();
      return;
    }
    if (!steps.steps.length) {
      return;
    }
    play.textContent = '❚❚ Pause';
    // Each step plays in three seconds: its compute at a quarter of the time, since the
    // collective is what the wave shows (the status line gives the true times).
    let last = performance.now();
    const tick = (now) => {
      const st = steps.steps[frame.step];
      const cEnd = Math.min(...st.r.filter(Boolean).map((x) => x.c));
      const dt = (now - last) / 1000;
      last = now;
      const inCompute = frame.t < cEnd;
      const span = inCompute ? cEnd - st.start : st.barrier - cEnd;
      frame.t += (span / (inCompute ? 0.75 : 2.25)) * dt;
      if (frame.t >= st.barrier + (st.barrier - cEnd) * 0.3) {
        if (frame.step + 1 >= steps.steps.length) {
          frame.t = st.barrier;
          draw();
          stop();
          return;
        }
        frame.step++;
        frame.t = steps.steps[frame.step].start;
      }
      draw();
      timer = requestAnimationFrame(tick);
    };
    timer = requestAnimationFrame(tick);
  });
  window.addEventListener('resize', draw);

  return {
    show(stepsCsv, why) {
      stop();
      steps = parseSteps(stepsCsv);
      frame = {step: 0, t: steps.steps.length ? steps.steps[0].barrier : 0};
      play.disabled = !steps.steps.length;
      note.textContent = steps.steps.length
        ? steps.ranks + ' GPUs, ' + steps.steps.length + (steps.steps.length === 1 ? ' step' :
          ' steps') + '. Play animates them: the collective slowed down, compute sped up.' +
          (why ? ' ' + why : '')
        : why || 'No per-rank steps for this point.';
      if (!steps.steps.length) {
        status.textContent = 'NO STEPS';
        canvas.getContext('2d').clearRect(0, 0, canvas.width, canvas.height);
        return;
      }
      draw();
      status.textContent = 'READY — ' + status.textContent;
    },
  };
}

function figuresSection(title, list) {
  if (!list.length) {
    return;
  }
  const s = section(title, 'figures');
  const grid = el('div', {class: 'figures'});
  for (const f of list) {
    grid.append(el('figure', {},
      el('a', {href: f.href}, el('img', {src: f.href, alt: f.caption, loading: 'lazy'})),
      el('figcaption', {}, f.caption)));
  }
  s.append(grid);
}

const href = (...parts) => parts.map(encodeURIComponent).join('/');
