// The delayq dashboard pages: the overview, a queue, a job. Everything shown comes from the JSON API and is put in
// the page as text (textContent, createTextNode, attribute values): never as HTML, so ids, payloads, errors and
// queue names from Redis cannot become markup or script. No inline script: the Content-Security-Policy forbids it.
'use strict';
(function () {
  // How often the pages read the API again: the dashboard's setting (Dashboard.Builder.refresh), 5 s by default.
  const REFRESH_MS = Number(document.documentElement.dataset.refresh) || 5000;
  const PAGE = 50;
  // waiting: jobs waiting for their parents (flows, docs/flows.md); not among the scheduled ones.
  const STATES = ['scheduled', 'processing', 'done', 'dead', 'waiting'];
  // The scheduled jobs by state (issue 43): due now, due later, failed and waiting for a retry still to come.
  const SPLIT = ['ready', 'delayed', 'retrying'];
  const SPLIT_TITLES = { ready: 'scheduled, due now', delayed: 'scheduled, due later', retrying: 'scheduled, failed and waiting for a retry' };
  // Which buttons a job gets: the operations its "allowed" list names (the server's one table of which state allows
  // which operation), a scheduled job's delete offered as its cancel.
  function offers(job) {
    const ok = {};
    for (const op of job.allowed || []) ok[op] = true;
    if (ok.cancel) ok.delete = false;
    return ok;
  }
  const main = document.getElementById('main');
  // Where the dashboard is mounted: '' on the standalone server, e.g. '/delayq' inside an application. Every link and
  // request starts with it.
  const BASE = document.documentElement.dataset.base || '';
  const ctx = { offsetMs: 0, readOnly: true, server: null };
  // The live refresh: paused by the operator (the top bar's button), or held while a confirmation is armed so that the
  // row under the cursor does not move or vanish between the two clicks.
  const live = { paused: false, armed: 0 };

  // ---- DOM helpers --------------------------------------------------------------------------------------------

  /** An element; strings among the children become text nodes. */
  function h(tag, attrs, ...kids) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v == null || v === false) continue;
      if (k === 'class') el.className = v;
      else if (k === 'text') el.textContent = String(v);
      else if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
      else el.setAttribute(k, v === true ? '' : String(v));
    }
    for (const kid of kids.flat()) {
      if (kid == null || kid === false) continue;
      el.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
    }
    return el;
  }

  // Dots too: an id '..' must stay one path segment, not step up a level.
  /** Replaces an element's children; null and false are left out, strings become text. */
  function fill(el, ...kids) {
    el.replaceChildren(...kids.flat().filter((k) => k != null && k !== false));
    return el;
  }

  // Only a whole '.' or '..' segment: an application's firewall (Spring Security's) refuses '%2E' in other places.
  const enc = (s) => (s === '.' || s === '..' ? s.replace(/\./g, '%2E') : encodeURIComponent(s));
  const queueHref = (q, params) => dotSafe(BASE + '/queues/' + enc(q), params);
  const jobHref = (q, id) => dotSafe(BASE + '/queues/' + enc(q) + '/jobs/' + enc(id));
  const apiQueue = (q) => BASE + '/api/queues/' + enc(q);
  const apiJob = (q, id) => apiQueue(q) + '/jobs/' + enc(id);

  // A browser resolves a '.' or '..' path segment, '%2E' and '%2E%2E' too, before it sends a request: a queue or job
  // named so goes in the query instead, its segment '_' (the server's DotSegments). Builds path?params with that done.
  function dotSafe(path, params) {
    const q = new URLSearchParams(params || {});
    const m = path.match(/^(.*?\/queues\/)([^/]+)(?:(\/jobs\/)([^/]+))?(.*)$/);
    let p = path;
    if (m) {
      const dots = (seg) => seg === '%2E' || seg === '%2E%2E';
      if (dots(m[2])) q.set('queue', decodeURIComponent(m[2]));
      if (m[4] && dots(m[4])) q.set('id', decodeURIComponent(m[4]));
      p = m[1] + (dots(m[2]) ? '_' : m[2]) + (m[3] ? m[3] + (dots(m[4]) ? '_' : m[4]) : '') + m[5];
    }
    const query = q.toString();
    return query ? p + '?' + query : p;
  }

  // The name in a page's address: the query's for the placeholder '_' (see dotSafe).
  function fromAddress(segment, key) {
    const v = new URLSearchParams(location.search).get(key);
    return segment === '_' && (v === '.' || v === '..') ? v : decodeURIComponent(segment);
  }

  function card(title, ...kids) {
    return h('section', { class: 'card' }, title ? h('h2', { text: title }) : null, ...kids);
  }

  function facts(pairs) {
    return h('dl', { class: 'facts' }, pairs.map(([k, v, attrs]) => h('div', null, h('dt', { text: k }), h('dd', attrs || null, v))));
  }

  function setCrumbs(items) {
    const nav = document.getElementById('crumbs');
    fill(nav, ...items.flatMap((it, i) => [
      i ? h('span', { class: 'sep', text: '/' }) : null,
      it.href ? h('a', { href: it.href, text: it.text }) : h('span', { text: it.text })]));
  }

  let toastTimer = null;
  function toast(text, isError) {
    const t = document.getElementById('toast');
    t.textContent = text;
    t.className = isError ? 'error' : '';
    t.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => { t.hidden = true; }, isError ? 8000 : 4000);
  }

  // ---- formatting ---------------------------------------------------------------------------------------------

  const fmtInt = (n) => (n == null ? '-' : Number(n).toLocaleString('en-US'));

  function fmtBytes(n) {
    if (n == null) return '-';
    const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
    let v = n, u = 0;
    while (v >= 1024 && u < units.length - 1) { v /= 1024; u++; }
    return (u === 0 ? v : v.toFixed(1)) + ' ' + units[u];
  }

  function fmtSpan(ms) {
    const s = Math.round(Math.abs(ms) / 1000);
    if (s < 1) return Math.round(Math.abs(ms)) + ' ms';
    if (s < 60) return s + ' s';
    if (s < 3600) return Math.floor(s / 60) + ' min ' + (s % 60) + ' s';
    if (s < 86400) return Math.floor(s / 3600) + ' h ' + Math.floor((s % 3600) / 60) + ' min';
    return Math.floor(s / 86400) + ' d ' + Math.floor((s % 86400) / 3600) + ' h';
  }

  const serverNow = () => Date.now() + ctx.offsetMs;

  /** An ISO instant as local time, with how far it is from Redis's now. */
  function fmtTime(iso) {
    if (!iso) return '-';
    const t = Date.parse(iso);
    const d = new Date(t);
    const p = (n, w) => String(n).padStart(w || 2, '0');
    const local = d.getFullYear() + '-' + p(d.getMonth() + 1) + '-' + p(d.getDate()) + ' ' + p(d.getHours()) + ':'
      + p(d.getMinutes()) + ':' + p(d.getSeconds()) + '.' + p(d.getMilliseconds(), 3);
    const diff = t - serverNow();
    return local + ' (' + (diff >= 0 ? 'in ' + fmtSpan(diff) : fmtSpan(diff) + ' ago') + ')';
  }

  /** A text element showing an instant (kept up to date by refreshTimes: "in 5 s" becomes "3 s ago"). */
  function timeEl(tag, iso, prefix, attrs) {
    const el = h(tag, Object.assign({ 'data-time': iso || '', 'data-prefix': prefix || '' }, attrs || {}));
    el.textContent = (prefix || '') + fmtTime(iso);
    return el;
  }

  function refreshTimes(root) {
    for (const el of root.querySelectorAll('[data-time]')) {
      el.textContent = (el.getAttribute('data-prefix') || '') + fmtTime(el.getAttribute('data-time'));
    }
  }

  const oneLine = (s, max) => {
    if (s == null) return '';
    const flat = s.replace(/\s+/g, ' ');
    return flat.length > max ? flat.slice(0, max - 1) + '…' : flat;
  };

  // ---- the API ------------------------------------------------------------------------------------------------

  // Inside an application with Spring Security, changes carry the CSRF token it expects: the XSRF-TOKEN cookie's value
  // (CookieCsrfTokenRepository) sent back as the X-XSRF-TOKEN header. Absent cookie, absent header.
  function csrfHeaders(method) {
    if (method === 'GET' || method === 'HEAD') return {};
    const m = document.cookie.match(/(?:^|;\s*)XSRF-TOKEN=([^;]*)/);
    return m ? { 'X-XSRF-TOKEN': decodeURIComponent(m[1]) } : {};
  }

  async function api(method, path, params) {
    const url = dotSafe(path, params);
    const headers = Object.assign({ Accept: 'application/json' }, csrfHeaders(method));
    const res = await fetch(url, { method, headers, credentials: 'same-origin' });
    if (res.status === 401) {
      location.assign(BASE + '/login');
      throw new Error('the token is needed: log in');
    }
    let body = null;
    try { body = await res.json(); } catch (e) { body = null; }
    if (!res.ok) {
      const err = new Error(body && body.error ? body.error : res.status + ' ' + res.statusText);
      err.status = res.status;
      throw err;
    }
    return body;
  }

  async function loadServer() {
    const s = await api('GET', BASE + '/api/server');
    ctx.server = s;
    ctx.offsetMs = Date.parse(s.serverTime) - Date.now();
    ctx.readOnly = s.readOnly;
    const mode = document.getElementById('mode');
    mode.textContent = 'Redis ' + s.version + ' · ' + s.mode + (s.readOnly ? ' · read-only' : '');
    mode.className = 'pill' + (s.readOnly ? ' warn' : '');
    mode.hidden = false;
    document.getElementById('logout').hidden = !s.tokenRequired;
    return s;
  }

  /** Runs {@code load} now and every few seconds while the page is visible; shows when it last worked. */
  function every(load) {
    const status = document.getElementById('status');
    let timer = null;
    let running = false;
    // forced: after the operator's own change, shown even while updates are paused.
    async function tick(forced) {
      clearTimeout(timer);
      if ((live.paused && forced !== true) || live.armed > 0) {
        document.body.dataset.held = String(Number(document.body.dataset.held || 0) + 1); // tests wait on it
        timer = setTimeout(tick, REFRESH_MS);
        return;
      }
      if (!running && !document.hidden) {
        running = true;
        try {
          await loadServer();
          await load();
          status.textContent = 'updated ' + new Date().toLocaleTimeString();
        } catch (e) {
          status.textContent = 'update failed: ' + e.message;
        } finally {
          running = false;
        }
      }
      timer = setTimeout(tick, REFRESH_MS);
    }
    document.addEventListener('visibilitychange', () => { if (!document.hidden) tick(); });
    tick();
    return () => tick(true);
  }

  /** Runs a change, reports it, refreshes. */
  async function act(what, method, path, params, refresh) {
    try {
      await api(method, path, params);
      toast(what);
    } catch (e) {
      toast(e.message, true);
    }
    if (refresh) await refresh();
  }

  /** A button that asks for a second click before a change that cannot be undone. */
  function confirmButton(label, cls, action, run) {
    let armed = null;
    const b = h('button', { type: 'button', class: cls, 'data-action': action });
    b.textContent = label;
    b.addEventListener('click', () => {
      if (armed) {
        clearTimeout(armed);
        armed = null;
        live.armed--;
        b.classList.remove('confirm');
        b.textContent = label;
        run();
        return;
      }
      b.classList.add('confirm');
      b.textContent = 'Sure? ' + label;
      live.armed++;
      armed = setTimeout(() => { armed = null; live.armed--; b.classList.remove('confirm'); b.textContent = label; }, 4000);
    });
    return b;
  }

  function button(label, cls, action, run) {
    return h('button', { type: 'button', class: cls, 'data-action': action, onclick: run, text: label });
  }

  // ---- charts -------------------------------------------------------------------------------------------------

  // ---- queue page charts: a window of 1 h, 24 h or 7 d (issue 43) ------------------------------------------------

  const WINDOWS = { '1h': { label: '1 h', per: 'per minute', span: 'last hour' },
    '24h': { label: '24 h', per: 'per 10 min', span: 'last 24 hours, worst minute per 10 min' },
    '7d': { label: '7 d', per: 'per hour', span: 'last 7 days' } };

  function chartWindow() {
    const w = new URLSearchParams(location.search).get('window');
    return WINDOWS[w] ? w : '1h';
  }

  /** The unit that fits a lag of up to maxMs: ms below 1 s, s below 2 min, min above. */
  function lagUnit(maxMs) {
    if (!(maxMs >= 1000)) return { name: 'ms', div: 1 };
    return maxMs < 120000 ? { name: 's', div: 1000 } : { name: 'min', div: 60000 };
  }

  function fmtNum(v) {
    return v == null ? '-' : String(Math.round(v * 100) / 100);
  }

  /** The window selector and the two charts, each with a line under it that shows the hovered point's values;
   * {@code render} draws them for the window in the address (the queue page: its queue; the overview: every queue). */
  function windowCharts(render) {
    const picker = h('div', { class: 'row', id: 'chart-window', role: 'group', 'aria-label': 'Chart window' },
      h('span', { class: 'muted', text: 'Charts:' }),
      Object.keys(WINDOWS).map((w) => h('button', { type: 'button', 'data-window': w, text: WINDOWS[w].label,
        onclick: () => {
          const params = new URLSearchParams(location.search);
          params.set('window', w);
          history.replaceState(null, '', location.pathname + '?' + params.toString());
          // Links on the page carry the window (paging, tabs, queues): drawn again with it.
          for (const a of document.querySelectorAll('a[data-keeps-window]')) a.href = keepWindow(a.getAttribute('href'));
          render();
        } })));
    const chart = (key) => {
      const holder = h('div', { class: 'chart', id: 'chart-' + key });
      return h('section', { class: 'card' }, h('h2', { id: 'chart-title-' + key }), holder,
        h('p', { class: 'muted chart-hover', id: 'hover-' + key, text: 'move over the chart for values' }));
    };
    return h('div', null, picker, h('div', { class: 'grid' }, chart('throughput'), chart('lag')));
  }

  function queueCharts(name) {
    return windowCharts(() => renderQueueHistory(name));
  }

  /** {@code href} with the chart window of the address (none when it is the default, 1 h). */
  function keepWindow(href) {
    const url = new URL(href, location.href);
    const w = new URLSearchParams(location.search).get('window');
    if (WINDOWS[w] && w !== '1h') url.searchParams.set('window', w); else url.searchParams.delete('window');
    return url.pathname + url.search;
  }

  /** A link that keeps the chart window as it is switched. */
  function windowLink(attrs, href, ...kids) {
    return h('a', Object.assign({ href: keepWindow(href), 'data-keeps-window': '' }, attrs), ...kids);
  }

  /** Several queues' windows of history as one: counts summed per point, the worst lag of any queue. */
  function mergeWindows(hists, w) {
    if (hists.length === 1) return hists[0];
    const byStart = new Map();
    for (const hist of hists) {
      for (const p of hist.points) {
        const a = byStart.get(p.start) || { start: p.start, enqueued: 0, completed: 0, retried: 0, dead: 0, lagP50Millis: null, lagP99Millis: null };
        a.enqueued += p.enqueued; a.completed += p.completed; a.retried += p.retried; a.dead += p.dead;
        if (p.lagP50Millis != null) a.lagP50Millis = Math.max(a.lagP50Millis == null ? 0 : a.lagP50Millis, p.lagP50Millis);
        if (p.lagP99Millis != null) a.lagP99Millis = Math.max(a.lagP99Millis == null ? 0 : a.lagP99Millis, p.lagP99Millis);
        byStart.set(p.start, a);
      }
    }
    const points = [...byStart.values()].sort((a, b) => Date.parse(a.start) - Date.parse(b.start));
    return { window: w, pointSeconds: hists.length ? hists[0].pointSeconds : { '1h': 60, '24h': 600, '7d': 3600 }[w], points };
  }

  /** Draws a window's chart anew when its window or unit changed, else updates its data; the hover line follows. */
  function drawWindowChart(key, sig, labels, colors, data, fmtX, fmtY) {
    const holder = document.getElementById('chart-' + key);
    const hover = document.getElementById('hover-' + key);
    if (!holder || !window.uPlot) return;
    if (holder.plot && holder.sig === sig) {
      holder.plot.setData(data);
      return;
    }
    if (holder.plot) holder.plot.destroy();
    fill(holder);
    holder.sig = sig;
    holder.dataset.window = sig.split(' ')[0];
    const show = (u) => {
      const i = u.cursor.idx;
      if (i == null || !hover) return;
      hover.textContent = fmtX(u.data[0][i]) + ' · ' + labels.map((l, s) => l + ' ' + fmtY(u.data[s + 1][i])).join(' · ');
    };
    holder.plot = new window.uPlot({
      width: Math.max(280, holder.clientWidth || 560), height: 220,
      legend: { live: false },
      scales: { x: { time: true } },
      axes: [{}, { size: 56, values: (u, vals) => vals.map(fmtNum) }],
      series: [{}].concat(labels.map((l, i) => ({ label: l, stroke: colors[i], width: 2, spanGaps: false,
        points: key === 'lag' ? { show: true, size: 5 } : {} }))),
      hooks: { setCursor: [show] },
    }, data, holder);
  }

  async function renderQueueHistory(name) {
    return renderWindowHistory([name], '');
  }

  /** The charts of {@code names} (merged when several; {@code scope} says so in the titles) in the address's window. */
  async function renderWindowHistory(names, scope) {
    const w = chartWindow();
    for (const b of document.querySelectorAll('#chart-window [data-window]')) {
      b.setAttribute('aria-pressed', String(b.dataset.window === w));
      b.classList.toggle('primary', b.dataset.window === w);
    }
    let hist;
    try {
      hist = mergeWindows(await Promise.all(names.map((n) => api('GET', apiQueue(n) + '/history', { window: w }))), w);
    } catch (e) {
      for (const key of ['throughput', 'lag']) {
        const holder = document.getElementById('chart-' + key);
        if (holder) { if (holder.plot) holder.plot.destroy(); holder.plot = null; fill(holder, h('p', { class: 'empty', text: 'history unavailable: ' + e.message })); }
      }
      return;
    }
    if (hist.window !== chartWindow()) return; // switched while it loaded: the newer call draws
    const pts = hist.points;
    const xs = pts.map((p) => Date.parse(p.start) / 1000);
    const step = hist.pointSeconds;
    const fmtX = (t) => {
      const hm = { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' };
      const opts = step >= 3600 ? Object.assign({ weekday: 'short' }, hm) : hm;
      return new Date(t * 1000).toLocaleString([], opts) + '–' + new Date((t + step) * 1000).toLocaleTimeString([], hm);
    };
    const col = (f) => pts.map((p) => p[f]);
    const spec = WINDOWS[w];
    const all = scope ? scope.all + ', ' : '';
    document.getElementById('chart-title-throughput').textContent = 'Throughput, jobs ' + spec.per + ' (' + all + spec.span.replace(', worst minute per 10 min', '') + ')';
    drawWindowChart('throughput', w, ['enqueued', 'completed', 'retried', 'dead'], ['#2f5bd3', '#2f855a', '#b7791f', '#c53030'],
      [xs, col('enqueued'), col('completed'), col('retried'), col('dead')], fmtX, (v) => (v == null ? '-' : fmtInt(v)) + ' ' + spec.per);
    const unit = lagUnit(Math.max(0, ...pts.map((p) => p.lagP99Millis || 0)));
    const scaled = (f) => pts.map((p) => (p[f] == null ? null : p[f] / unit.div));
    document.getElementById('chart-title-lag').textContent = 'Dispatch lag, ' + unit.name + ' (' + (scope ? scope.worst + ', ' : '') + spec.span + ')';
    drawWindowChart('lag', w + ' ' + unit.name, ['p50', 'p99'], ['#2f855a', '#c53030'], [xs, scaled('lagP50Millis'), scaled('lagP99Millis')],
      fmtX, (v) => fmtNum(v) + ' ' + unit.name);
  }

  // ---- overview -----------------------------------------------------------------------------------------------

  const OVERVIEW_SCOPE = { all: 'all queues', worst: 'worst queue' };

  function overview() {
    let shown = [];
    setCrumbs([{ text: 'Overview' }]);
    document.title = 'delayq';
    const serverBody = h('div');
    const queuesBody = h('div');
    fill(main, h('h1', { text: 'Overview' }), card('Redis', serverBody),
      card('Queues', h('p', null, h('a', { href: BASE + '/workers', id: 'workers-link', text: 'Workers' }),
        h('span', { class: 'muted', text: ': every live worker, what it runs and since when' })), queuesBody),
      windowCharts(() => renderWindowHistory(shown, OVERVIEW_SCOPE)));
    every(async () => {
      const queues = await api('GET', BASE + '/api/queues');
      // The outbox's pending rows change: read the server facts again when the application has an outbox.
      const s = ctx.server.outbox ? (ctx.server = await api('GET', BASE + '/api/server')) : ctx.server;
      const rows = [
        ['Server', s.server], ['Version', s.version], ['Mode', s.mode],
        ['Memory', fmtBytes(s.usedMemoryBytes) + (s.maxMemoryBytes > 0 ? ' of ' + fmtBytes(s.maxMemoryBytes) : '')],
        ['Clients', fmtInt(s.connectedClients)], ['Uptime', fmtSpan(s.uptimeSeconds * 1000)], ['Key prefix', s.prefix]];
      if (s.outbox) {
        rows.push(['Outbox pending', s.outbox.error ? 'unknown: ' + s.outbox.error
          : fmtInt(s.outbox.pending) + (s.outbox.oldestPendingAge ? ' (oldest ' + s.outbox.oldestPendingAge + ')' : '')]);
      }
      fill(serverBody, facts(rows));
      fill(queuesBody, queues.length === 0
        ? h('p', { class: 'empty', text: 'No queues yet: a queue appears here once a job was enqueued to it.' })
        : queueTable(queues));
      shown = queues.filter((q) => !q.unreadable).map((q) => q.name);
      await renderWindowHistory(shown, OVERVIEW_SCOPE);
    });
  }

  // A queue whose keys cannot be read: flagged on its own row, the others shown as usual.
  function unreadableRow(q) {
    return h('tr', { 'data-queue': q.name, class: 'unreadable' },
      h('td', null, h('a', { href: queueHref(q.name), text: q.name }), ' ', h('span', { class: 'badge dead', text: 'unreadable' })),
      h('td', { colspan: STATES.length + 3, class: 'error', text: q.error }));
  }

  function queueTable(queues) {
    const head = h('tr', null, h('th', { text: 'Queue' }), STATES.map((st) => h('th', { class: 'num', text: st })),
      SPLIT.map((st) => h('th', { class: 'num', text: st })), h('th', { class: 'num', text: 'workers' }),
      h('th', { class: 'num', text: 'oldest due' }), h('th', { class: 'num', text: 'enqueued' }),
      h('th', { class: 'num', text: 'completed' }));
    const rows = queues.map((q) => q.unreadable ? unreadableRow(q) : h('tr', { 'data-queue': q.name },
      h('td', null, windowLink({ text: q.name }, queueHref(q.name)), q.paused ? [' ', h('span', { class: 'badge paused', text: 'paused' })] : null),
      STATES.map((st) => h('td', { class: 'num count-' + st, 'data-state': st },
        windowLink({ text: fmtInt(q[st]) }, queueHref(q.name, { state: st })))),
      SPLIT.map((st) => h('td', { class: 'num count-' + st, 'data-state': st },
        windowLink({ text: fmtInt(q[st]) }, queueHref(q.name, { state: st })))),
      workersCell(q),
      h('td', { class: 'num', text: q.oldestDueLagMillis > 0 ? fmtSpan(q.oldestDueLagMillis) + ' late' : '-' }),
      h('td', { class: 'num', text: fmtInt(q.totals.enqueued) }),
      h('td', { class: 'num', text: fmtInt(q.totals.completed) })));
    return h('table', { id: 'queues' }, h('thead', null, head), h('tbody', null, rows));
  }

  // ---- queue page ---------------------------------------------------------------------------------------------

  function queuePage(name) {
    const params = new URLSearchParams(location.search);
    const st = STATES.includes(params.get('state')) || SPLIT.includes(params.get('state')) ? params.get('state') : 'scheduled';
    // ready, delayed and retrying are scheduled jobs: the same operations.
    const base = SPLIT.includes(st) ? 'scheduled' : st;
    const offset = Math.max(0, parseInt(params.get('offset') || '0', 10) || 0);
    // Done and dead pages: oldest first (index order) or newest first.
    const sortable = st === 'done' || st === 'dead';
    const order = sortable && params.get('order') === 'newest' ? 'newest' : 'oldest';
    const pageParams = (more) => Object.assign({ state: st }, sortable && order === 'newest' ? { order } : {}, more || {});
    const selected = new Set();
    // "All matching": the selection is every job of this tab (and search), across pages; its count as last read.
    const matching = { on: false, count: null, exact: true };
    setCrumbs([{ text: 'Overview', href: BASE + '/' }, { text: name }]);
    document.title = name + ' · delayq';

    const title = h('h1', null, 'Queue ', h('span', { class: 'mono', text: name }));
    const countsBody = h('div');
    const tools = h('div', { class: 'row' });
    const tabs = h('nav', { class: 'tabs', 'aria-label': 'States' });
    const bulk = h('div', { class: 'row' });
    const tableBody = h('div');
    const pager = h('div', { class: 'pager' });
    const groupsBody = h('div', { id: 'groups-panel', hidden: true });
    const delay = h('input', { type: 'text', class: 'delay', value: '5m', 'aria-label': 'Reschedule delay', title: 'Delay for Reschedule: 30s, 5m, 2h, 1h30m' });
    const search = h('input', { type: 'search', placeholder: 'Job id', 'aria-label': 'Find a job by id', id: 'search' });
    const searchForm = h('form', { class: 'row', onsubmit: (e) => {
      e.preventDefault();
      if (search.value.trim()) location.assign(jobHref(name, search.value.trim()));
    } }, search, h('button', { type: 'submit', text: 'Find job' }));

    const found = params.get('q');
    const finder = searchBox(name, st, found);
    const links = h('p', { class: 'row' }, h('a', { href: schedulesHref(name), id: 'tools-link', text: 'Schedules, limits and events' }),
      h('a', { href: BASE + '/workers', text: 'Workers' }));
    fill(main, title, links, card(null, countsBody), card(null, h('div', { class: 'row' }, searchForm, finder, h('span', { class: 'spacer' }), tools)),
      card(null, tabs, bulk, tableBody, pager), groupsBody,
      queueCharts(name));

    let refresh = null;
    const path = (id) => apiJob(name, id);

    // The buttons of a job are the operations its state allows, as the server's table says (the job's "allowed").
    function rowActions(job) {
      if (ctx.readOnly) return [];
      const id = job.id;
      const ok = offers(job);
      return [ok.retry && button('Retry', 'primary', 'retry', () => act('retried ' + id, 'POST', path(id) + '/retry', null, refresh)),
        ok['run-now'] && button('Run now', '', 'run-now', () => act('due now: ' + id, 'POST', path(id) + '/run-now', null, refresh)),
        ok.reschedule && button('Reschedule', '', 'reschedule', () => act('rescheduled ' + id, 'POST', path(id) + '/reschedule', { delay: delay.value.trim() }, refresh)),
        ok.cancel && confirmButton('Cancel', 'danger', 'cancel', () => act('cancelled ' + id, 'POST', path(id) + '/cancel', null, refresh)),
        ok.delete && confirmButton('Delete', 'danger', 'delete', () => act('deleted ' + id, 'DELETE', path(id), null, refresh))].filter(Boolean);
    }

    async function onSelected(what, method, suffix, params) {
      const ids = [...selected];
      let ok = 0;
      const errors = [];
      for (const id of ids) {
        try { await api(method, path(id) + suffix, params); ok++; selected.delete(id); } catch (e) { errors.push(e.message); }
      }
      toast(what + ': ' + ok + ' of ' + ids.length + (errors.length ? ' (' + errors[0] + ')' : ''), errors.length > 0);
      await refresh();
    }

    // Every matching job changed server-side in bounded requests, each going on where the last stopped.
    async function onMatching(action, what) {
      let changed = 0;
      let from = null;
      try {
        for (;;) {
          const r = await api('POST', apiQueue(name) + '/matching/' + action, Object.assign({ state: st }, found ? { q: found } : {}, from != null ? { from } : {}));
          changed += r.changed;
          if (!r.more) break;
          from = r.from;
          toast(what + ': ' + fmtInt(changed) + ' so far');
        }
        toast(what + ': ' + fmtInt(changed) + ' matching jobs');
      } catch (e) {
        toast(what + ': ' + fmtInt(changed) + ', then ' + e.message, true);
      }
      matching.on = false;
      selected.clear();
      await refresh();
    }

    async function selectAllMatching() {
      try {
        const c = await api('GET', apiQueue(name) + '/matching', Object.assign({ state: st }, found ? { q: found } : {}));
        matching.on = true;
        matching.count = c.count;
        matching.exact = c.exact;
      } catch (e) {
        toast(e.message, true);
      }
      renderBulk();
    }

    function renderMatchingBulk() {
      const n = (matching.exact ? '' : 'at least ') + fmtInt(matching.count);
      const items = [h('span', { class: 'muted', id: 'matching-note', text: 'All ' + n + ' ' + st + ' jobs' + (found ? ' matching "' + found + '"' : '') + ' selected, on every page' }),
        button('Clear selection', 'link', 'clear-matching', () => { matching.on = false; selected.clear(); lastPage = null; refresh(); })];
      if (base === 'dead') items.push(confirmButton('Retry all ' + n + ' matching', '', 'retry-matching', () => onMatching('retry', 'retried')));
      if (base !== 'processing') items.push(confirmButton('Delete all ' + n + ' matching', 'danger', 'delete-matching', () => onMatching('delete', 'deleted')));
      fill(bulk, ...items);
    }

    function renderBulk() {
      if (ctx.readOnly) { fill(bulk, h('span', { class: 'muted', text: 'Read-only: changes are disabled.' })); return; }
      if (matching.on) { renderMatchingBulk(); return; }
      const n = h('span', { class: 'muted', text: selected.size + ' selected' });
      const items = { dead: [button('Retry selected', '', 'retry-selected', () => onSelected('retried', 'POST', '/retry')),
        confirmButton('Delete selected', 'danger', 'delete-selected', () => onSelected('deleted', 'DELETE', ''))],
      scheduled: [button('Run selected now', '', 'run-now-selected', () => onSelected('due now', 'POST', '/run-now')),
        button('Reschedule selected', '', 'reschedule-selected', () => onSelected('rescheduled', 'POST', '/reschedule', { delay: delay.value.trim() })),
        h('label', { class: 'muted' }, 'by ', delay),
        confirmButton('Cancel selected', 'danger', 'cancel-selected', () => onSelected('cancelled', 'POST', '/cancel'))],
      done: [confirmButton('Delete selected', 'danger', 'delete-selected', () => onSelected('deleted', 'DELETE', ''))],
      waiting: [confirmButton('Cancel selected', 'danger', 'cancel-selected', () => onSelected('cancelled', 'POST', '/cancel'))],
      processing: [] }[base] || [];
      const onPage = lastShown.length > 0 && lastShown.every((id) => selected.has(id));
      const all = onPage && base !== 'processing' ? button('Select all matching', 'link', 'select-all-matching', selectAllMatching) : null;
      fill(bulk, ...(items.length ? [n, all, ...items] : []));
    }

    function whenCell(job) {
      if (job.state === 'processing') return timeEl('td', job.leaseUntil, 'lease until ');
      if (job.state === 'done' || job.state === 'dead') return timeEl('td', job.finishedAt);
      if (job.state === 'waiting') return timeEl('td', job.enqueuedAt);
      return timeEl('td', job.dueAt);
    }

    // The order of done and dead jobs: a link to the first page in the other order.
    function sortToggle() {
      const other = order === 'newest' ? 'oldest' : 'newest';
      return windowLink({ id: 'sort-toggle', class: 'sort', 'data-order': order, title: 'Show ' + other + ' first',
        text: order === 'newest' ? '↓ newest first' : '↑ oldest first' }, queueHref(name, Object.assign({ state: st }, other === 'newest' ? { order: other } : {})));
    }

    // Who runs a processing job, and for how long (the worker's heartbeat lists it; none yet right after the claim).
    function workerCell(j) {
      if (!j.worker) return h('td', { class: 'muted worker', text: '-' });
      return h('td', { class: 'worker' }, j.worker, h('br'),
        h('span', { class: 'muted', 'data-since': j.runningSince, text: 'running ' + fmtSpan(serverNow() - Date.parse(j.runningSince)) }));
    }

    function renderJobs(page) {
      const when = { scheduled: 'due', processing: 'lease', done: 'finished', dead: 'finished', waiting: 'enqueued' }[base];
      lastShown = page.jobs.map((j) => j.id);
      if (page.jobs.length === 0) {
        fill(tableBody, h('p', { class: 'empty', text: 'No ' + st + ' jobs.' }));
      } else {
        const all = h('input', { type: 'checkbox', 'aria-label': 'Select all', onchange: (e) => {
          for (const j of page.jobs) { if (e.target.checked) selected.add(j.id); else selected.delete(j.id); }
          renderJobs(page); renderBulk();
        } });
        all.checked = matching.on || page.jobs.every((j) => selected.has(j.id));
        if (matching.on) all.disabled = true;
        const rows = page.jobs.map((j) => {
          const box = h('input', { type: 'checkbox', 'aria-label': 'Select job', onchange: (e) => {
            if (e.target.checked) selected.add(j.id); else selected.delete(j.id);
            renderBulk();
          } });
          box.checked = matching.on || selected.has(j.id);
          if (matching.on) box.disabled = true;
          return h('tr', { 'data-id': j.id },
            ctx.readOnly ? null : h('td', null, box),
            h('td', { class: 'id mono' }, h('a', { href: jobHref(name, j.id), text: j.id })),
            h('td', { class: 'name', text: j.name == null ? '' : j.name }),
            h('td', { class: 'num', text: j.attempt + (j.maxAttempts ? '/' + j.maxAttempts : '') }),
            whenCell(j),
            st === 'processing' ? workerCell(j) : null,
            errorCell(j),
            h('td', { class: 'clip mono', text: j.payload != null ? oneLine(j.payload, 80) : '(binary, ' + fmtBytes(j.payloadBytes) + ')' }),
            h('td', { class: 'actions' }, rowActions(j)));
        });
        const head = h('tr', null, ctx.readOnly ? null : h('th', null, all), h('th', { text: 'id' }), h('th', { text: 'name' }),
          h('th', { class: 'num', text: 'attempt' }), h('th', null, when, sortable ? [' ', sortToggle()] : null),
          st === 'processing' ? h('th', { text: 'worker' }) : null, h('th', { text: 'error' }),
          h('th', { text: 'payload' }), h('th', { text: '' }));
        fill(tableBody, h('table', { id: 'jobs' }, h('thead', null, head), h('tbody', null, rows)));
      }
      const from = page.total === 0 ? 0 : offset + 1;
      const to = offset + page.jobs.length;
      fill(pager, h('span', { class: 'muted', text: fmtInt(from) + '–' + fmtInt(to) + ' of ' + fmtInt(page.total) }),
        offset > 0 ? windowLink({ class: 'button', 'data-page': 'previous', text: '‹ Previous' }, queueHref(name, pageParams({ offset: Math.max(0, offset - PAGE) }))) : null,
        to < page.total ? windowLink({ class: 'button', 'data-page': 'next', text: 'Next ›' }, queueHref(name, pageParams({ offset: offset + PAGE }))) : null);
    }

    let lastTools = null;
    let lastTabs = null;
    let lastPage = null;
    let lastShown = [];
    refresh = every(async () => {
      let q;
      try {
        q = await api('GET', apiQueue(name));
      } catch (e) {
        if (e.status === 404) { fill(countsBody, h('p', { class: 'empty', text: e.message })); return; }
        throw e;
      }
      fill(title, 'Queue ', h('span', { class: 'mono', text: name }), q.paused ? [' ', h('span', { class: 'badge paused', text: 'paused' })] : []);
      fill(countsBody, facts([...STATES.map((s) => [s, fmtInt(q[s]), { class: 'count-' + s, 'data-state': s }]),
        ['enqueued (total)', fmtInt(q.totals.enqueued)], ['completed (total)', fmtInt(q.totals.completed)],
        ['retried (total)', fmtInt(q.totals.retried)], ['recovered (total)', fmtInt(q.totals.recovered)],
        ['oldest due', q.oldestDueLagMillis > 0 ? fmtSpan(q.oldestDueLagMillis) + ' late' : '-'],
        ...SPLIT.map((s) => [s, fmtInt(q[s]), { class: 'count-' + s, 'data-state': s }]),
        ['workers', q.unattended ? h('span', { class: 'badge dead', text: '0 · no workers' }) : fmtInt(q.workers), { 'data-state': 'workers' }]]));
      // The tabs only when their counts change: a link replaced under the pointer would lose its click.
      const tabsKey = JSON.stringify([...STATES, ...SPLIT].map((s) => q[s]).concat(chartWindow()));
      if (tabsKey !== lastTabs) {
        fill(tabs, ...STATES.map((s) => windowLink({ class: s === st ? 'active' : '', 'data-state': s }, queueHref(name, { state: s }),
          s + ' ', h('span', { class: 'muted', text: fmtInt(q[s]) }))),
        h('span', { class: 'muted', text: '·' }),
        ...SPLIT.map((s) => windowLink({ class: (s === st ? 'active ' : '') + 'sub', 'data-state': s, title: SPLIT_TITLES[s] },
          queueHref(name, { state: s }), s + ' ', h('span', { class: 'muted', text: fmtInt(q[s]) }))));
        lastTabs = tabsKey;
      }
      const toolsKey = JSON.stringify([ctx.readOnly, q.paused, q.dead]);
      const t = [];
      if (!ctx.readOnly) {
        if (q.paused === true) t.push(button('Resume', 'primary', 'resume', () => act('resumed ' + name, 'POST', apiQueue(name) + '/resume', null, refresh)));
        if (q.paused === false) t.push(button('Pause', '', 'pause', () => act('paused ' + name, 'POST', apiQueue(name) + '/pause', null, refresh)));
        if (q.dead > 0) t.push(button('Retry all dead (' + fmtInt(q.dead) + ')', '', 'retry-all', () => act('retried every dead job', 'POST', apiQueue(name) + '/dead/retry-all', null, refresh)));
        if (q.dead > 0) t.push(deleteAllDeadButton(name, q.dead, refresh));
      }
      if (toolsKey !== lastTools) {
        fill(tools, ...t); // only when they change: a re-rendered button cannot be clicked
        lastTools = toolsKey;
      }
      const page = found ? await api('GET', apiQueue(name) + '/search', { state: st, q: found, from: offset })
        : await api('GET', apiQueue(name) + '/jobs', pageParams({ offset, limit: PAGE }));
      const pageKey = JSON.stringify([ctx.readOnly, page]);
      // A refresh that was under way when a confirmation was armed does not re-render the rows either: the armed
      // button stays for its second click (the next refresh after it renders them).
      if (pageKey !== lastPage && live.armed === 0) {
        renderBulk();
        renderJobs(page);
        if (found) searchPager(pager, tableBody, name, st, page);
        lastPage = pageKey;
      } else {
        refreshTimes(tableBody);
        for (const el of tableBody.querySelectorAll('[data-since]')) {
          el.textContent = 'running ' + fmtSpan(serverNow() - Date.parse(el.getAttribute('data-since')));
        }
      }
      await renderGroups(q);
      await renderQueueHistory(name);
    });

    // The groups with the largest backlogs (docs/groups.md), for a queue whose counts say it has groups: one request,
    // and none at all for a queue without them.
    let lastGroups = null;
    async function renderGroups(q) {
      if (!(q.groups > 0)) { groupsBody.hidden = true; lastGroups = null; return; }
      const g = await api('GET', apiQueue(name) + '/groups');
      const key = JSON.stringify(g);
      if (key === lastGroups) return;
      lastGroups = key;
      const limits = (r) => [r.rate ? 'rate ' + r.rate : null, r.concurrency ? 'concurrency ' + r.concurrency : null].filter(Boolean).join(', ') || 'none';
      const every = limits({ rate: g.groupRate, concurrency: g.groupConcurrency });
      groupsBody.hidden = false;
      fill(groupsBody, card('Groups',
        h('p', { class: 'muted', id: 'groups-note', text: fmtInt(g.groups) + ' groups with scheduled jobs or running leases; every group\'s limits: ' + every
          + (g.top.length < g.groups ? '. The ' + g.top.length + ' with the largest backlogs:' : '') }),
        h('table', { id: 'groups' }, h('thead', null, h('tr', null, h('th', { text: 'group' }), h('th', { class: 'num', text: 'scheduled' }),
          h('th', { class: 'num', text: 'running' }), h('th', { class: 'num', text: 'weight' }), h('th', { text: 'limits' }))),
        h('tbody', null, g.top.map((r) => h('tr', { 'data-group': r.group },
          h('td', { class: 'mono', text: r.group }), h('td', { class: 'num', 'data-col': 'scheduled', text: fmtInt(r.scheduled) }),
          h('td', { class: 'num', 'data-col': 'running', text: fmtInt(r.running) }), h('td', { class: 'num', text: fmtInt(r.weight) }),
          h('td', { text: limits(r) })))))));
    }
  }

  // ---- job page -----------------------------------------------------------------------------------------------

  function jobPage(name, id) {
    setCrumbs([{ text: 'Overview', href: BASE + '/' }, { text: name, href: queueHref(name) }, { text: id }]);
    document.title = id + ' · ' + name + ' · delayq';
    const title = h('h1', null, 'Job ', h('span', { class: 'mono', id: 'job-id', text: id }));
    const body = h('div');
    fill(main, title, body);
    let refresh = null;
    const path = apiJob(name, id);
    const delay = h('input', { type: 'text', class: 'delay', value: '5m', 'aria-label': 'Reschedule delay', title: 'Delay for Reschedule: 30s, 5m, 2h, 1h30m' });

    function actions(j) {
      if (ctx.readOnly) return [h('span', { class: 'muted', text: 'Read-only: changes are disabled.' })];
      const ok = offers(j);
      return [ok.retry && button('Retry', 'primary', 'retry', () => act('retried ' + id, 'POST', path + '/retry', null, refresh)),
        ok['run-now'] && button('Run now', 'primary', 'run-now', () => act('due now', 'POST', path + '/run-now', null, refresh)),
        ok.reschedule && button('Reschedule', '', 'reschedule', () => act('rescheduled ' + id, 'POST', path + '/reschedule', { delay: delay.value.trim() }, refresh)),
        ok.reschedule && h('label', { class: 'muted' }, 'by ', delay),
        ok.cancel && confirmButton('Cancel', 'danger', 'cancel', () => act('cancelled ' + id, 'POST', path + '/cancel', null, refresh)),
        ok.delete && confirmButton('Delete', 'danger', 'delete', () => act('deleted ' + id, 'DELETE', path, null, refresh))].filter(Boolean);
    }

    function timeline(j) {
      const events = [];
      if (j.enqueuedAt) events.push([j.enqueuedAt, 'enqueued']);
      if (j.dueAt && j.state !== 'waiting') events.push([j.dueAt, j.state === 'scheduled' ? (j.attempt > 0 ? 'due again (retry ' + (j.attempt + 1) + ')' : 'due') : 'was due (attempt ' + j.attempt + ')']);
      if (j.leaseUntil) events.push([j.leaseUntil, 'lease ends (token ' + j.token + ')']);
      if (j.finishedAt) events.push([j.finishedAt, j.state === 'dead' ? 'died' : 'completed']);
      events.sort((a, b) => Date.parse(a[0]) - Date.parse(b[0]));
      const now = serverNow();
      return h('ol', { class: 'timeline' }, events.map(([t, what]) => h('li', { class: Date.parse(t) > now ? 'future' : '' },
        h('strong', { text: what }), ' ', timeEl('span', t, '', { class: 'muted' }))));
    }

    // A linked job: its id as a link to its page, and its state.
    function linkedItem(l) {
      return h('li', { 'data-id': l.id }, h('a', { class: 'mono', href: jobHref(name, l.id), text: l.id }), ' ',
        l.state ? h('span', { class: 'badge ' + l.state, text: l.state }) : h('span', { class: 'muted', text: 'gone (deleted or purged)' }));
    }

    // Flows (docs/flows.md): what a waiting job waits for, its parents and the children waiting for it, as links.
    function flowCard(j) {
      const p = j.parents;
      const c = j.children;
      if (!p && !c) return null;
      const items = [];
      if (p) {
        const policy = p.onParentDead === 'ignore' ? 'a dead parent counts as finished' : 'a dead parent makes it dead';
        items.push(h('p', { id: 'flow-waits', text: 'Waiting for ' + fmtInt(p.pending) + ' of its parents to finish ('
          + fmtInt(p.done) + ' done' + (p.dead > 0 ? ', ' + fmtInt(p.dead) + ' dead' : '') + '); ' + policy + '.' }));
        if (p.jobs && p.jobs.length > 0) {
          items.push(h('h3', { text: 'Parents' }), h('ul', { class: 'links', id: 'job-parents' }, p.jobs.map(linkedItem)));
        }
      }
      if (c) {
        items.push(h('h3', { text: 'Waiting children (' + fmtInt(c.waiting) + ')' }),
          h('ul', { class: 'links', id: 'job-children' }, (c.jobs || []).map(linkedItem),
            c.more > 0 ? h('li', { class: 'muted', id: 'children-more', text: 'and ' + fmtInt(c.more) + ' more' }) : null));
      }
      return card('Flow', ...items);
    }

    let last = null;
    refresh = every(async () => {
      let j;
      try {
        j = await api('GET', path);
      } catch (e) {
        last = null;
        if (e.status === 404) {
          fill(body, card(null, h('p', { class: 'empty', text: e.message + ': it may have been deleted, purged or never existed.' }),
            h('a', { href: queueHref(name), text: 'Back to the queue' })));
          return;
        }
        throw e;
      }
      const key = JSON.stringify([ctx.readOnly, j]);
      if (key === last) {
        refreshTimes(body); // the same job: keep the buttons (one may be about to be clicked)
        return;
      }
      last = key;
      const fields = [['State', h('span', { class: 'badge ' + j.state, id: 'job-state', text: j.state })],
        ['Attempts', j.attempt + (j.maxAttempts ? ' of ' + j.maxAttempts : ' (the worker\'s policy decides)')],
        ['Due at', timeEl('span', j.dueAt)], ['Lease until', timeEl('span', j.leaseUntil)], ['Token', String(j.token)],
        ['Finished at', timeEl('span', j.finishedAt)], ['Payload size', fmtBytes(j.payloadBytes)]];
      if (j.name != null) fields.unshift(['Name', j.name]);
      fields.push(['Enqueued at', timeEl('span', j.enqueuedAt)], ['Stalls', fmtInt(j.stalls)]);
      if (j.priority) fields.push(['Priority', String(j.priority)]);
      if (j.progress != null) fields.push(['Progress', j.progress]);
      if (j.dedupeKey != null) fields.push(['Dedupe key', j.dedupeKey]);
      if (j.dedupeHeldUntil) fields.push(['Dedupe key held until', timeEl('span', j.dedupeHeldUntil)]);
      const shown = j.payloadPreviewBytes;
      const note = j.payload == null
        ? 'Not UTF-8 text: the first ' + fmtInt(shown) + ' of ' + fmtInt(j.payloadBytes) + ' bytes, in base64.'
        : j.payloadTruncated ? 'The first ' + fmtInt(shown) + ' of ' + fmtInt(j.payloadBytes) + ' bytes.' : fmtInt(j.payloadBytes) + ' bytes.';
      fill(body,
        j.corrupt ? h('p', { class: 'notice', text: 'This record could not be decoded: it was moved to dead, and the payload below is its raw stored bytes.' }) : null,
        h('div', { class: 'row card', id: 'job-actions' }, actions(j)),
        card('Fields', facts(fields)),
        flowCard(j),
        j.error ? card('Last error', h('pre', { class: 'error', id: 'job-error', text: j.error })) : null,
        j.errors && j.errors.length > 0 ? card('Error history (newest first, the last ' + j.errors.length + ')',
          h('ol', { class: 'errors', id: 'job-errors' }, j.errors.map((e) => h('li', { 'data-attempt': String(e.attempt) },
            h('strong', { text: 'attempt ' + e.attempt }), ' ', timeEl('span', e.at, '', { class: 'muted' }),
            h('pre', { class: 'error', text: e.error }))))) : null,
        card('Payload', h('p', { class: 'muted', id: 'payload-note', text: note }),
          h('pre', { class: 'payload', id: 'job-payload', text: j.payload != null ? j.payload : j.payloadBase64 })),
        card('Timeline', timeline(j)));
    });
  }

  // ---- workers, schedules, limits, events (issue 43) -------------------------------------------------------------

  const schedulesHref = (q) => dotSafe(BASE + '/queues/' + enc(q) + '/schedules');

  /** A queue's live workers; flagged when jobs are due now and none runs them. */
  function workersCell(q) {
    return h('td', { class: 'num', 'data-state': 'workers' }, q.unattended
      ? h('span', { class: 'badge dead', title: 'Jobs are due now and no live worker runs them', text: '0 · no workers' })
      : fmtInt(q.workers));
  }

  /** A job's error on one line; a click shows it whole (and another folds it again). */
  function errorCell(j) {
    const td = h('td', { class: 'clip error-cell', title: j.error ? 'Click to show the whole error' : '', text: oneLine(j.error, 120) });
    if (j.error) {
      td.addEventListener('click', () => {
        const whole = !td.classList.contains('whole');
        td.classList.toggle('whole', whole);
        td.textContent = whole ? j.error : oneLine(j.error, 120);
      });
    }
    return td;
  }

  function workersPage() {
    setCrumbs([{ text: 'Overview', href: BASE + '/' }, { text: 'Workers' }]);
    document.title = 'Workers · delayq';
    const body = h('div');
    fill(main, h('h1', { text: 'Workers' }), card(null, h('p', { class: 'muted', text:
      'Every live worker by its heartbeat (every 10 s by default): a worker that stops drops out at once when it closes, '
      + 'or three beats after its last one when it dies.' }), body));
    let last = null;
    every(async () => {
      const answer = await api('GET', BASE + '/api/workers');
      const key = JSON.stringify(answer.workers);
      if (key === last) { refreshTimes(body); return; }
      last = key;
      if (answer.workers.length === 0) {
        fill(body, h('p', { class: 'empty', text: 'No live workers.' }));
        return;
      }
      const head = h('tr', null, ['name', 'host', 'pid', 'queues', 'concurrency', 'running', 'started', 'last beat', 'version']
        .map((t) => h('th', { class: t === 'pid' || t === 'concurrency' ? 'num' : null, text: t })));
      const rows = answer.workers.map((w) => h('tr', { 'data-worker': w.id },
        h('td', { class: 'mono', title: w.id, text: w.name }), h('td', { text: w.host }), h('td', { class: 'num', text: String(w.pid) }),
        h('td', { class: 'queues' }, w.queues.flatMap((q, i) => [i ? ', ' : null, h('a', { href: queueHref(q), text: q })])),
        h('td', { class: 'num', text: fmtInt(w.concurrency) }),
        h('td', { class: 'running' }, w.running.length === 0 ? h('span', { class: 'muted', text: 'idle' })
          : h('ul', { class: 'plain' }, w.running.map((r) => h('li', { 'data-job': r.id },
            h('span', { class: 'mono', text: r.id }), ' ', timeEl('span', r.startedAt, 'since ', { class: 'muted' }))))),
        timeEl('td', w.startedAt), timeEl('td', w.lastBeat), h('td', { text: w.version })));
      fill(body, h('table', { id: 'workers' }, h('thead', null, head), h('tbody', null, rows)));
    });
  }

  function toolsPage(name) {
    setCrumbs([{ text: 'Overview', href: BASE + '/' }, { text: name, href: queueHref(name) }, { text: 'Schedules, limits, events' }]);
    document.title = 'Schedules · ' + name + ' · delayq';
    const schedulesBody = h('div');
    const limitsBody = h('div');
    const eventsBody = h('div', { id: 'events-body' });
    fill(main, h('h1', null, 'Queue ', h('span', { class: 'mono', text: name }), ': schedules, limits, events'),
      card('Schedules', schedulesBody), card('Limits', limitsBody), card('Events', eventsBody));
    let refresh = null;
    let lastSchedules = null;
    let lastLimits = null;
    let eventsAfter = null;
    let eventsOn = null;
    const shownEvents = [];
    const MAX_SHOWN = 200;
    const rate = h('input', { type: 'text', id: 'limit-rate', 'aria-label': 'Rate limit', placeholder: 'e.g. 50/1s, or none' });
    const concurrency = h('input', { type: 'text', id: 'limit-concurrency', 'aria-label': 'Concurrency limit', placeholder: 'e.g. 5, or none' });

    function renderSchedules(list) {
      if (list.length === 0) { fill(schedulesBody, h('p', { class: 'empty', text: 'No schedules in this queue.' })); return; }
      const head = h('tr', null, ['name', 'when', 'next tick (UTC)', 'next tick (its zone)', 'last tick', 'missed', ''].map((t) => h('th', { text: t })));
      const rows = list.map((s) => h('tr', { 'data-schedule': s.name },
        h('td', { class: 'mono', text: s.name }),
        h('td', { class: 'mono', text: s.cron ? s.cron + ' (' + s.zone + ')' : 'every ' + s.every }),
        h('td', { class: 'mono next-utc', text: s.paused ? 'paused' : (s.nextTick || '- (ended)') }),
        h('td', { class: 'mono next-local', text: s.nextTickLocal ? s.nextTickLocal + ' ' + s.zone : '-' }),
        timeEl('td', s.lastTick),
        h('td', { text: s.missed }),
        h('td', { class: 'actions' }, ctx.readOnly ? null : [
          s.pendingJob && button('Run now', 'primary', 'schedule-run-now', () => act('tick due now: ' + s.pendingJob, 'POST',
            apiQueue(name) + '/schedules/' + enc(s.name) + '/run-now', null, refresh)),
          s.paused
            ? button('Resume', '', 'schedule-resume', () => act('resumed schedule ' + s.name, 'POST',
              apiQueue(name) + '/schedules/' + enc(s.name) + '/resume', null, refresh))
            : button('Pause', '', 'schedule-pause', () => act('paused schedule ' + s.name, 'POST',
              apiQueue(name) + '/schedules/' + enc(s.name) + '/pause', null, refresh)),
          confirmButton('Remove', 'danger', 'schedule-remove', () => act('removed schedule ' + s.name, 'DELETE',
            apiQueue(name) + '/schedules/' + enc(s.name), null, refresh))])));
      fill(schedulesBody, h('table', { id: 'schedules' }, h('thead', null, head), h('tbody', null, rows)),
        h('p', { class: 'muted', text: 'Run now makes the pending tick\'s job due now; the schedule goes on at its next tick. '
          + 'Pause cancels its pending tick and makes no tick until Resume, which goes on at the next tick after now '
          + '(the ticks in between are skipped).' }));
    }

    function renderLimits(q) {
      const shown = h('span', { id: 'limits-now', text: 'rate ' + (q.rate || 'none') + ', concurrency ' + (q.concurrency == null ? 'none' : q.concurrency) });
      if (ctx.readOnly) { fill(limitsBody, facts([['Limits', shown]])); return; }
      rate.value = q.rate || '';
      concurrency.value = q.concurrency == null ? '' : String(q.concurrency);
      fill(limitsBody, facts([['Limits now', shown]]),
        h('form', { class: 'row', id: 'limits-form', onsubmit: (e) => {
          e.preventDefault();
          if (document.activeElement) document.activeElement.blur(); // the answer re-renders the form
          act('limits of ' + name + ' set', 'POST', apiQueue(name) + '/limits',
            { rate: rate.value.trim() || 'none', concurrency: concurrency.value.trim() || 'none' }, refresh);
        } }, h('label', null, 'rate ', rate), h('label', null, 'concurrency ', concurrency),
        h('button', { type: 'submit', class: 'primary', 'data-action': 'limits-save', text: 'Set limits' })),
        h('p', { class: 'muted', text: 'Enforced inside every claim, across all workers at once (as delayq limit). Empty or none removes a limit.' }));
    }

    function renderEvents() {
      if (!eventsOn) {
        fill(eventsBody, h('p', { class: 'empty', text: 'Events are off for this queue (delayq events ' + name + ' --enable turns them on).' }));
        return;
      }
      if (shownEvents.length === 0) { fill(eventsBody, h('p', { class: 'empty', text: 'No events in the last minutes.' })); return; }
      const rows = shownEvents.slice().reverse().map((e) => h('tr', { 'data-event': e.eventId },
        timeEl('td', e.at), h('td', { text: e.type }),
        h('td', { class: 'mono' }, e.jobId ? h('a', { href: jobHref(name, e.jobId), text: e.jobId }) : '-'),
        h('td', { class: 'mono', text: Object.entries(e.fields || {}).map(([k, v]) => k + '=' + v).join(' ') })));
      fill(eventsBody, h('table', { id: 'events' }, h('thead', null, h('tr', null, ['at', 'event', 'job', 'fields'].map((t) => h('th', { text: t })))),
        h('tbody', null, rows)), h('p', { class: 'muted', text: 'Newest first; the last ' + MAX_SHOWN + ' kept on the page, read 200 at most per refresh.' }));
    }

    refresh = every(async () => {
      const [sched, q] = await Promise.all([api('GET', apiQueue(name) + '/schedules'), api('GET', apiQueue(name))]);
      const sKey = JSON.stringify([ctx.readOnly, sched.schedules]);
      if (sKey !== lastSchedules) { renderSchedules(sched.schedules); lastSchedules = sKey; } else refreshTimes(schedulesBody);
      const lKey = JSON.stringify([ctx.readOnly, q.rate, q.concurrency]);
      if (lKey !== lastLimits && !limitsBody.contains(document.activeElement)) { renderLimits(q); lastLimits = lKey; }
      const ev = await api('GET', apiQueue(name) + '/events', eventsAfter ? { after: eventsAfter, max: 200 } : { max: 200 });
      eventsOn = ev.enabled;
      for (const e of ev.events) { shownEvents.push(e); eventsAfter = e.eventId; }
      shownEvents.splice(0, Math.max(0, shownEvents.length - MAX_SHOWN));
      renderEvents();
    });
  }

  // ---- routing ------------------------------------------------------------------------------------------------

  // Search within a queue's state (the server's bounded scan): the start of an id, or text of a name or an error.
  function searchBox(name, st, found) {
    const input = h('input', { type: 'search', id: 'find', placeholder: 'id prefix, name or error', 'aria-label': 'Search jobs', value: found || '' });
    return h('form', { class: 'row', id: 'find-form', onsubmit: (e) => {
      e.preventDefault();
      location.assign(input.value.trim() ? queueHref(name, { state: st, q: input.value.trim() }) : queueHref(name, { state: st }));
    } }, input, h('button', { type: 'submit', text: 'Search' }), found ? h('a', { href: queueHref(name, { state: st }), text: 'Clear' }) : null);
  }

  // A search answer's note: matches, how many jobs were read, and a link on when the scan stopped before the end.
  function searchPager(pager, tableBody, name, st, page) {
    if (page.jobs.length === 0) fill(tableBody, h('p', { class: 'empty', id: 'no-match', text: 'No ' + st + ' job matches "' + page.q + '".' }));
    fill(pager, h('span', { class: 'muted', id: 'search-note', text: fmtInt(page.jobs.length) + ' matching in ' + fmtInt(page.scanned)
      + ' jobs read from position ' + fmtInt(page.from + 1) + (page.next == null ? ' to the end' : ' (a search reads at most ' + fmtInt(page.scanLimit) + ')') }),
    page.next != null ? h('a', { class: 'button', href: queueHref(name, { state: st, q: page.q, offset: page.next }), text: 'Search on ›' }) : null);
  }

  // "Delete all dead (n)": every dead job of the queue, after a second click.
  function deleteAllDeadButton(name, n, refresh) {
    return confirmButton('Delete all dead (' + fmtInt(n) + ')', 'danger', 'delete-all-dead',
      () => act('deleted every dead job', 'POST', apiQueue(name) + '/dead/delete-all', null, refresh));
  }

  // The top bar's pause of the live refresh.
  function liveButton() {
    const b = h('button', { type: 'button', class: 'link', id: 'live', 'aria-pressed': 'false', text: 'Pause updates' });
    b.addEventListener('click', () => {
      live.paused = !live.paused;
      b.textContent = live.paused ? 'Resume updates' : 'Pause updates';
      b.setAttribute('aria-pressed', String(live.paused));
      document.getElementById('status').textContent = live.paused ? 'updates paused' : '';
    });
    document.getElementById('status').after(b);
  }

  function route() {
    liveButton();
    const p = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) : location.pathname;
    let m;
    try {
      if (p === '/' || p === '') return overview();
      if (p === '/workers' || p === '/workers/') return workersPage();
      if ((m = p.match(/^\/queues\/([^/]+)\/schedules\/?$/))) return toolsPage(fromAddress(m[1], 'queue'));
      if ((m = p.match(/^\/queues\/([^/]+)\/jobs\/([^/]+)\/?$/))) return jobPage(fromAddress(m[1], 'queue'), fromAddress(m[2], 'id'));
      if ((m = p.match(/^\/queues\/([^/]+)\/?$/))) return queuePage(fromAddress(m[1], 'queue'));
    } catch (e) {
      // a malformed %-escape in the address: fall through
    }
    fill(main, card(null, h('p', { text: 'No such page. ' }), h('a', { href: BASE + '/', text: 'Overview' })));
  }

  route();
})();
