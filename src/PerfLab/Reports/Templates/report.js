// Draws report.html's charts from the JSON data in the page with the inlined Chart.js, then records on <body>
// how many charts it created (data-charts-total) and how many drew data onto a non-blank canvas
// (data-charts-rendered), so a headless browser can check the page without a human looking at it.
(function () {
  'use strict';
  const palette = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac'];
  const body = document.body;
  const charts = [];

  const fmt = (v, d) => (v === null || v === undefined) ? '—' : Number(v).toFixed(d);

  // The 95 % interval of each bar's median, drawn as a whisker over the bar.
  const whiskers = {
    id: 'perflabWhiskers',
    afterDatasetsDraw(chart) {
      const ctx = chart.ctx;
      const y = chart.scales.y;
      chart.data.datasets.forEach((ds, i) => {
        const meta = chart.getDatasetMeta(i);
        if (meta.hidden || !ds.perflabLow) return;
        meta.data.forEach((bar, j) => {
          const lo = ds.perflabLow[j];
          const hi = ds.perflabHigh[j];
          if (lo === null || hi === null || lo === undefined || hi === undefined) return;
          const yl = y.getPixelForValue(lo);
          const yh = y.getPixelForValue(hi);
          // Bars give their width; the points of a line chart (sweeps) have none.
          const w = bar.width ? Math.max(3, Math.min(bar.width / 4, 10)) : 5;
          ctx.save();
          ctx.strokeStyle = '#1f2328';
          ctx.lineWidth = 1.5;
          ctx.beginPath();
          ctx.moveTo(bar.x, yl); ctx.lineTo(bar.x, yh);
          ctx.moveTo(bar.x - w, yl); ctx.lineTo(bar.x + w, yl);
          ctx.moveTo(bar.x - w, yh); ctx.lineTo(bar.x + w, yh);
          ctx.stroke();
          ctx.restore();
        });
      });
    }
  };

  function frame(container, title) {
    const box = document.createElement('div');
    box.className = 'chart';
    const h = document.createElement('h4');
    h.textContent = title;
    const f = document.createElement('div');
    f.className = 'frame';
    const canvas = document.createElement('canvas');
    f.appendChild(canvas);
    box.appendChild(h);
    box.appendChild(f);
    container.appendChild(box);
    return canvas;
  }

  function note(container, text) {
    const p = document.createElement('p');
    p.className = 'note';
    p.textContent = text;
    container.appendChild(p);
  }

  function barChart(container, bar, colors) {
    const hasData = bar.series.some(s => s.median.some(v => v !== null));
    if (!hasData) {
      note(container, bar.title + ': no successful run to chart.');
      return;
    }
    let top = 0;
    bar.series.forEach(s => s.median.concat(s.high).forEach(v => { if (v !== null && v > top) top = v; }));
    const canvas = frame(container, bar.title + ' (' + bar.unit + '), median with 95 % interval');
    charts.push(new Chart(canvas, {
      type: 'bar',
      data: {
        labels: bar.groups,
        datasets: bar.series.map(s => ({
          label: s.variant,
          data: s.median,
          perflabLow: s.low,
          perflabHigh: s.high,
          backgroundColor: colors[s.variant],
          borderColor: colors[s.variant],
          borderWidth: 0
        }))
      },
      options: {
        responsive: true,
        maintainAspectRatio: false,
        scales: {
          y: { beginAtZero: true, suggestedMax: top * 1.05, title: { display: true, text: bar.unit } }
        },
        plugins: {
          tooltip: {
            callbacks: {
              label(item) {
                const ds = item.dataset;
                const d = bar.unit === 'RPS' ? 1 : 2;
                const i = item.dataIndex;
                return ds.label + ': ' + fmt(ds.data[i], d) + ' [' + fmt(ds.perflabLow[i], d) + '–' + fmt(ds.perflabHigh[i], d) + ']';
              }
            }
          }
        }
      },
      plugins: [whiskers]
    }));
  }

  function timelineChart(container, timelines, colors, title, unit, pick, withUsers) {
    const series = timelines.series.filter(s => pick(s).some(v => v !== null));
    if (series.length === 0) {
      return;
    }
    const datasets = series.map(s => ({
      label: s.variant,
      data: s.second.map((x, i) => ({ x: x, y: pick(s)[i] })),
      borderColor: colors[s.variant],
      backgroundColor: colors[s.variant],
      borderWidth: 2,
      pointRadius: 0,
      spanGaps: false,
      yAxisID: 'y'
    }));
    const scales = {
      x: { type: 'linear', title: { display: true, text: 'seconds into the measured window' } },
      y: { beginAtZero: true, title: { display: true, text: unit } }
    };
    if (withUsers && timelines.usersVary) {
      const s = timelines.series[0];
      datasets.push({
        label: 'users',
        data: s.second.map((x, i) => ({ x: x, y: s.users[i] })),
        borderColor: '#8c959f',
        backgroundColor: '#8c959f',
        borderDash: [6, 4],
        borderWidth: 2,
        pointRadius: 0,
        yAxisID: 'users'
      });
      scales.users = { position: 'right', beginAtZero: true, grid: { drawOnChartArea: false }, title: { display: true, text: 'users' } };
    }
    const canvas = frame(container, title);
    charts.push(new Chart(canvas, {
      type: 'line',
      data: { datasets: datasets },
      options: { responsive: true, maintainAspectRatio: false, parsing: true, scales: scales, interaction: { mode: 'nearest', intersect: false } }
    }));
  }

  // Where the time goes: per variant a CPU stack (by component) and a wait stack, in ms per request.
  function breakdownChart(container, breakdown) {
    const canvas = frame(container, 'Where the time goes (ms per request): CPU by component, and waits');
    const cpu = breakdown.series.filter(s => s.stack === 'cpu').length;
    charts.push(new Chart(canvas, {
      type: 'bar',
      data: {
        labels: breakdown.variants,
        datasets: breakdown.series.map((s, i) => ({
          label: s.label,
          data: s.values,
          stack: s.stack,
          backgroundColor: s.stack === 'cpu' ? palette[i % palette.length] : ['#6e7781', '#afb8c1', '#d0d7de'][(i - cpu) % 3],
          borderWidth: 0
        }))
      },
      options: {
        responsive: true,
        maintainAspectRatio: false,
        scales: { x: { stacked: true }, y: { stacked: true, beginAtZero: true, title: { display: true, text: 'ms per request' } } }
      }
    }));
  }

  // Every successful run's figure at its place in the run order, so drift over the session shows.
  function runOrderChart(container, runOrder, colors) {
    const canvas = frame(container, runOrder.title + ' (' + runOrder.unit + ')');
    charts.push(new Chart(canvas, {
      type: 'line',
      data: {
        datasets: runOrder.series.map(s => ({
          label: s.variant,
          data: s.order.map((x, i) => ({ x: x, y: s.value[i], repetition: s.repetition[i] })),
          borderColor: colors[s.variant],
          backgroundColor: colors[s.variant],
          borderWidth: 2,
          pointRadius: 4
        }))
      },
      options: {
        responsive: true,
        maintainAspectRatio: false,
        scales: {
          x: { type: 'linear', ticks: { stepSize: 1 }, title: { display: true, text: 'run order (#)' } },
          y: { beginAtZero: false, title: { display: true, text: runOrder.unit } }
        },
        plugins: {
          tooltip: { callbacks: { label(item) { return item.dataset.label + ' #' + item.raw.x + ' (repetition ' + item.raw.repetition + '): ' + fmt(item.raw.y, 1); } } }
        }
      }
    }));
  }

  // A sweep: each variant's change against the condition, with its 95 % interval as whiskers, and the zero line.
  function sweepChart(container, sweep) {
    const hasPoints = sweep.series.some(s => s.change.some(v => v !== null));
    if (!hasPoints) {
      note(container, 'No point of this sweep has a comparison to chart.');
      return;
    }
    const datasets = sweep.series.map((s, i) => ({
      label: s.variant,
      data: sweep.values.map((x, j) => ({ x: x, y: s.change[j], verdict: s.verdict[j], label: sweep.labels[j] })),
      perflabLow: s.low,
      perflabHigh: s.high,
      borderColor: palette[(i + 1) % palette.length],
      backgroundColor: palette[(i + 1) % palette.length],
      borderWidth: 2,
      pointRadius: 4,
      spanGaps: false
    }));
    datasets.push({
      label: 'no change',
      data: [{ x: sweep.values[0], y: 0 }, { x: sweep.values[sweep.values.length - 1], y: 0 }],
      borderColor: '#8c959f',
      backgroundColor: '#8c959f',
      borderDash: [6, 4],
      borderWidth: 1,
      pointRadius: 0
    });
    const canvas = frame(container, 'Change of ' + sweep.metric + ' against the baseline (%), with 95 % interval, by ' + sweep.axis);
    charts.push(new Chart(canvas, {
      type: 'line',
      data: { datasets: datasets },
      options: {
        responsive: true,
        maintainAspectRatio: false,
        scales: {
          x: {
            type: 'linear',
            title: { display: true, text: sweep.axis },
            // One tick at each value measured, labelled as the report writes it (0.5 ms, 2 cores).
            afterBuildTicks(axis) { axis.ticks = sweep.values.map(v => ({ value: v })); },
            ticks: { callback(value) { const i = sweep.values.indexOf(value); return i >= 0 ? sweep.labels[i] : ''; } }
          },
          y: { title: { display: true, text: 'change (%)' } }
        },
        plugins: {
          tooltip: {
            callbacks: {
              label(item) {
                const ds = item.dataset;
                const i = item.dataIndex;
                if (!ds.perflabLow) return ds.label;
                return ds.label + ' at ' + item.raw.label + ': ' + fmt(item.raw.y, 1) + ' % [' + fmt(ds.perflabLow[i], 1) + ', ' + fmt(ds.perflabHigh[i], 1) + '] ' + item.raw.verdict;
              }
            }
          }
        }
      },
      plugins: [whiskers]
    }));
  }

  function hasData(chart) {
    return chart.data.datasets.some(ds => ds.data.some(v => v !== null && (typeof v !== 'object' || v.y !== null)));
  }

  function paintedPixels(canvas) {
    const ctx = canvas.getContext('2d');
    if (!ctx || canvas.width === 0 || canvas.height === 0) return 0;
    const pixels = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
    let painted = 0;
    for (let i = 3; i < pixels.length; i += 4) {
      if (pixels[i] !== 0) painted++;
    }
    return painted;
  }

  try {
    const page = JSON.parse(document.getElementById('perflab-data').textContent);
    Chart.defaults.animation = false;
    Chart.defaults.font.family = getComputedStyle(body).fontFamily;
    for (const exp of page.experiments) {
      const colors = {};
      (exp.bars.length > 0 ? exp.bars[0].series : []).forEach((s, i) => { colors[s.variant] = palette[i % palette.length]; });
      const bars = document.querySelector('.charts.bars[data-experiment="' + exp.id + '"]');
      const lines = document.querySelector('.charts.timelines[data-experiment="' + exp.id + '"]');
      if (bars) {
        exp.bars.forEach(b => barChart(bars, b, colors));
      }
      if (lines && exp.timelines) {
        note(lines, 'Timelines. ' + exp.timelines.note);
        timelineChart(lines, exp.timelines, colors, 'Throughput (RPS)' + (exp.timelines.usersVary ? ' against user load' : ''), 'RPS', s => s.rps, true);
        timelineChart(lines, exp.timelines, colors, 'p99 latency (ms)', 'ms', s => s.p99Ms, false);
        timelineChart(lines, exp.timelines, colors, 'Thread-pool threads', 'threads', s => s.threads, true);
        timelineChart(lines, exp.timelines, colors, 'Thread-pool queue length', 'queued items', s => s.queueLength, false);
      }
      const order = document.querySelector('.charts.runorder[data-experiment="' + exp.id + '"]');
      if (order && exp.runOrder) {
        runOrderChart(order, exp.runOrder, colors);
      }
      const breakdown = document.querySelector('.charts.breakdown[data-experiment="' + exp.id + '"]');
      if (breakdown && exp.breakdown) {
        breakdownChart(breakdown, exp.breakdown);
      }
    }
    for (const sweep of (page.sweeps || [])) {
      const box = document.querySelector('.charts.sweep[data-sweep="' + sweep.id + '"]');
      if (box) {
        sweepChart(box, sweep);
      }
    }
  } catch (e) {
    body.dataset.chartError = String((e && e.message) || e);
  }

  let rendered = 0;
  for (const chart of charts) {
    if (hasData(chart) && paintedPixels(chart.canvas) > 0) rendered++;
  }
  body.dataset.chartsTotal = String(charts.length);
  body.dataset.chartsRendered = String(rendered);
})();
