// Draws report.html's flame graphs from the page's JSON data with the inlined d3 and d3-flame-graph: per traced
// variant its heaviest CPU stacks, and for every variant but the baseline a differential graph coloured by how each
// frame's share changed against the baseline. Records on <body> how many graphs it created
// (data-flamegraphs-total) and how many drew frames (data-flamegraphs-rendered), for the headless-browser test.
(function () {
  'use strict';
  const body = document.body;
  let total = 0;
  let rendered = 0;

  const points = v => (v > 0 ? '+' : '') + v.toFixed(2);

  function box(container, title, kind, variant) {
    const b = document.createElement('div');
    b.className = 'flame';
    const h = document.createElement('h4');
    h.textContent = title;
    const graph = document.createElement('div');
    graph.className = 'flamegraph';
    graph.dataset.kind = kind;
    graph.dataset.variant = variant;
    b.appendChild(h);
    b.appendChild(graph);
    container.appendChild(b);
    return graph;
  }

  function draw(graph, tree, differential) {
    const lib = window.flamegraph;
    const chart = lib.default()
      .width(Math.max(320, graph.clientWidth || 960))
      .cellHeight(18)
      .transitionDuration(0)
      .minFrameSize(1)
      .sort(true)
      .label(d => d.data.name + ': ' + d.data.value.toFixed(2) + ' % of the samples' +
        (differential ? ', ' + points(d.data.delta) + ' points against the baseline' : ''));
    if (differential) {
      chart.setColorMapper(lib.colorMapper.differentialColorMapper);
    }
    d3.select(graph).datum(tree).call(chart);
    total++;
    const frames = graph.querySelectorAll('svg g.frame').length;
    const rects = graph.querySelectorAll('svg g.frame rect').length;
    graph.dataset.frames = String(frames);
    graph.dataset.rects = String(rects);
    if (frames > 0 && rects === frames) rendered++;
  }

  try {
    const page = JSON.parse(document.getElementById('perflab-data').textContent);
    for (const exp of page.experiments) {
      const container = document.querySelector('.flames[data-experiment="' + exp.id + '"]');
      if (!container || exp.flames.length === 0) continue;
      for (const f of exp.flames) {
        draw(box(container, f.variant + ': CPU stacks (' + f.samples + ' samples in the top stacks, of ' + f.cpuSamples + ')', 'flame', f.variant), f.tree, false);
        if (f.differential) {
          draw(box(container, f.variant + ' against ' + f.baseline + ' (differential: shares, red more, blue less)', 'differential', f.variant), f.differential, true);
        }
      }
    }
  } catch (e) {
    body.dataset.flamegraphError = String((e && e.message) || e);
  }
  body.dataset.flamegraphsTotal = String(total);
  body.dataset.flamegraphsRendered = String(rendered);
})();
