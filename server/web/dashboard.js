// safegp dashboard: draws the studies of a `safegp serve` with Plotly.js
// (vendored, served from the binary as assets/plotly.js; see web/vendor).
// Read-only: it only GETs /v1/studies and /v1/studies/{name}/view, the
// latter every POLL_MS while the tab is visible, a study's map
// (/v1/studies/{name}/map) once per version drawn, and the observations as
// CSV when the download button is pressed. No build step; the page's
// Content-Security-Policy (default-src 'self') allows this file and the
// library and nothing inline, so every handler is attached here.
'use strict';
(() => {
  const POLL_MS = 3000;
  const TOKEN_KEY = 'safegp.token';
  // One palette for every plot: the objective blue, violations red,
  // retracted grey, the safe set green, thresholds amber, pending violet.
  const C = {
    f: '#2563eb', band: '#bfdbfe', obs: '#111827', bad: '#dc2626', retracted: '#9ca3af',
    safe: '#dcfce7', safeEdge: '#15803d', threshold: '#d97706', pending: '#7c3aed',
    best: '#0f766e', grid: '#eef0f3', axis: '#6b7280', text: '#374151',
  };
  // The page's elements, once the document is parsed (the script runs in
  // the head, so that the first request starts without waiting for it).
  let app, crumbs, updated;
  let timer = 0;
  let generation = 0; // the newest refresh; older answers are dropped
  let lastText = ''; // the last answer drawn: an unchanged one is not redrawn
  let lastETag = ''; // its ETag, sent with the next poll of the same view
  let uid = 0; // ids of clip paths and patterns
  // skew is the server's clock less this one's, in ms, from the Date of
  // its answers: leases end by the server's clock. 0 while they agree to
  // within a few seconds (Date is given to the second).
  let skew = 0;
  const now = () => Date.now() + skew;
  // ctxNames are the context variables of the study drawn, in the spec's
  // order (null: none), for the contexts written in marks' tooltips.
  let ctxNames = null;
  // units are a study stated in parameters' units, by name (named).
  let units = {};
  const named = (n) => esc(n) + (units[n] ? ` (${esc(units[n])})` : '');
  // wholeBand: the 1-D posteriors' y axes take in the whole ±√β·σ band
  // (a toggle, kept for the tab); otherwise they follow the data and the
  // band is clipped. lastData is the view drawn, redrawn on a toggle.
  const BAND_KEY = 'safegp.wholeBand';
  let wholeBand = sessionStorage.getItem(BAND_KEY) === '1';
  let lastData = null;

  // ---- formatting ----

  const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
  // fmt writes a number compactly: 4 significant digits, exponents outside
  // [1e-3, 1e5).
  function fmt(v) {
    if (v === null || v === undefined || !Number.isFinite(v)) return '–';
    if (v === 0) return '0';
    const a = Math.abs(v);
    if (a >= 1e5 || a < 1e-3) return v.toExponential(2).replace('e+', 'e');
    return String(Number(v.toPrecision(4)));
  }
  const point = (x) => (x.length === 1 ? fmt(x[0]) : '(' + x.map(fmt).join(', ') + ')');
  const r1 = (v) => Math.round(v * 10) / 10;
  // span writes a duration of s ≥ 0 seconds in its largest unit.
  const span = (s) => (s < 90 ? Math.round(s) + ' s' : s < 5400 ? Math.round(s / 60) + ' min' : s < 129600 ? Math.round(s / 3600) + ' h' : Math.round(s / 86400) + ' d');
  function ago(iso) {
    const s = (now() - Date.parse(iso)) / 1000;
    if (!Number.isFinite(s)) return '–';
    if (s < 5) return 'just now';
    if (s < 129600) return span(s) + ' ago';
    return when(iso).slice(0, 10);
  }
  // lease writes a pending ask's lease: the time it ends and how soon, or
  // released once it has ended (the next ask call may hand the ask out
  // again), or — without one.
  function lease(iso) {
    if (!iso) return '—';
    const end = Date.parse(iso), s = (end - now()) / 1000;
    if (!Number.isFinite(s)) return '–';
    if (s <= 0) return 'released';
    const at = when(end), today = when(now()).slice(0, 10) === at.slice(0, 10);
    return `until ${today ? at.slice(11) : at} (in ${span(s)})`;
  }
  // The context values are written in full (String: the shortest text
  // that reads back as the same number): a context is one to the bit, and
  // two that 4 digits would write alike are two.
  const ctxValue = (v) => (Number.isFinite(v) ? String(v) : '–');
  const ctxText = (c, names = ctxNames) => (c && names ? names.map((n) => `${n} = ${ctxValue(c[n])}`).join(', ') : '');
  // sameCtx is the study's test of one context (study.sameContext):
  // every value the same float64, which Object.is compares as the study
  // compares bits (JSON carries a float64 exactly; -0 is not 0).
  const sameCtx = (a, b, names) => !!a && !!b && names.every((n) => Object.is(a[n], b[n]));
  // when writes a time as local YYYY-MM-DD HH:MM:SS. By hand: the first
  // call of toLocaleString loads the locale data, tens of ms of the page's
  // first draw.
  function when(t) {
    const d = new Date(t), two = (n) => String(n).padStart(2, '0');
    if (!Number.isFinite(d.getTime())) return '–';
    return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
  }

  // ---- token and data ----

  // takeToken moves a token given in the fragment (#token=…, or
  // #/study/NAME&token=…) into sessionStorage and out of the address bar:
  // the fragment never reaches the server, and the token no longer shows.
  function takeToken() {
    const parts = location.hash.replace(/^#/, '').split('&');
    const keep = parts.filter((p) => !p.startsWith('token='));
    if (keep.length === parts.length) return;
    const tok = decode(parts.find((p) => p.startsWith('token=')).slice(6));
    if (tok) sessionStorage.setItem(TOKEN_KEY, tok);
    history.replaceState(null, '', location.pathname + location.search + '#' + (keep.join('&') || '/'));
  }

  // decode undoes percent-encoding, leaving a malformed string as it is.
  function decode(s) {
    try { return decodeURIComponent(s); } catch (e) { return s; }
  }

  // api GETs path: its text and ETag, or null when the server says the
  // answer is still the one of etag (304, a study that did not change).
  async function api(path, etag) {
    const headers = { Accept: 'application/json' };
    const tok = sessionStorage.getItem(TOKEN_KEY);
    if (tok) headers.Authorization = 'Bearer ' + tok;
    if (etag) headers['If-None-Match'] = etag;
    const resp = await fetch(path, { headers, cache: 'no-store', credentials: 'omit' });
    const date = Date.parse(resp.headers.get('Date') || '');
    if (Number.isFinite(date)) {
      // Date is truncated to the second: its midpoint, and no skew
      // within 2 s (the truncation and the request's time).
      const d = date + 500 - Date.now();
      skew = Math.abs(d) > 2000 ? d : 0;
    }
    if (resp.status === 304) return null;
    const text = await resp.text();
    if (!resp.ok) {
      let msg = resp.status + ' ' + resp.statusText;
      try { msg = JSON.parse(text).error || msg; } catch (e) { /* not JSON */ }
      const err = new Error(msg);
      err.status = resp.status;
      throw err;
    }
    return { text, etag: resp.headers.get('ETag') || '' };
  }

  function route() {
    const path = location.hash.replace(/^#/, '').split('&')[0];
    const m = /^\/study\/([^/]+)$/.exec(path);
    if (m) return { study: decode(m[1]) };
    const c = /^\/compare\/([^/]+)\/([^/]+)$/.exec(path);
    return c ? { study: null, compare: [decode(c[1]), decode(c[2])] } : { study: null };
  }

  const viewURL = (name) => 'v1/studies/' + encodeURIComponent(name) + '/view';
  const dataURL = (r) => (r.study ? viewURL(r.study) : 'v1/studies');
  // fetchRoute GETs what route r draws: a study's view (or null, when it
  // is still the one of etag), the list, or the two views compared (as
  // one JSON array, without an ETag).
  async function fetchRoute(r, etag) {
    if (!r.compare) return api(dataURL(r), etag);
    const got = await Promise.all(r.compare.map((n) => api(viewURL(n))));
    return { text: '[' + got.map((g) => g.text).join(',') + ']', etag: '' };
  }

  // refresh fetches what the route shows and draws it; it polls again
  // after POLL_MS while the tab is visible. early is a request started
  // before the document was parsed, for the same route.
  async function refresh(early) {
    clearTimeout(timer);
    const my = ++generation;
    const r = route();
    const key = r.study ? 'study:' + r.study : r.compare ? 'compare:' + r.compare.join('/') : 'list';
    const shown = document.documentElement.dataset.rendered === key;
    try {
      const got = early ? await early : await fetchRoute(r, shown ? lastETag : '');
      if (my !== generation) return;
      if (got && (got.text !== lastText || !shown)) {
        const data = JSON.parse(got.text);
        lastData = data;
        purge();
        const drawn = r.study ? renderStudy(data) : r.compare ? renderCompare(data, r.compare) : renderList(data.studies);
        await drawn;
        if (my !== generation) return;
        lastText = got.text;
        rendered(key);
        if (r.study && data.summary.parameters) wireMap(data);
      }
      if (got) lastETag = got.etag;
      tick();
      updated.className = 'updated';
      updated.textContent = 'updated ' + when(Date.now()).slice(11) + (document.hidden ? '' : ' · every ' + POLL_MS / 1000 + ' s');
      schedule();
    } catch (err) {
      if (my !== generation) return;
      if (err.status === 401) return showToken(err.message);
      if (err.status === 404 || err.status === 400 || err.status === 403) {
        lastText = lastETag = '';
        drawGen++;
        document.documentElement.dataset.charts = 'all';
        rendered('error');
        app.innerHTML = `<p class="error">${esc(err.message)}</p><p><a href="#/">All studies</a></p>`;
        return;
      }
      // The server is away or busy: keep what is drawn, say so, retry.
      updated.className = 'updated stale';
      updated.textContent = 'update failed ' + when(Date.now()).slice(11) + ': ' + err.message;
      schedule();
    }
  }

  // tick rewrites the times drawn relative to now (handed out 2 min ago,
  // a lease's end), which change while the data do not: every poll, 304
  // or not.
  function tick() {
    for (const e of app.querySelectorAll('[data-ago]')) e.textContent = ago(e.dataset.ago);
    for (const e of app.querySelectorAll('[data-until]')) e.textContent = lease(e.dataset.until);
  }

  function schedule() {
    clearTimeout(timer);
    if (!document.hidden) timer = setTimeout(refresh, POLL_MS);
  }

  // rendered marks the document drawn (tests and the load-time measure
  // read these): data-rendered names the view, data-render-ms is when the
  // first one was laid out, in ms since the navigation started (reading
  // the layout makes the browser do it now, rather than before painting).
  function rendered(key) {
    const d = document.documentElement.dataset;
    d.rendered = key;
    d.renders = String((Number(d.renders) || 0) + 1);
    if (!d.renderMs) {
      app.getBoundingClientRect();
      d.renderMs = performance.now().toFixed(1);
    }
  }

  function showToken(message) {
    lastText = lastETag = '';
    const had = sessionStorage.getItem(TOKEN_KEY);
    crumbs.textContent = '';
    updated.textContent = '';
    app.innerHTML = `<div class="card auth"><h1>Access token needed</h1>
      <p class="error" id="auth-error">${had ? 'The server refused the token given (401): ' : 'This server needs its access token (401): '}${esc(message)}.</p>
      <p>Open the page as <code>${esc(location.origin + location.pathname)}#token=TOKEN</code>, or paste the token
      (the one in serve's <code>--token-file</code>) here. It is kept in this tab only (sessionStorage) and sent as
      <code>Authorization: Bearer</code>.</p>
      <form class="token" id="token-form"><label for="token-input" class="note">Token</label>
      <input id="token-input" type="password" autocomplete="off" required><button type="submit">Open</button></form></div>`;
    drawGen++;
    document.documentElement.dataset.charts = 'all';
    rendered('auth');
    document.getElementById('token-form').addEventListener('submit', (ev) => {
      ev.preventDefault();
      sessionStorage.setItem(TOKEN_KEY, document.getElementById('token-input').value.trim());
      refresh();
    });
  }

  // ---- the list ----

  function renderList(studies) {
    crumbs.textContent = 'studies';
    document.title = 'safegp dashboard';
    if (!studies.length) {
      app.innerHTML = '<p class="note">No studies yet: create one with <code>safegp study create</code> or <code>POST /v1/studies</code>.</p>';
      return drawCharts();
    }
    const rows = studies.map((s) => `<tr>
      <td><a href="#/study/${encodeURIComponent(s.study)}">${esc(s.study)}</a></td>
      <td>${esc(s.algorithm)}</td>
      <td><input type="checkbox" class="pick" value="${esc(s.study)}" aria-label="compare ${esc(s.study)}"></td>
      <td>${s.box ? 'box' : s.actions + (s.actions === 1 ? ' candidate setting' : ' candidate settings')}, d = ${s.d}</td>
      <td class="r num">${s.rounds} / ${s.horizon}<progress max="${s.horizon}" value="${s.rounds}"></progress></td>
      <td class="r num${s.violations ? ' bad' : ''}">${s.violations}</td>
      <td class="r num${s.failures ? ' bad' : ''}">${s.failures || 0}</td>
      <td class="r num">${s.pending}</td>
      <td class="r num">${s.retracted}</td>
      <td data-ago="${esc(s.updated)}">${esc(ago(s.updated))}</td></tr>`).join('');
    app.innerHTML = `<h1>Studies</h1><p class="controls"><button type="button" id="compare" disabled>Compare the two studies ticked</button></p>
      <table class="studies" id="study-list"><thead><tr><th>study</th><th>algorithm</th><th>compare</th>
      <th>decision set</th><th class="r">rounds / horizon</th><th class="r">violations</th><th class="r">failed</th><th class="r">pending</th>
      <th class="r">retracted</th><th>last event</th></tr></thead><tbody>${rows}</tbody></table>`;
    // Two ticked: the compare view of those two.
    const boxes = [...app.querySelectorAll('input.pick')], btn = document.getElementById('compare');
    const ticked = () => boxes.filter((b) => b.checked).map((b) => b.value);
    for (const b of boxes) b.addEventListener('change', () => { btn.disabled = ticked().length !== 2; });
    btn.addEventListener('click', () => {
      const t = ticked();
      if (t.length === 2) location.hash = '#/compare/' + t.map(encodeURIComponent).join('/');
    });
    return drawCharts();
  }

  // ---- the study page ----

  function renderStudy(v) {
    if (v.summary.parameters) return renderNamed(v);
    const s = v.summary;
    document.title = s.study + ' · safegp';
    crumbs.innerHTML = `<a href="#/">studies</a> / ${esc(s.study)}`;
    const obs = v.observations.map((o, k) => ({ ...o, k: k + 1 }));
    // A study with a context: its posterior, safe set and best point are
    // those of the current context (the last ask's), and the posterior
    // plots draw the observations made in it, as `safegp study plot`
    // does; the progress plots and the best values draw them all.
    ctxNames = s.context_names || null;
    const cur = ctxNames && s.context ? s.context : null;
    const here = ctxNames ? obs.filter((o) => cur && sameCtx(o.context, cur, ctxNames)) : obs;
    const inCtx = cur ? ' in context ' + esc(ctxText(cur)) : '';
    const sel = { obs: here, all: obs.length, where: inCtx };
    const domain = s.box ? 'box ' + s.box.map((b) => '[' + fmt(b[0]) + ', ' + fmt(b[1]) + ']').join(' × ') : fmt(s.actions) + ' actions';
    const model = s.model ? (s.model.source === 'fitted' ? `fitted (${s.model.fits} fit${s.model.fits === 1 ? '' : 's'})` : 'configured') : 'as specified';
    const top = bestObserved(obs);
    const observed = top ? `<dt>best safe f observed${ctxNames ? ', over all contexts' : ''}</dt><dd class="num" id="best-observed">${fmt(top.f)} (#${top.k}, x = ${esc(point(top.x))}${top.context ? ', ' + esc(ctxText(top.context)) : ''})</dd>` : '';
    const best = s.best
      ? `<p class="big num" id="best-x">${s.best.index >= 0 ? 'action ' + s.best.index + ': ' : ''}x = ${esc(point(s.best.x))}</p>
         <dl class="facts"><dt>lower bound ℓ<sub>f</sub></dt><dd class="num" id="best-lower">${fmt(s.best.lower_f)}</dd>
         <dt>mean μ<sub>f</sub></dt><dd class="num" id="best-mean">${fmt(s.best.mean_f)}</dd>${observed}</dl>
         <p class="note">The safe point with the highest lower confidence bound on f under the model${inCtx}.</p>`
      : `<p class="note" id="best-x">none yet${ctxNames && !cur ? ' (a study with a context: the first ask sets it)' : ''}</p>`;
    const cols = ['ask'].concat(s.box ? [] : ['action'], ['x'], ctxNames ? ['context'] : [], ['handed out', 'lease']);
    const pend = v.pending.length
      ? `<div class="scroll"><table id="pending"><thead><tr>${cols.map((c) => `<th>${c}</th>`).join('')}</tr></thead><tbody>` +
        v.pending.map((p) => `<tr><td class="num">${p.ask}</td>${s.box ? '' : `<td class="num">${p.index}</td>`}<td class="num">${esc(point(p.x))}</td>` +
          (ctxNames ? `<td class="context">${esc(ctxText(p.context))}</td>` : '') +
          `<td data-ago="${esc(p.created)}">${esc(ago(p.created))}</td><td class="lease" data-until="${esc(p.lease_until || '')}"${p.lease_until ? ` title="leased until ${esc(when(p.lease_until))}"` : ''}>${esc(lease(p.lease_until))}</td></tr>`).join('') +
        '</tbody></table></div>'
      : '<p class="note" id="pending">no ask pending</p>';
    const thresholds = v.thresholds.map((h, i) => `g<sub>${i + 1}</sub> ≥ ${fmt(h)}`);
    if (s.objective_threshold != null) thresholds.unshift(`f ≥ ${fmt(s.objective_threshold)}`);
    const notes = notesCard(s);
    const context = ctxNames ? `<dt>context</dt><dd id="context">${cur ? esc(ctxText(cur)) : `none yet (${esc(ctxNames.join(', '))}: the first ask sets it)`}</dd>` : '';
    let html = `<h1>${esc(s.study)}<span class="algo">${esc(s.algorithm)}</span></h1>
      <div class="cards">
        <div class="card"><h2>Study</h2><dl class="facts">
          <dt>decision set</dt><dd>${esc(domain)}, d = ${s.d}</dd>${context}
          <dt>rounds</dt><dd class="num">${s.rounds} / ${s.horizon}<progress max="${s.horizon}" value="${s.rounds}"></progress></dd>
          <dt>violations</dt><dd class="num${s.violations ? ' bad' : ''}" id="violations">${s.violations}</dd><dt>failed trials</dt><dd class="num${s.failures ? ' bad' : ''}" id="failures">${s.failures || 0}</dd>${calib(s.calibration)}
          <dt>retracted</dt><dd class="num">${s.retracted}</dd>
          <dt>safety</dt><dd>${thresholds.join(', ') || 'none'}</dd>
          ${s.box || (ctxNames && !cur) ? '' : `<dt>safe set</dt><dd class="num">${s.safe_set_size} of ${s.actions} actions${cur ? ' in this context' : ''}</dd>`}
          <dt>model</dt><dd>${esc(model)}</dd>
          <dt>created</dt><dd>${esc(when(s.created))}</dd></dl></div>
        <div class="card"><h2>Best safe point so far</h2>${best}</div>
        <div class="card pending-card"><h2>Pending asks (${v.pending.length})</h2>${pend}</div>${notes}
      </div>${controls(s, !!(v.posterior && s.d === 1))}<div class="plots">`;
    // Each function's plots together — its posterior, then every
    // observation of it — and the best value after them.
    const p = v.posterior;
    if (p && s.d === 1) {
      html += posterior1D(p, sel, v, -1) + progress(obs, s, -1, v.thresholds);
      // gp-ucb-oracle models f only: no posterior of the g_i.
      v.thresholds.forEach((_, i) => { html += (p.g[i] ? posterior1D(p, sel, v, i) : '') + progress(obs, s, i, v.thresholds); });
      html += bestSoFar(obs);
    } else if (p && s.d === 2) {
      html += heatmap(p, sel, v) + heatmapsOf(p, sel, v) + progress(obs, s, -1, v.thresholds);
      v.thresholds.forEach((_, i) => { html += progress(obs, s, i, v.thresholds); });
      html += bestSoFar(obs);
    } else {
      // A box, or a set without a posterior drawn: the observations.
      html += bestSoFar(obs) + progress(obs, s, -1, v.thresholds);
      if (s.d >= 2) html += plainParallel(obs, s);
      v.thresholds.forEach((_, i) => { html += progress(obs, s, i, v.thresholds); });
      html += slicesOf(v);
    }
    html += '</div>';
    if (v.posterior_skipped) html += `<p class="note" id="posterior-skipped">No posterior drawn: ${esc(v.posterior_skipped)}.</p>`;
    html += obsTable(obs, v.thresholds.length, s);
    app.innerHTML = html;
    wire(s.study);
    return drawCharts();
  }

  // notesCard says why the study may not be making progress (the
  // summary's notes), on every study's page.
  const notesCard = (s) => ((s.notes || []).length ? `<div class="card notes" id="notes"><h2>Notes</h2><ul>${s.notes.map((n) => `<li>${esc(n)}</li>`).join('')}</ul></div>` : '');

  // obsTable lists a study's observations, to sort and filter (sortable):
  // number, action and point, context, f and each g, the violation, and
  // retracted ones marked. It is built only when its section is opened
  // (obsOpen, kept across redraws): a thousand rows would take the page's
  // first drawing longer than its target of 300 ms.
  let obsOpen = false;
  let obsRows = () => '';
  function obsTable(obs, m, s) {
    if (!obs.length) return '';
    const gs = Array.from({ length: m }, (_, i) => i);
    obsRows = () => `<h2 class="table-title">Observations <input type="search" id="observations-filter" placeholder="filter: a value, yes, retracted…" aria-label="filter the observations"></h2>` +
      `<div class="scroll"><table id="observations" class="sortable"><thead><tr><th>#</th>${s.box ? '' : '<th>action</th>'}<th>x</th>${ctxNames ? '<th>context</th>' : ''}<th>f</th>` +
      gs.map((i) => `<th>g${i + 1}</th>`).join('') + '<th>violation</th></tr></thead><tbody>' +
      obs.map((o) => `<tr class="${o.retracted ? 'retracted' : ''}"><td class="num">${o.k}</td>${s.box ? '' : `<td class="num">${o.index}</td>`}<td class="num">${esc(point(o.x))}</td>` +
        (ctxNames ? `<td class="context">${esc(ctxText(o.context))}</td>` : '') + `<td class="num">${fmt(o.f)}</td>` + gs.map((i) => `<td class="num">${fmt(o.g[i])}</td>`).join('') +
        `<td${o.violation ? ' class="bad"' : ''}>${o.violation ? 'yes' : ''}${o.retracted ? ' (retracted)' : ''}</td></tr>`).join('') +
      '</tbody></table></div>';
    return `<details id="observations-section"${obsOpen ? ' open' : ''}><summary>All ${obs.length} observations: a table to sort and filter</summary>` +
      `<div id="observations-slot">${obsOpen ? obsRows() : ''}</div></details>`;
  }

  // sortable makes table#id sort on a click on a column's header (again:
  // the other way; numbers as numbers) and filters its rows by the text
  // of input#id-filter; the choice outlives the redraws of new data.
  const tableState = {};
  function sortable(id) {
    const t = document.getElementById(id);
    if (!t) return;
    const st = tableState[id] || (tableState[id] = { col: -1, dir: 1, filter: '' });
    const body = t.tBodies[0];
    const rows = Array.from(body.rows);
    const key = (r, c) => {
      const txt = r.cells[c] ? r.cells[c].textContent.trim() : '';
      const n = Number(txt);
      return txt !== '' && Number.isFinite(n) ? n : txt;
    };
    const heads = Array.from(t.tHead.rows[0].cells);
    const apply = () => {
      const rs = st.col < 0 ? rows : rows.slice().sort((a, b) => {
        const x = key(a, st.col), y = key(b, st.col);
        return (typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y))) * st.dir;
      });
      const f = st.filter.trim().toLowerCase();
      for (const r of rs) {
        r.hidden = f !== '' && !r.textContent.toLowerCase().includes(f);
        body.appendChild(r);
      }
      heads.forEach((th, c) => th.setAttribute('aria-sort', c === st.col ? (st.dir > 0 ? 'ascending' : 'descending') : 'none'));
    };
    heads.forEach((th, c) => {
      th.tabIndex = 0;
      th.title = 'sort by ' + th.textContent;
      const sortBy = () => { st.dir = st.col === c ? -st.dir : 1; st.col = c; apply(); };
      th.addEventListener('click', sortBy);
      th.addEventListener('keydown', (ev) => { if (ev.key === 'Enter') sortBy(); });
    });
    const box = document.getElementById(id + '-filter');
    if (box) {
      box.value = st.filter;
      box.addEventListener('input', () => { st.filter = box.value; apply(); });
    }
    if (st.col >= 0 || st.filter) apply();
  }

  // controls are the study page's buttons: the observations as CSV, and
  // (band) the toggle of the 1-D posteriors' y range.
  function controls(s, band) {
    return `<p class="controls"><button type="button" id="download-csv">Download observations (CSV)</button>` +
      (band ? ` <label><input type="checkbox" id="whole-band"${wholeBand ? ' checked' : ''}> whole ±√β·σ band on the y axis</label>` : '') + '</p>';
  }

  // wire attaches the controls' handlers (the page's policy allows no
  // inline handler).
  function wire(name) {
    sortable('trials');
    sortable('observations');
    const sec = document.getElementById('observations-section');
    if (sec) {
      sec.addEventListener('toggle', () => {
        obsOpen = sec.open;
        const slot = document.getElementById('observations-slot');
        if (obsOpen && !slot.firstChild) {
          slot.innerHTML = obsRows();
          sortable('observations');
        }
      });
    }
    const dl = document.getElementById('download-csv');
    if (dl) dl.addEventListener('click', () => downloadCSV(name));
    const wb = document.getElementById('whole-band');
    if (wb) {
      wb.addEventListener('change', async () => {
        wholeBand = wb.checked;
        sessionStorage.setItem(BAND_KEY, wholeBand ? '1' : '0');
        if (lastData) {
          // Drawn again from the same data: counted apart from the
          // renders of new data (data-redraws), which tests count.
          purge();
          await renderStudy(lastData);
          const d = document.documentElement.dataset;
          d.redraws = String((Number(d.redraws) || 0) + 1);
        }
      });
    }
  }

  // save hands blob to the browser as a download of file name.
  function save(blob, name) {
    const a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = name;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 60000);
  }

  // downloadCSV fetches GET …/observations?format=csv with the token, if
  // any (a plain link could not send it), and saves it as NAME.csv.
  async function downloadCSV(name) {
    const headers = { Accept: 'text/csv' };
    const tok = sessionStorage.getItem(TOKEN_KEY);
    if (tok) headers.Authorization = 'Bearer ' + tok;
    try {
      const resp = await fetch('v1/studies/' + encodeURIComponent(name) + '/observations?format=csv', { headers, cache: 'no-store', credentials: 'omit' });
      if (!resp.ok) throw new Error(resp.status + ' ' + resp.statusText);
      save(await resp.blob(), name + '.csv');
    } catch (err) {
      updated.className = 'updated stale';
      updated.textContent = 'download failed: ' + err.message;
    }
  }

  // pin keeps a value drawn inside the y range dom: a retracted value
  // sets no range (it is not data), so one far off is drawn at the edge,
  // its tooltip giving the value.
  const pin = (v, dom) => Math.min(Math.max(v, dom[0]), dom[1]);
  // inForce are the values of the observations in force, for a range.
  const inForce = (obs, val) => obs.filter((o) => !o.retracted).map(val);

  // ---- a study stated in parameters: its own units, trial by trial ----

  // setting writes a setting {name: value} as "kp = 0.35, mode = pi".
  const setting = (p, names) => names.map((n) => `${n} = ${typeof p[n] === 'number' ? fmt(p[n]) : p[n]}`).join(', ');

  // calib is the facts row of the model's calibration check: how many of
  // the recent measurements fell outside their confidence intervals,
  // against what the model expects (study/calibration.go).
  function calib(c) {
    if (!c) return '';
    // Which outcomes' values fell outside: the objective's costs speed, a
    // limit's puts safety at stake.
    const by = c.by_outcome ? c.by_outcome.map((o) => `${esc(o.outcome)} in ${o.outside}`).join(', ') + '; ' : '';
    return `<dt>calibration</dt><dd class="num${c.implausible ? ' bad' : ''}" id="calibration" title="probability under the model ${fmt(c.p_value)}">` +
      `${c.outside} of the last ${c.window} outside their intervals (${by}expected ${fmt(c.expected)})${c.implausible ? ': the model looks wrong' : ''}</dd>`;
  }

  function renderNamed(v) {
    const s = v.summary;
    document.title = s.study + ' · safegp';
    crumbs.innerHTML = `<a href="#/">studies</a> / ${esc(s.study)}`;
    ctxNames = null;
    const pnames = s.parameters.map((p) => p.name);
    const obj = s.objective, lims = s.outcome_constraints || [];
    // Each parameter's and outcome's unit, where the spec gives one: in
    // the tables' headers and the plots' axes.
    units = {};
    for (const q of s.parameters.concat([obj], lims)) if (q.unit) units[q.name] = q.unit;
    const obs = v.observations.map((o) => ({ ...o, k: o.trial }));
    const range = (p) => (p.type === 'choice' ? '{' + p.values.map(esc).join(', ') + '}'
      : `[${fmt(p.low)}, ${fmt(p.high)}]${p.type === 'int' ? ' integers' : ''}${p.scale === 'log' ? ', log scale' : ''}`);
    const limit = (c) => [c.min != null ? `${esc(c.name)} ≥ ${fmt(c.min)}` : '', c.max != null ? `${esc(c.name)} ≤ ${fmt(c.max)}` : ''].filter(Boolean).join(', ');
    const safety = lims.map(limit).concat(obj.min != null || obj.max != null ? [limit(obj)] : []).join(', ') || 'none';
    const b = s.best;
    const best = b
      ? `<p class="big num" id="best-x">trial ${b.trial}: ${esc(setting(b.params, pnames))}</p><dl class="facts">` +
        Object.keys(b.values).sort().map((n) => `<dt>${esc(n)}</dt><dd class="num">${fmt(b.values[n])}</dd>`).join('') + '</dl>' +
        `<p class="note">The trial with the ${obj.goal === 'maximize' ? 'highest' : 'lowest'} ${esc(obj.name)} among those that kept every limit.</p>`
      : '<p class="note" id="best-x">none yet</p>';
    const pend = v.pending.length
      ? `<div class="scroll"><table id="pending"><thead><tr><th>trial</th><th>ask</th><th>params</th><th>handed out</th><th>lease</th></tr></thead><tbody>` +
        v.pending.map((p) => `<tr><td class="num">${p.trial}</td><td class="num">${p.ask}</td><td class="num">${esc(setting(p.params, pnames))}</td>` +
          `<td data-ago="${esc(p.created)}">${esc(ago(p.created))}</td><td class="lease" data-until="${esc(p.lease_until || '')}">${esc(lease(p.lease_until))}</td></tr>`).join('') +
        '</tbody></table></div>'
      : '<p class="note" id="pending">no ask pending</p>';
    const notes = notesCard(s);
    let html = `<h1>${esc(s.study)}<span class="algo">${esc(s.algorithm)}</span></h1>
      <div class="cards">
        <div class="card"><h2>Study</h2><dl class="facts">
          <dt>parameters</dt><dd>${s.parameters.map((p) => `${esc(p.name)} ${range(p)}`).join('<br>')}</dd>
          <dt>objective</dt><dd>${obj.goal} ${esc(obj.name)}</dd>
          <dt>limits</dt><dd id="limits">${safety}</dd>
          <dt>trials</dt><dd class="num">${s.trials}; in force ${s.rounds} / ${s.horizon}<progress max="${s.horizon}" value="${s.rounds}"></progress></dd>
          <dt>violations</dt><dd class="num${s.violations ? ' bad' : ''}" id="violations">${s.violations}</dd><dt>failed trials</dt><dd class="num${s.failures ? ' bad' : ''}" id="failures">${s.failures || 0}</dd>${calib(s.calibration)}
          <dt>retracted</dt><dd class="num">${s.retracted}</dd>
          ${s.box ? '' : `<dt>safe set</dt><dd class="num">${s.safe_set_size} of ${s.actions} candidates</dd>`}
          <dt>created</dt><dd>${esc(when(s.created))}</dd></dl></div>
        <div class="card"><h2>Best safe trial so far</h2>${best}</div>
        <div class="card pending-card"><h2>Pending asks (${v.pending.length})</h2>${pend}</div>${notes}
      </div>${controls(s, false)}<div class="plots">`;
    const fails = v.failures || [];
    html += mapFigure(v);
    html += outcomePlot(obs, fails, obj, true);
    lims.forEach((c) => { html += outcomePlot(obs, fails, c, false); });
    if (s.parameters.length > 2) html += namedParallel(v);
    html += slicesOf(v);
    html += '</div>';
    html += `<h2 class="table-title">Trials <input type="search" id="trials-filter" placeholder="filter: a value, pid, retracted…" aria-label="filter the trials"></h2>` +
      `<div class="scroll"><table id="trials" class="sortable"><thead><tr><th>trial</th>${pnames.map((n) => `<th>${named(n)}</th>`).join('')}` +
      `${Object.keys(obs.length ? obs[0].values : {}).sort().map((n) => `<th>${named(n)}</th>`).join('')}<th>violation</th></tr></thead><tbody>` +
      obs.map((o) => `<tr class="${o.retracted ? 'retracted' : ''}"><td class="num">${o.trial}</td>${pnames.map((n) => `<td class="num">${esc(typeof o.params[n] === 'number' ? fmt(o.params[n]) : o.params[n])}</td>`).join('')}` +
        `${Object.keys(o.values).sort().map((n) => `<td class="num">${fmt(o.values[n])}</td>`).join('')}<td${o.violation ? ' class="bad"' : ''}>${o.violation ? 'yes' : ''}${o.retracted ? ' (retracted)' : ''}</td></tr>`).join('') +
      '</tbody></table></div>';
    app.innerHTML = html;
    wire(s.study);
    return drawCharts();
  }

  // shownNote says, in a posterior plot of a study with a context, how
  // many of the observations it draws: those made in the context drawn.
  const shownNote = (sel) => (ctxNames ? `<p class="note shown">${sel.obs.length} of ${sel.all} observation${sel.all === 1 ? '' : 's'} drawn: those made in this context</p>` : '');

  // ---- plots ----
  //
  // Every chart is a Plotly.js figure (the vendored cartesian bundle,
  // assets/plotly.js): zoom and pan, hover, log and category axes and an
  // SVG download come with it. The page's HTML holds a <figure> per chart
  // with its title and notes; chart() queues the figure's traces and
  // layout, and drawCharts() draws them once the HTML is in place. Every
  // trace carries meta, the kind of mark it draws (obs, violation,
  // retracted, failed, threshold, mean, band, best, …), which the tests
  // read off the graph (gd.data).

  // One style for every chart, as for the figures (plotstyle): the
  // page's font, light grid, the legend under the plot, never on data.
  const FONT = { family: 'system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif', size: 12, color: C.text };
  // The mode bar's download writes SVG through downloadSVG; made on the
  // first chart, once Plotly (loaded after this script) has its icons.
  let config = null;
  const CONFIG = () => (config ||= {
    displaylogo: false, responsive: true,
    modeBarButtonsToRemove: ['select2d', 'lasso2d', 'toImage'],
    modeBarButtonsToAdd: [{ name: 'svg', title: 'Download plot as SVG', icon: Plotly.Icons.camera, click: downloadSVG }],
  });
  let queue = []; // the charts of the HTML being built: {id, data, layout}

  // chart returns a figure's HTML and queues its chart: cls names it for
  // the tests, title heads it, note goes under the title; data and
  // layout are Plotly's; o.attrs are the figure's extra attributes.
  function chart(cls, title, data, layout, o = {}) {
    const id = 'chart' + ++uid;
    [data, layout] = dotted(data, layout);
    const full = baseLayout(layout);
    queue.push({ id, data, layout: full });
    // The chart's box has the chart's height before Plotly draws it, so
    // that the page does not move as charts come in and drawCharts sees
    // which charts are in the window (an empty box of 0 px would put the
    // charts below it in the window too).
    return `<figure class="plot ${cls}${o.wide ? ' wide' : ''}"${o.attrs || ''}><figcaption><h2>${title}</h2>${o.note || ''}</figcaption>` +
      `${o.before || ''}<div class="chart" id="${id}" style="min-height: ${full.height}px" role="img" aria-label="${esc(title.replace(/<[^>]*>/g, ''))}"></div></figure>`;
  }

  // DOTS_ABOVE is the number of observations above which a chart draws
  // them as dots, one SVG path per kind. Plotly draws a marker as an SVG
  // element of its own, 40–60 ms a chart of 1 000 on the 2-core machine,
  // most of a long study's page load (issue 44's 300 ms); a path of 1 000
  // round dots takes a few.
  const DOTS_ABOVE = 300;
  // The round caps that make a zero-length segment a dot: the page's
  // stylesheet has the rule, and downloadSVG writes it into the file.
  const DOT_CAPS = '.shapelayer path { stroke-linecap: round; }';

  // dotted returns data and layout with the traces marked dots (the
  // observations of obsTraces, every kind) drawn as dots when together
  // they hold more than DOTS_ABOVE points on numeric axes: each kind a
  // layout shape whose path is a zero-length segment at every point,
  // which round line caps (DOT_CAPS) draw as a dot of the marker's size,
  // in data coordinates, so that Plotly moves them on zoom and pan and
  // clips them to the plot; in the traces' order, the violations over
  // the rest as their markers were; a marker's outline as a wider dot
  // under it (as wide as the marker with its outline's outer half). The
  // trace stays, drawn with mode none: its points keep their tooltips
  // (in the marker's colour), set the axes' ranges and are what the
  // tests count; a point-less trace of one marker gives the legend its
  // key, and the shapes share its legend group, so that a click on the
  // key hides them with it. Fewer observations stay markers.
  function dotted(data, layout) {
    const numeric = (d, a) => {
      const ax = layout[a + 'axis' + (d[a + 'axis'] || a).slice(1)];
      return !ax || ax.type !== 'category';
    };
    const dots = data.filter((d) => d.dots && numeric(d, 'x') && numeric(d, 'y'));
    const clean = ({ dots, ...d }) => d;
    if (dots.reduce((n, d) => n + d.x.length, 0) <= DOTS_ABOVE) return [data.map(clean), layout];
    const shapes = (layout.shapes || []).slice();
    const out = [];
    for (const tr of data) {
      const d = clean(tr);
      if (!dots.includes(tr)) {
        out.push(d);
        continue;
      }
      let path = '';
      for (let k = 0; k < d.x.length; k++) {
        const x = d.x[k], y = d.y[k];
        if (Number.isFinite(x) && Number.isFinite(y)) path += `M${x},${y}L${x},${y}`;
      }
      const m = d.marker, rim = m.line;
      const base = { type: 'path', path, xref: d.xaxis || 'x', yref: d.yaxis || 'y', layer: 'above', legendgroup: d.meta };
      if (rim) shapes.push({ ...base, name: 'rim-' + d.meta, line: { color: rim.color, width: m.size + rim.width } });
      shapes.push({ ...base, name: 'dots-' + d.meta, line: { color: m.color, width: rim && m.color === '#fff' ? m.size - rim.width : m.size } });
      out.push({ ...d, mode: 'none', showlegend: false, legendgroup: d.meta, hoverlabel: { bgcolor: m.color === '#fff' && rim ? rim.color : m.color } });
      out.push({ type: 'scatter', mode: 'markers', meta: d.meta + '-key', name: d.name, x: [null], y: [null], marker: m, hoverinfo: 'skip', showlegend: d.showlegend, legendgroup: d.meta, xaxis: d.xaxis, yaxis: d.yaxis });
    }
    return [out, { ...layout, shapes }];
  }

  // downloadSVG is the mode bar's download button: the chart as an SVG
  // file, as Plotly's own button writes it, with DOT_CAPS in it (Plotly
  // writes a figure's attributes, not the page's stylesheet, and without
  // round caps a dot is drawn as nothing).
  async function downloadSVG(gd) {
    const url = await Plotly.toImage(gd, { format: 'svg', width: gd._fullLayout.width, height: gd._fullLayout.height });
    let svg = decodeURIComponent(url.slice(url.indexOf(',') + 1));
    const at = svg.indexOf('>', svg.indexOf('<svg')) + 1;
    svg = svg.slice(0, at) + `<style>${DOT_CAPS}</style>` + svg.slice(at);
    save(new Blob([svg], { type: 'image/svg+xml' }), (gd.getAttribute('aria-label') || 'plot').replace(/[^\w.-]+/g, '-').replace(/^-|-$/g, '') + '.svg');
  }

  function baseLayout(l) {
    const axis = (a) => ({ gridcolor: C.grid, linecolor: C.axis, mirror: true, ticks: 'outside', zeroline: false, ...a });
    const out = {
      font: FONT, height: 330, margin: { l: 60, r: 16, t: 8, b: 80 }, hovermode: 'closest',
      paper_bgcolor: '#fff', plot_bgcolor: '#fff', showlegend: true,
      ...l,
    };
    // The legend under the x axis's ticks and title (58 px below the
    // plot area), in the bottom margin: it never covers data.
    const ph = out.height - out.margin.t - out.margin.b;
    out.legend = { orientation: 'h', traceorder: 'normal', x: 0, y: -58 / Math.max(ph, 60), yanchor: 'top', font: { size: 11 }, ...(l.legend || {}) };
    for (const k of Object.keys(out)) if (/^[xy]axis\d*$/.test(k)) out[k] = axis(out[k]);
    if (!out.xaxis) out.xaxis = axis({});
    if (!out.yaxis) out.yaxis = axis({});
    return out;
  }

  // drawCharts draws the queued charts into the page just written: those
  // in the window at once (the promise returned resolves when they are
  // drawn), the rest after them one per task, so that the page shows
  // and answers while a long study's charts below are still drawn (a
  // chart of 1 000 trials takes Plotly 30–60 ms). data-charts on the
  // document is "first" until every chart is drawn, then "all".
  let drawGen = 0;
  function drawCharts() {
    const q = queue, gen = ++drawGen, doc = document.documentElement.dataset;
    queue = [];
    const now = [], later = [];
    for (const c of q) {
      const el = document.getElementById(c.id);
      if (el) (el.getBoundingClientRect().top < window.innerHeight ? now : later).push([el, c]);
    }
    const draw = ([el, c]) => Plotly.newPlot(el, c.data, c.layout, CONFIG());
    doc.charts = 'first';
    // Those in the window are drawn now: Plotly writes a chart's SVG in
    // newPlot's call; its promise settles a frame or more later.
    for (const x of now) draw(x);
    const first = Promise.resolve();
    first.then(async () => {
      for (const x of later) {
        await new Promise((r) => setTimeout(r, 0));
        if (gen !== drawGen) return;
        await draw(x);
      }
      if (gen === drawGen) doc.charts = 'all';
    });
    return first;
  }

  // purge frees the charts drawn before the page is written anew.
  function purge() {
    if (!window.Plotly) return;
    for (const g of app.querySelectorAll('.js-plotly-plot')) Plotly.purge(g);
  }

  // extent is [min, max] of the finite values, padded by 6% (a single
  // value by 10% of itself, or 1), for an axis.
  function extent(vals, pad = 0.06) {
    let lo = Infinity, hi = -Infinity;
    for (const v of vals) if (Number.isFinite(v)) { if (v < lo) lo = v; if (v > hi) hi = v; }
    if (lo === Infinity) return [0, 1];
    if (lo === hi) { const d = Math.abs(lo) * 0.1 || 1; return [lo - d, hi + d]; }
    const d = (hi - lo) * pad;
    return [lo - d, hi + d];
  }

  // An axis of a parameter in its units: a log scale as a log axis (a
  // tick per power of ten over two decades or more), an int with integer
  // ticks, a choice as categories in the spec's order.
  function paramAxis(p, extra = {}) {
    const a = { title: { text: named(p.name) }, ...extra };
    if (p.type === 'choice') return { ...a, type: 'category', categoryorder: 'array', categoryarray: p.values };
    if (p.scale === 'log') {
      const dec = Math.log10(p.high / p.low);
      const plain = p.low >= 1e-4 && p.high < 1e6;
      return { ...a, type: 'log', range: [Math.log10(p.low), Math.log10(p.high)], dtick: dec >= 2 ? 1 : 'D2', exponentformat: plain ? 'none' : 'power' };
    }
    const pad = (p.high - p.low) * 0.03;
    return { ...a, type: 'linear', range: [p.low - pad, p.high + pad], tickformat: p.type === 'int' ? 'd' : '', dtick: p.type === 'int' && p.high - p.low <= 12 ? 1 : undefined };
  }

  // hoverOf is an observation's tooltip: its number, the value drawn,
  // its point or setting and context.
  const hoverOf = (o, label, value) => `#${o.k} (event ${o.seq})${o.retracted ? ', retracted' : ''}: ${esc(label)} = ${fmt(value)} at ` +
    (o.params ? esc(setting(o.params, Object.keys(o.params))) : 'x = ' + esc(point(o.x))) + (o.context ? ' in context ' + esc(ctxText(o.context)) : '');

  // obsTraces are the observations as markers at (x(o), y(o)), one trace
  // per kind: in force (meta obs), a violation (bad(o): violation, red),
  // retracted (hollow grey, pinned inside ydom: a retracted value sets no
  // range, its tooltip gives it). Each trace holds its observations' k
  // as customdata.
  function obsTraces(obs, x, y, bad, label, value, ydom, halo) {
    const kinds = [
      ['obs', 'observation', (o) => !o.retracted && !bad(o), { color: C.obs }],
      ['violation', 'violation', (o) => !o.retracted && bad(o), { color: C.bad }],
      ['retracted', 'retracted', (o) => o.retracted, { color: '#fff', line: { color: C.retracted, width: 1.5 } }],
    ];
    const size = obs.length > 300 ? 5 : obs.length > 60 ? 6.5 : 8;
    return kinds.map(([meta, name, keep, marker]) => {
      const os = obs.filter(keep);
      const m = { size, ...marker };
      if (halo && meta !== 'retracted') m.line = { color: '#fff', width: 1 };
      return {
        type: 'scatter', mode: 'markers', meta, name, x: os.map(x), y: os.map((o) => (ydom ? pin(y(o), ydom) : y(o))),
        customdata: os.map((o) => o.k), text: os.map((o) => hoverOf(o, label, value(o))), hoverinfo: 'text', marker: m,
        showlegend: os.length > 0, dots: true,
      };
    });
  }

  // hTrace is a horizontal dashed line at y over [x0, x1]: a threshold or
  // a limit (meta threshold), in the legend once.
  const hTrace = (y, x0, x1, name = 'threshold', axes = {}, legend = true) => ({
    type: 'scatter', mode: 'lines', meta: 'threshold', name, x: [x0, x1], y: [y, y], hoverinfo: 'name+y',
    line: { color: C.threshold, width: 2, dash: 'dash' }, showlegend: legend, legendgroup: 'threshold', ...axes,
  });
  // vTrace is a vertical dashed line at x over [y0, y1].
  const vTrace = (x, y0, y1, meta, name, color, axes = {}, legend = true) => ({
    type: 'scatter', mode: 'lines', meta, name, x: [x, x], y: [y0, y1], hoverinfo: 'name+x',
    line: { color, width: 1.5, dash: 'dot' }, showlegend: legend, legendgroup: meta, ...axes,
  });
  // bandTraces are mean ± half over xs: the band filled (meta band), the
  // mean on it (meta mean).
  function bandTraces(xs, mean, half, axes = {}, legend = true) {
    return [
      { type: 'scatter', mode: 'lines', meta: 'band-lo', x: xs, y: mean.map((m, k) => m - half[k]), line: { width: 0, color: C.band }, hoverinfo: 'skip', showlegend: false, ...axes },
      { type: 'scatter', mode: 'lines', meta: 'band', name: '± √β·σ', x: xs, y: mean.map((m, k) => m + half[k]), fill: 'tonexty', fillcolor: 'rgba(147,197,253,0.35)', line: { width: 0, color: C.band }, hoverinfo: 'skip', showlegend: legend, legendgroup: 'band', ...axes },
      { type: 'scatter', mode: 'lines', meta: 'mean', name: 'mean', x: xs, y: mean, line: { color: C.f, width: 2 }, showlegend: legend, legendgroup: 'mean', ...axes },
    ];
  }
  // safeShapes shade the runs of safe points of a 1-D curve (xs
  // increasing), each out to the midpoints with its neighbours, [a, b]
  // the x range; on log x (logx) the midpoints are geometric.
  function safeShapes(xs, safe, a, b, axes = { xref: 'x', yref: 'y domain' }, logx = false) {
    const out = [];
    const mid = (u, v) => (logx ? Math.sqrt(u * v) : (u + v) / 2);
    const edge = (k) => (k <= 0 ? a : k >= xs.length ? b : mid(xs[k - 1], xs[k]));
    for (let k = 0; k < xs.length; k++) {
      if (!safe[k]) continue;
      let e = k;
      while (e + 1 < xs.length && safe[e + 1]) e++;
      out.push({ type: 'rect', name: 'safe set', layer: 'below', x0: edge(k), x1: edge(e + 1), y0: 0, y1: 1, fillcolor: C.safe, line: { width: 0 }, ...axes });
      k = e;
    }
    return out;
  }
  // A legend entry for the shaded safe set (shapes have none).
  const safeKey = (label = 'safe set') => ({ type: 'scatter', mode: 'markers', meta: 'safe-key', name: label, x: [null], y: [null], marker: { symbol: 'square', size: 12, color: C.safe, line: { color: C.safeEdge, width: 1 } }, hoverinfo: 'skip' });
  const emptyNote = (what = 'no observation yet') => [{ text: what, xref: 'paper', yref: 'paper', x: 0.5, y: 0.5, showarrow: false, font: { size: 13, color: C.axis } }];

  // progress plots f (i = −1) or g_i of every observation against its
  // order, with the threshold as a dashed line.
  function progress(obs, s, i, hs) {
    const name = i < 0 ? 'f' : `g<sub>${i + 1}</sub>`, plain = i < 0 ? 'f' : `g${i + 1}`;
    const val = (o) => (i < 0 ? o.f : o.g[i]);
    const h = i < 0 ? s.objective_threshold : hs[i];
    const ys = inForce(obs, val);
    if (h != null) ys.push(h);
    const ydom = extent(ys);
    const x1 = Math.max(obs.length, 1) + 0.5;
    const data = obsTraces(obs, (o) => o.k, val, i < 0 ? (o) => o.violation : (o) => o.g[i] < h, plain, val, ydom);
    if (h != null) data.push(hTrace(h, 0.5, x1));
    return chart(i < 0 ? 'progress progress-f' : 'progress progress-g', `${name} of each observation` + (h != null ? ` (threshold ${fmt(h)})` : ''), data, {
      xaxis: { title: { text: 'observation (in the order told)' }, range: [0.5, x1] },
      yaxis: { title: { text: plain }, range: ydom },
      annotations: obs.length ? [] : emptyNote(),
    });
  }

  // bestObserved is the observation in force with the highest f among
  // those without a violation, or null.
  function bestObserved(obs) {
    let top = null;
    for (const o of obs) if (!o.retracted && !o.violation && (!top || o.f > top.f)) top = o;
    return top;
  }

  // bestSteps are the best value among the safe observations in force
  // (no violation, not retracted) after each one that improved it: [k,
  // value] pairs; better(a, b) says a improves on b.
  function bestSteps(obs, val, better) {
    let best = null;
    const pts = [];
    for (const o of obs) if (!o.retracted && !o.violation && (best === null || better(val(o), best))) { best = val(o); pts.push([o.k, best]); }
    return pts;
  }
  // bestTrace draws steps as a staircase (meta best) out to x1.
  const bestTrace = (pts, x1, name, extra = {}) => ({
    type: 'scatter', mode: 'lines+markers', meta: 'best', name, line: { shape: 'hv', color: C.best, width: 2 }, marker: { size: 6, color: C.best },
    x: pts.map((q) => q[0]).concat(pts.length ? [x1] : []), y: pts.map((q) => q[1]).concat(pts.length ? [pts[pts.length - 1][1]] : []),
    ...extra,
  });

  // bestSoFar plots the best f among the safe observations against the
  // evaluations.
  function bestSoFar(obs) {
    const pts = bestSteps(obs, (o) => o.f, (a, b) => a > b);
    const n = Math.max(obs.length, 1);
    return chart('best', 'Best safe f so far' + (ctxNames ? ', over all contexts' : ''), [bestTrace(pts, n + 0.5, 'best f among safe observations')], {
      xaxis: { title: { text: 'evaluations' }, range: [0.5, n + 0.5] },
      yaxis: { title: { text: 'best f' } },
      annotations: pts.length ? [] : emptyNote(obs.length ? 'no safe observation yet' : undefined),
    });
  }

  // posterior1D plots the posterior mean ± √β·σ of f (i = −1) or g_i over
  // a 1-D decision set, the safe set shaded, the observations sel.obs as
  // dots (with a context, those made in the context drawn, sel.where).
  function posterior1D(p, sel, v, i) {
    const obs = sel.obs;
    const s = v.summary;
    const post = i < 0 ? p.f : p.g[i];
    const name = i < 0 ? 'f' : `g<sub>${i + 1}</sub>`, plain = i < 0 ? 'f' : `g${i + 1}`;
    const val = (o) => (i < 0 ? o.f : o.g[i]);
    const h = i < 0 ? s.objective_threshold : v.thresholds[i];
    const order = p.x.map((_, j) => j).sort((a, b) => p.x[a][0] - p.x[b][0]);
    const xs = order.map((j) => p.x[j][0]);
    const half = order.map((j) => p.sqrt_beta * post.std[j]);
    const mean = order.map((j) => post.mean[j]);
    // The y axis follows the data — the mean and the observations in
    // force (and the threshold) — and clips the band, unless the whole
    // band is asked for (wholeBand): the band of √β ≈ 5 standard
    // deviations would squash the data flat.
    const ys = mean.concat(inForce(obs, val), wholeBand ? mean.map((m, k) => m - half[k]).concat(mean.map((m, k) => m + half[k])) : []);
    if (h != null) ys.push(h);
    const ydom = extent(ys);
    const [a, b] = extent(xs, 0.02);
    const data = [safeKey()].concat(bandTraces(xs, mean, half));
    if (h != null) data.push(hTrace(h, a, b));
    if (p.seed.length) {
      data.push({ type: 'scatter', mode: 'markers', meta: 'seed', name: 'seed', x: p.seed.map((j) => p.x[j][0]), y: p.seed.map(() => ydom[0]),
        marker: { symbol: 'square-open', size: 9, color: C.safeEdge, line: { width: 2 } }, text: p.seed.map((j) => `seed action ${j}`), hoverinfo: 'text', cliponaxis: false });
    }
    v.pending.forEach((q, k) => data.push(vTrace(q.x[0], ydom[0], ydom[1], 'pending', 'pending ask', C.pending, { text: [`pending ask ${q.ask}: x = ${fmt(q.x[0])}`, ''], hoverinfo: 'text' }, k === 0)));
    data.push(...obsTraces(obs, (o) => o.x[0], val, (o) => (i < 0 ? o.violation : o.g[i] < h), plain, val, ydom));
    return chart(i < 0 ? 'posterior posterior-f' : 'posterior posterior-g', `Posterior of ${name} over the decision set (round ${p.round})${sel.where}`, data, {
      xaxis: { title: { text: 'x' }, range: [a, b] },
      yaxis: { title: { text: plain }, range: ydom },
      shapes: safeShapes(xs, order.map((j) => p.safe[j]), a, b),
    }, { note: shownNote(sel), attrs: ` data-y0="${ydom[0]}" data-y1="${ydom[1]}"` });
  }

  // heatmap draws one quantity qty over a 2-D decision set — by default
  // the posterior mean of f; also its σ and each g_i's mean (heatmapsOf)
  // — as cells when the actions form a grid (dots otherwise), the unsafe
  // ones veiled, the safe set's border drawn (meta safe-outline), the
  // seeds, pending asks and observations sel.obs on top.
  function heatmap(p, sel, v, qty = { vals: p.f.mean, cls: 'heatmap', title: 'Posterior mean of f', bar: 'mean f' }) {
    const obs = sel.obs;
    const n = p.x.length;
    const uniq = (j) => [...new Set(p.x.map((x) => x[j]))].sort((a, b) => a - b);
    const ux = uniq(0), uy = uniq(1);
    const grid = ux.length * uy.length === n;
    const data = [];
    if (grid) {
      const ix = new Map(ux.map((x, k) => [x, k])), iy = new Map(uy.map((y, k) => [y, k]));
      const z = uy.map(() => new Array(ux.length)), safe = uy.map(() => new Array(ux.length)), veil = uy.map(() => new Array(ux.length).fill(null));
      p.x.forEach((x, j) => {
        const kx = ix.get(x[0]), ky = iy.get(x[1]);
        z[ky][kx] = qty.vals[j];
        safe[ky][kx] = p.safe[j] ? 1 : 0;
        if (!p.safe[j]) veil[ky][kx] = 1;
      });
      data.push({ type: 'heatmap', meta: 'cells', name: qty.bar, x: ux, y: uy, z, colorscale: 'Viridis', colorbar: { title: { text: qty.bar, side: 'right' }, thickness: 12 }, hovertemplate: `x₁ %{x}<br>x₂ %{y}<br>${qty.bar} %{z:.4g}<extra></extra>`, showlegend: false });
      data.push({ type: 'heatmap', meta: 'unsafe', name: 'not safe', x: ux, y: uy, z: veil, colorscale: [[0, 'rgba(255,255,255,0.5)'], [1, 'rgba(255,255,255,0.5)']], showscale: false, hoverinfo: 'skip', showlegend: true });
      if (safe.some((r) => r.some((c) => c === 1))) {
        data.push({ type: 'contour', meta: 'safe-outline', name: 'safe set', x: ux, y: uy, z: safe, autocontour: false, contours: { start: 0.5, end: 0.5, size: 1, coloring: 'none' },
          line: { color: C.safeEdge, width: 2.5, smoothing: 0 }, showscale: false, hoverinfo: 'skip', showlegend: true });
      }
    } else {
      data.push({ type: 'scatter', mode: 'markers', meta: 'cell', name: 'action', x: p.x.map((x) => x[0]), y: p.x.map((x) => x[1]),
        marker: { size: 8, color: qty.vals, colorscale: 'Viridis', colorbar: { title: { text: qty.bar, side: 'right' }, thickness: 12 }, opacity: p.safe.map((s) => (s ? 1 : 0.45)),
          line: { color: p.safe.map((s) => (s ? C.safeEdge : 'rgba(0,0,0,0)')), width: 1.5 } },
        customdata: p.safe.map((s) => (s ? 1 : 0)), text: p.x.map((x, j) => `x = ${point(x)}: ${qty.bar} ${fmt(qty.vals[j])}${p.safe[j] ? ', safe' : ''}`), hoverinfo: 'text', showlegend: false });
    }
    if (p.seed.length) {
      data.push({ type: 'scatter', mode: 'markers', meta: 'seed', name: 'seed', x: p.seed.map((j) => p.x[j][0]), y: p.seed.map((j) => p.x[j][1]),
        marker: { symbol: 'square-open', size: 12, color: C.safeEdge, line: { width: 2 } }, text: p.seed.map((j) => `seed action ${j}`), hoverinfo: 'text' });
    }
    if (v.pending.length) {
      data.push({ type: 'scatter', mode: 'markers', meta: 'pending', name: 'pending ask', x: v.pending.map((q) => q.x[0]), y: v.pending.map((q) => q.x[1]),
        marker: { symbol: 'diamond-open', size: 16, color: C.pending, line: { width: 2 } }, text: v.pending.map((q) => `pending ask ${q.ask}: x = ${point(q.x)}`), hoverinfo: 'text' });
    }
    data.push(...obsTraces(obs, (o) => o.x[0], (o) => o.x[1], (o) => o.violation, 'f', (o) => o.f, null, true));
    const [x0, x1] = extent(ux, 0.04), [y0, y1] = extent(uy, 0.04);
    return chart('posterior ' + qty.cls, `${qty.title} over the decision set (round ${p.round})${sel.where}`, data, {
      height: 480, margin: { l: 60, r: 16, t: 8, b: 100 },
      xaxis: { title: { text: 'x<sub>1</sub>' }, range: [x0, x1] },
      yaxis: { title: { text: 'x<sub>2</sub>' }, range: [y0, y1] },
    }, { note: shownNote(sel) });
  }

  // heatmapsOf are the 2-D views beside f's mean: its posterior standard
  // deviation (where the model is unsure) and each g_i's posterior mean
  // (how far from its threshold), each with the safe set outlined.
  function heatmapsOf(p, sel, v) {
    let html = heatmap(p, sel, v, { vals: p.f.std, cls: 'heatmap-sd', title: 'Posterior standard deviation σ of f', bar: 'σ f' });
    p.g.forEach((g, i) => {
      html += heatmap(p, sel, v, { vals: g.mean, cls: 'heatmap-g', title: `Posterior mean of g<sub>${i + 1}</sub> (threshold ${fmt(v.thresholds[i])})`, bar: `mean g${i + 1}` });
    });
    return html;
  }

  // slicesOf draws, for a box, a set of dimension above 2 or a study
  // stated in parameters, the posterior along each coordinate (or numeric
  // parameter) through the best safe point (v.slices, computed by the
  // server): one figure per outcome — f, then each g_i or constraint —
  // with a panel per coordinate; in each the mean, its ±√β·σ band, where
  // every limit's lower confidence bound holds shaded, the limits as
  // dashed lines and the point itself as a dotted line (meta at).
  function slicesOf(v) {
    const sl = v.slices;
    if (!sl || !sl.dims.length) return '';
    const s = v.summary, named_ = !!s.parameters;
    const obj = s.objective;
    const pOf = (d) => (named_ ? s.parameters.find((q) => q.name === d.name) : null);
    const where = named_ ? `the best safe trial (${esc(setting(sl.at_params, Object.keys(sl.at_params)))})` : `the best safe point ${esc(point(sl.at))}`;
    // The outcomes: f, then each constraint (a study stated in
    // parameters: in their units, with their limits) or g_i.
    const outs = [{ cls: 'slice slice-f', name: named_ ? obj.name : 'f', title: named_ ? esc(obj.name) : 'f', post: (d) => d.f, limits: named_ ? [obj.min, obj.max] : [s.objective_threshold] }];
    const ng = sl.dims[0].g ? sl.dims[0].g.length : 0;
    for (let i = 0; i < ng; i++) {
      const c = named_ ? sl.constraints[i] : null;
      outs.push({ cls: 'slice slice-g', name: c ? c.name : `g${i + 1}`, title: c ? esc(c.name) : `g<sub>${i + 1}</sub>`, post: (d) => d.g[i], limits: c ? [c.min, c.max] : [v.thresholds[i]] });
    }
    const nd = sl.dims.length, cols = Math.min(nd, 3), rows = Math.ceil(nd / cols);
    return outs.map((out) => {
      const data = [safeKey('every limit within its confidence bound')], shapes = [], layout = { height: 100 + rows * 230 };
      // The y range follows the means, the limits and the measured
      // values, and clips the band (√β ≈ 2–5 standard deviations would
      // squash the rest flat).
      const ys = [];
      sl.dims.forEach((d, k) => {
        const ax = k === 0 ? '' : String(k + 1), axes = { xaxis: 'x' + ax, yaxis: 'y' + ax };
        const p = pOf(d), post = out.post(d);
        const half = post.std.map((sd) => sl.sqrt_beta * sd);
        ys.push(...post.mean);
        data.push(...bandTraces(d.x, post.mean, half, axes, k === 0));
        const atX = named_ ? sl.at_params[d.name].num ?? sl.at_params[d.name] : sl.at[d.dim];
        const logx = !!p && p.scale === 'log';
        const [a, b] = logx ? [d.x[0], d.x[d.x.length - 1]] : extent(d.x, 0.02);
        shapes.push(...safeShapes(d.x, d.safe, a, b, { xref: 'x' + ax, yref: 'y' + ax + ' domain' }, logx));
        data.push(vTrace(atX, 0, 1, 'at', named_ ? 'best safe trial' : 'best safe point', C.best, { ...axes, yaxis: 'y' + ax, text: [`${d.name != null ? d.name : 'x' + (d.dim + 1)} = ${fmt(atX)}`, ''], hoverinfo: 'text' }, k === 0));
        out.limits.forEach((h, li) => { if (h != null) data.push(hTrace(h, a, b, named_ ? 'limit' : 'threshold', axes, k === 0 && li === out.limits.findIndex((x) => x != null))); });
        const col = k % cols, row = Math.floor(k / cols);
        const xname = named_ ? named(d.name) : `x<sub>${d.dim + 1}</sub>`;
        layout['xaxis' + ax] = p ? paramAxis(p, { domain: [col / cols + 0.04, (col + 1) / cols - 0.04], anchor: 'y' + ax }) : { title: { text: xname }, range: [a, b], domain: [col / cols + 0.04, (col + 1) / cols - 0.04], anchor: 'y' + ax };
        layout['yaxis' + ax] = { domain: rowDomain(row, rows), anchor: 'x' + ax, title: { text: col === 0 ? (named_ ? named(out.name) : out.name) : '' }, ...(k ? { matches: 'y' } : {}) };
      });
      // The at lines span the y range: set once the range is known.
      const lims = out.limits.filter((h) => h != null);
      const measured = v.observations.filter((o) => !o.retracted).map((o) => (named_ ? o.values[out.name] : out.name === 'f' ? o.f : o.g[Number(out.name.slice(1)) - 1]));
      const ydom = extent(ys.concat(lims, measured));
      for (const t of data) if (t.meta === 'at') t.y = [ydom[0], ydom[1]];
      layout.yaxis.range = ydom;
      layout.shapes = shapes;
      return chart(out.cls, `${out.title} along each ${named_ ? 'numeric parameter' : 'coordinate'} through ${where}`, data, layout, { wide: true });
    }).join('');
  }

  // rowDomain is the y domain of row (0: the top) of rows panels 230 px
  // high each, 64 px of it kept for the x axis's ticks and title.
  const rowDomain = (row, rows) => [Math.max(0, 1 - (row + 1) / rows + 64 / (rows * 230)), 1 - row / rows];

  // parallel draws every trial as a line through one axis per parameter
  // (or coordinate) and one for the objective, each axis spanning its
  // range (a log parameter's in its logarithm, a choice's values evenly),
  // coloured by the objective in 8 bands of Viridis; violations red,
  // failures dark and dashed to the objective's axis, retracted grey.
  // Plotly's own parcoords needs WebGL, which the cartesian bundle
  // leaves out: these are plain lines, one trace per colour (a NaN
  // between trials), so that a thousand trials stay one draw each.
  function parallel(rows, axes, objName, wide = true) {
    // rows: {k, vals: [per axis value], f, kind: ok|violation|retracted|failed}
    const n = axes.length;
    const scaled = axes.map((a, j) => {
      if (a.cats) return (v) => (a.cats.length > 1 ? a.cats.indexOf(v) / (a.cats.length - 1) : 0.5);
      const vals = a.range || extent(rows.map((r) => r.vals[j]).filter(Number.isFinite), 0);
      const f = a.log ? Math.log10 : (x) => x;
      const lo = f(vals[0]), hi = f(vals[1]);
      return (v) => (Number.isFinite(v) ? (f(v) - lo) / (hi - lo || 1) : NaN);
    });
    const fs = rows.filter((r) => r.kind === 'ok' || r.kind === 'violation').map((r) => r.f);
    const [flo, fhi] = extent(fs, 0);
    const fscale = (v) => (v - flo) / (fhi - flo || 1);
    const BANDS = 8;
    const groups = Array.from({ length: BANDS }, () => ({ x: [], y: [], text: [] }));
    const other = { violation: { x: [], y: [], text: [] }, retracted: { x: [], y: [], text: [] }, failed: { x: [], y: [], text: [] } };
    for (const r of rows) {
      const g = r.kind === 'ok' ? groups[Math.min(BANDS - 1, Math.floor(fscale(r.f) * BANDS))] : other[r.kind];
      const ys = r.vals.map((v, j) => scaled[j](v)).concat([r.kind === 'failed' ? NaN : fscale(r.f)]);
      ys.forEach((y, j) => { g.x.push(j); g.y.push(y); g.text.push(r.tip); });
      g.x.push(null); g.y.push(null); g.text.push('');
    }
    const line = (g, meta, name, color, extra = {}) => ({ type: 'scatter', mode: 'lines', meta, name, x: g.x, y: g.y, text: g.text, hoverinfo: 'text', line: { color, width: 1.2 }, opacity: 0.8, connectgaps: false, ...extra });
    const vir = ['#440154', '#46327e', '#365c8d', '#277f8e', '#1fa187', '#4ac16d', '#a0da39', '#fde725'];
    const data = groups.map((g, b) => line(g, 'pc', `${fmt(flo + (fhi - flo) * b / BANDS)} – ${fmt(flo + (fhi - flo) * (b + 1) / BANDS)}`, vir[b], { showlegend: g.x.length > 0, legendgroup: 'f' }));
    data.push(line(other.retracted, 'pc-retracted', 'retracted', C.retracted, { line: { color: C.retracted, width: 1, dash: 'dot' }, showlegend: other.retracted.x.length > 0 }));
    data.push(line(other.failed, 'pc-failed', 'failed', C.obs, { line: { color: C.obs, width: 1.4, dash: 'dash' }, showlegend: other.failed.x.length > 0 }));
    data.push(line(other.violation, 'pc-violation', 'violation', C.bad, { line: { color: C.bad, width: 1.8 }, showlegend: other.violation.x.length > 0 }));
    // Each axis with its ends' values, as annotations.
    const ann = [], shapes = [];
    const ends = axes.map((a, j) => (a.cats ? [a.cats[0], a.cats[a.cats.length - 1]] : (a.range || extent(rows.map((r) => r.vals[j]).filter(Number.isFinite), 0)).map(fmt))).concat([[fmt(flo), fmt(fhi)]]);
    ends.forEach((e, j) => {
      shapes.push({ type: 'line', x0: j, x1: j, y0: 0, y1: 1, xref: 'x', yref: 'y', line: { color: C.axis, width: 1.2 } });
      ann.push({ x: j, y: 1, text: String(e[1]), showarrow: false, yanchor: 'bottom', font: { size: 10.5 } }, { x: j, y: 0, text: String(e[0]), showarrow: false, yanchor: 'top', font: { size: 10.5 } });
    });
    return chart('parallel', `Trials in parallel coordinates`, data, {
      height: 400, margin: { l: 30, r: 30, t: 24, b: 70 }, shapes, annotations: ann,
      xaxis: { tickvals: ends.map((_, j) => j), ticktext: axes.map((a) => a.label).concat([objName]), range: [-0.2, n + 0.2], side: 'top', showgrid: false, mirror: false, ticks: '', linecolor: 'rgba(0,0,0,0)' },
      yaxis: { visible: false, range: [-0.08, 1.08] },
      legend: { y: -0.04, title: { text: 'by objective:' } },
    }, { wide });
  }

  // plainParallel is parallel for a plain study: x_1 … x_d and f.
  function plainParallel(obs, s) {
    const axes = [];
    for (let j = 0; j < s.d; j++) axes.push({ label: `x${j + 1}`, range: s.box ? s.box[j] : null });
    const rows = obs.map((o) => ({ k: o.k, vals: o.x, f: o.f, kind: o.retracted ? 'retracted' : o.violation ? 'violation' : 'ok', tip: hoverOf(o, 'f', o.f) }));
    return parallel(rows, axes, 'f');
  }

  // ---- a study stated in parameters: its own units ----

  // outcomePlot plots outcome c's value at each trial in the user's
  // units, its limits as dashed lines, the failed trials (no value) as
  // crosses on the bottom edge and, for the objective, the best safe
  // value so far.
  function outcomePlot(obs, fails, c, objective) {
    const val = (o) => o.values[c.name];
    const lim = [c.min, c.max].filter((h) => h != null);
    const ydom = extent(inForce(obs, val).concat(lim));
    const n = Math.max(...obs.map((o) => o.k), ...fails.map((f) => f.trial), 0);
    const bad = objective ? (o) => o.violation : (o) => (c.min != null && val(o) < c.min) || (c.max != null && val(o) > c.max);
    const data = obsTraces(obs, (o) => o.k, val, bad, c.name, val, ydom);
    data[0].name = 'trial';
    if (!objective) data[1].name = 'outside its limits';
    lim.forEach((h, k) => data.push(hTrace(h, -0.5, n + 0.5, 'limit', {}, k === 0)));
    const live = fails.filter((f) => !f.retracted);
    if (live.length) {
      data.push({ type: 'scatter', mode: 'markers', meta: 'failed', name: 'failed (no value)', x: live.map((f) => f.trial), y: live.map(() => ydom[0]),
        marker: { symbol: 'x-thin-open', size: 10, color: C.obs, line: { width: 2 } }, cliponaxis: false,
        text: live.map((f) => `trial ${f.trial} failed at ${esc(setting(f.params, Object.keys(f.params)))}`), hoverinfo: 'text' });
    }
    if (objective) {
      const pts = bestSteps(obs, val, (a, b) => (c.goal === 'maximize' ? a > b : a < b));
      if (pts.length) data.push(bestTrace(pts, n + 0.5, 'best safe so far'));
    }
    return chart(objective ? 'progress progress-f' : 'progress progress-g', `${esc(c.name)} of each trial` + (lim.length ? ` (${lim.map((h) => fmt(h)).join(' … ')})` : ''), data, {
      xaxis: { title: { text: 'trial' }, range: [-0.5, n + 0.5] },
      yaxis: { title: { text: named(c.name) }, range: ydom },
      annotations: obs.length ? [] : emptyNote(),
    });
  }

  // The map of two numeric parameters: the trials at once, the model's
  // mean and safe region when GET …/map answers (loadMap). mapPick keeps
  // each study's choice of axes across redraws.
  const mapPick = {};
  function mapFigure(v) {
    const s = v.summary;
    const nums = s.parameters.filter((p) => p.type !== 'choice');
    if (nums.length < 2) return '';
    let pick = mapPick[s.study];
    if (!pick || !nums.some((p) => p.name === pick.x) || !nums.some((p) => p.name === pick.y)) pick = mapPick[s.study] = { x: nums[0].name, y: nums[1].name };
    const sel = (id, cur) => `<select id="${id}">${nums.map((p) => `<option${p.name === cur ? ' selected' : ''}>${esc(p.name)}</option>`).join('')}</select>`;
    const before = `<p class="controls map-controls"><label>x ${sel('map-x', pick.x)}</label><label>y ${sel('map-y', pick.y)}</label><span class="note" id="map-status">the model's map: loading…</span></p>`;
    return chart('map', `${esc(s.objective.name)} over ${esc(pick.x)} × ${esc(pick.y)}: the model's mean, the safe region and the trials`, mapData(v, pick, null), mapLayout(v, pick), { before, attrs: ' id="map-figure"' });
  }

  function mapLayout(v, pick) {
    const p = (n) => v.summary.parameters.find((q) => q.name === n);
    return { height: 500, margin: { l: 60, r: 16, t: 8, b: 110 }, xaxis: paramAxis(p(pick.x)), yaxis: paramAxis(p(pick.y)) };
  }

  // mapData are the map's traces: with m (the server's Map) the mean as
  // filled contours (meta mean), the region where every limit's lower
  // bound holds outlined (meta safe-region) and the rest veiled (meta
  // unsafe); the trials in force coloured by the objective on the same
  // scale (meta obs), violations (meta violation) and failures (meta
  // failed) marked, the setting the map is drawn through (meta at).
  function mapData(v, pick, m) {
    const s = v.summary, obj = s.objective;
    const obs = v.observations.map((o) => ({ ...o, k: o.trial }));
    const live = obs.filter((o) => !o.retracted);
    const ok = live.filter((o) => !o.violation), bad = live.filter((o) => o.violation);
    const fails = (v.failures || []).filter((f) => !f.retracted);
    const fv = ok.map((o) => o.values[obj.name]);
    const [clo, chi] = extent(fv.concat(m ? m.mean.flat() : []), 0);
    const data = [];
    if (m) {
      data.push({ type: 'contour', meta: 'mean', name: `model's mean ${obj.name}`, x: m.xs, y: m.ys, z: m.mean, colorscale: 'Viridis', reversescale: obj.goal === 'minimize', zmin: clo, zmax: chi,
        contours: { coloring: 'heatmap', showlines: true }, line: { width: 0.5, color: 'rgba(255,255,255,0.5)' },
        colorbar: { title: { text: named(obj.name), side: 'right' }, thickness: 12 },
        hovertemplate: `${esc(pick.x)} %{x:.4g}<br>${esc(pick.y)} %{y:.4g}<br>mean ${esc(obj.name)} %{z:.4g}<extra></extra>`, showlegend: false });
      const safe = m.safe.map((r) => r.map((b) => (b ? 1 : 0)));
      data.push({ type: 'heatmap', meta: 'unsafe', name: 'a limit not certain', x: m.xs, y: m.ys, z: m.safe.map((r) => r.map((b) => (b ? null : 1))), colorscale: [[0, 'rgba(255,255,255,0.55)'], [1, 'rgba(255,255,255,0.55)']], showscale: false, hoverinfo: 'skip', showlegend: true });
      if (safe.some((r) => r.includes(1))) {
        data.push({ type: 'contour', meta: 'safe-region', name: 'every limit\'s lower bound holds', x: m.xs, y: m.ys, z: safe, autocontour: false, contours: { start: 0.5, end: 0.5, size: 1, coloring: 'none' },
          line: { color: C.safeEdge, width: 3, smoothing: 0.6 }, showscale: false, hoverinfo: 'skip', showlegend: true });
      }
    }
    const at = (o, n) => o.params[n];
    const tip = (o) => `trial ${o.trial}: ${esc(setting(o.params, Object.keys(o.params)))}` + Object.keys(o.values).sort().map((n) => `<br>${esc(n)} = ${fmt(o.values[n])}`).join('');
    data.push({ type: 'scatter', mode: 'markers', meta: 'obs', name: 'trial (colour: ' + obj.name + ')', x: ok.map((o) => at(o, pick.x)), y: ok.map((o) => at(o, pick.y)), customdata: ok.map((o) => o.trial),
      marker: { size: 9, color: fv, colorscale: 'Viridis', reversescale: obj.goal === 'minimize', cmin: clo, cmax: chi, line: { color: '#fff', width: 1.2 }, showscale: !m, colorbar: m ? undefined : { title: { text: named(obj.name), side: 'right' }, thickness: 12 } },
      text: ok.map(tip), hoverinfo: 'text' });
    data.push({ type: 'scatter', mode: 'markers', meta: 'violation', name: 'violation', x: bad.map((o) => at(o, pick.x)), y: bad.map((o) => at(o, pick.y)), customdata: bad.map((o) => o.trial),
      marker: { symbol: 'x', size: 10, color: C.bad, line: { color: '#fff', width: 1 } }, text: bad.map(tip), hoverinfo: 'text', showlegend: bad.length > 0 });
    data.push({ type: 'scatter', mode: 'markers', meta: 'failed', name: 'failed', x: fails.map((f) => f.params[pick.x]), y: fails.map((f) => f.params[pick.y]), customdata: fails.map((f) => f.trial),
      marker: { symbol: 'x-thin-open', size: 11, color: C.obs, line: { width: 2 } }, text: fails.map((f) => `trial ${f.trial} failed at ${esc(setting(f.params, Object.keys(f.params)))}`), hoverinfo: 'text', showlegend: fails.length > 0 });
    if (m) {
      data.push({ type: 'scatter', mode: 'markers', meta: 'at', name: 'drawn through (others held here)', x: [m.at[pick.x]], y: [m.at[pick.y]],
        marker: { symbol: 'star-open', size: 15, color: C.best, line: { width: 2 } }, text: [esc(setting(m.at, Object.keys(m.at)))], hoverinfo: 'text' });
    }
    return data;
  }

  // loadMap asks the server for the map of the study drawn (v) over the
  // chosen pair and draws it in; a later draw or choice makes it moot.
  let mapGen = 0;
  async function loadMap(v) {
    const el = document.querySelector('#map-figure .chart'), status = document.getElementById('map-status');
    if (!el) return;
    const my = ++mapGen, s = v.summary, pick = mapPick[s.study];
    try {
      const got = await api(`v1/studies/${encodeURIComponent(s.study)}/map?x=${encodeURIComponent(pick.x)}&y=${encodeURIComponent(pick.y)}`);
      if (my !== mapGen || !el.isConnected) return;
      const m = JSON.parse(got.text);
      await Plotly.react(el, mapData(v, pick, m), baseLayout(mapLayout(v, pick)), CONFIG());
      status.textContent = `the other parameters held at ${setting(m.at, Object.keys(m.at).filter((n) => n !== pick.x && n !== pick.y)) || '—'}`;
      el.closest('figure').dataset.mapped = pick.x + ',' + pick.y;
    } catch (err) {
      if (my !== mapGen || !el.isConnected) return;
      status.textContent = 'no map: ' + err.message;
      el.closest('figure').dataset.mapped = 'error';
    }
  }

  // wireMap redraws the map when another parameter is picked (x and y
  // never the same: picking the other's swaps them).
  function wireMap(v) {
    const xs = document.getElementById('map-x'), ys = document.getElementById('map-y');
    if (!xs) return;
    const s = v.summary;
    const pick = () => {
      const p = mapPick[s.study], x = xs.value, y = ys.value;
      if (x === y) { if (x === p.x) xs.value = p.y; else ys.value = p.x; }
      mapPick[s.study] = { x: xs.value, y: ys.value };
      const el = document.querySelector('#map-figure .chart');
      document.querySelector('#map-figure h2').textContent = `${s.objective.name} over ${xs.value} × ${ys.value}: the model's mean, the safe region and the trials`;
      delete el.closest('figure').dataset.mapped;
      Plotly.react(el, mapData(v, mapPick[s.study], null), baseLayout(mapLayout(v, mapPick[s.study])), CONFIG()).then(() => loadMap(v));
    };
    xs.addEventListener('change', pick);
    ys.addEventListener('change', pick);
    loadMap(v);
  }

  // namedParallel is parallel for a study stated in parameters of more
  // than two: each parameter in its units, then the objective.
  function namedParallel(v) {
    const s = v.summary, obj = s.objective;
    const axes = s.parameters.map((p) => (p.type === 'choice' ? { label: p.name, cats: p.values } : { label: p.name, range: [p.low, p.high], log: p.scale === 'log' }));
    const names = s.parameters.map((p) => p.name);
    const rows = v.observations.map((o) => ({ k: o.trial, vals: names.map((n) => o.params[n]), f: o.values[obj.name], kind: o.retracted ? 'retracted' : o.violation ? 'violation' : 'ok',
      tip: `trial ${o.trial}: ${esc(setting(o.params, names))}, ${esc(obj.name)} = ${fmt(o.values[obj.name])}` }));
    for (const f of v.failures || []) if (!f.retracted) rows.push({ k: f.trial, vals: names.map((n) => f.params[n]), f: NaN, kind: 'failed', tip: `trial ${f.trial} failed: ${esc(setting(f.params, names))}` });
    return parallel(rows, axes, obj.name + (obj.unit ? ` (${obj.unit})` : ''));
  }

  // ---- two studies side by side ----

  // trialsOf reads a view as trials: the parameters' axes, the
  // objective's name and direction, and each trial's values; a plain
  // study's coordinates x1 … xd and f, maximized.
  function trialsOf(v) {
    const s = v.summary;
    if (s.parameters) {
      const obj = s.objective;
      return {
        params: s.parameters.map((p) => ({ name: p.name, p })), obj: { name: obj.name, unit: obj.unit, goal: obj.goal },
        rows: v.observations.filter((o) => !o.retracted).map((o) => ({ k: o.trial, vals: s.parameters.map((p) => o.params[p.name]), f: o.values[obj.name], bad: o.violation })),
        failures: (v.failures || []).filter((f) => !f.retracted).length,
      };
    }
    return {
      params: Array.from({ length: s.d }, (_, j) => ({ name: `x${j + 1}`, p: null })), obj: { name: 'f', goal: 'maximize' },
      rows: v.observations.filter((o) => !o.retracted).map((o, k) => ({ k: k + 1, vals: o.x, f: o.f, bad: o.violation })),
      failures: s.failures || 0,
    };
  }

  // renderCompare draws two studies of the same parameters together: the
  // best safe objective so far of each, and the objective against each
  // parameter, one colour per study (Okabe and Ito's blue and orange).
  function renderCompare(views, names) {
    const [a, b] = views.map(trialsOf);
    document.title = names.join(' vs ') + ' · safegp';
    crumbs.innerHTML = `<a href="#/">studies</a> / compare ${names.map((n) => `<a href="#/study/${encodeURIComponent(n)}">${esc(n)}</a>`).join(' and ')}`;
    const same = a.params.length === b.params.length && a.params.every((p, j) => p.name === b.params[j].name) && a.obj.name === b.obj.name && a.obj.goal === b.obj.goal;
    if (!same) {
      queue = [];
      app.innerHTML = `<p class="error" id="compare-error">${esc(names[0])} and ${esc(names[1])} do not have the same parameters and objective (${esc(a.params.map((p) => p.name).join(', '))}; ${esc(a.obj.name)} against ${esc(b.params.map((p) => p.name).join(', '))}; ${esc(b.obj.name)}): the compare view draws two studies of one problem.</p><p><a href="#/">All studies</a></p>`;
      return drawCharts();
    }
    units = {};
    for (const v of views) if (v.summary.parameters) for (const q of v.summary.parameters.concat([v.summary.objective])) if (q.unit) units[q.name] = q.unit;
    const COL = ['#0072B2', '#E69F00'];
    const better = (x, y) => (a.obj.goal === 'maximize' ? x > y : x < y);
    const card = (t, v, k) => {
      const pts = bestSteps(t.rows.map((r) => ({ ...r, violation: r.bad })), (r) => r.f, better);
      return `<div class="card compare-card"><h2><span class="swatch" data-k="${k}"></span><a href="#/study/${encodeURIComponent(names[k])}">${esc(names[k])}</a> <span class="algo">${esc(v.summary.algorithm)}</span></h2><dl class="facts">` +
        `<dt>trials</dt><dd class="num">${t.rows.length}</dd><dt>violations</dt><dd class="num${v.summary.violations ? ' bad' : ''}">${v.summary.violations}</dd>` +
        `<dt>failed trials</dt><dd class="num">${t.failures}</dd><dt>best safe ${esc(a.obj.name)}</dt><dd class="num">${pts.length ? fmt(pts[pts.length - 1][1]) : '–'}</dd></dl></div>`;
    };
    let html = `<h1>${esc(names[0])} and ${esc(names[1])}</h1><div class="cards">${card(a, views[0], 0)}${card(b, views[1], 1)}</div><div class="plots">`;
    const n = Math.max(a.rows.length, b.rows.length, 1);
    const best = [a, b].map((t, k) => bestTrace(bestSteps(t.rows.map((r) => ({ ...r, violation: r.bad })), (r) => r.f, better), n + 0.5, names[k], { line: { shape: 'hv', color: COL[k], width: 2 }, marker: { size: 5, color: COL[k] }, meta: 'best' }));
    html += chart('compare-best', `Best safe ${esc(a.obj.name)} so far`, best, { xaxis: { title: { text: 'trial' }, range: [0.5, n + 0.5] }, yaxis: { title: { text: named(a.obj.name) } } });
    // The objective against each parameter: one panel each.
    const nd = a.params.length, cols = Math.min(nd, 3), rows = Math.ceil(nd / cols);
    const data = [], layout = { height: 100 + rows * 230 };
    a.params.forEach((q, j) => {
      const ax = j === 0 ? '' : String(j + 1), col = j % cols, row = Math.floor(j / cols);
      [a, b].forEach((t, k) => {
        data.push({ type: 'scatter', mode: 'markers', meta: 'trials-' + k, name: names[k], legendgroup: names[k], showlegend: j === 0, xaxis: 'x' + ax, yaxis: 'y' + ax,
          x: t.rows.map((r) => r.vals[j]), y: t.rows.map((r) => r.f), text: t.rows.map((r) => `${esc(names[k])} trial ${r.k}${r.bad ? ' (violation)' : ''}`), hoverinfo: 'text+x+y',
          marker: { size: 7, color: COL[k], opacity: 0.75, symbol: t.rows.map((r) => (r.bad ? 'x' : 'circle')) } });
      });
      const dom = { domain: [col / cols + 0.04, (col + 1) / cols - 0.04], anchor: 'y' + ax };
      layout['xaxis' + ax] = q.p ? paramAxis(q.p, dom) : { title: { text: q.name }, ...dom };
      layout['yaxis' + ax] = { domain: rowDomain(row, rows), anchor: 'x' + ax, title: { text: col === 0 ? named(a.obj.name) : '' }, ...(j ? { matches: 'y' } : {}) };
    });
    html += chart('compare-params', `${esc(a.obj.name)} of each trial against each parameter (×: a violation)`, data, layout, { wide: true });
    app.innerHTML = html + '</div>';
    return drawCharts();
  }

  // ---- start ----

  takeToken();
  // The first answer is asked for at once; its failure is handled when
  // refresh awaits it, so it is caught here to not count as unhandled.
  const early = fetchRoute(route());
  early.catch(() => {});
  document.addEventListener('DOMContentLoaded', () => {
    app = document.getElementById('app');
    crumbs = document.getElementById('crumbs');
    updated = document.getElementById('updated');
    window.addEventListener('hashchange', () => { takeToken(); lastText = lastETag = ''; refresh(); });
    document.addEventListener('visibilitychange', () => { if (document.hidden) clearTimeout(timer); else refresh(); });
    refresh(early);
  });
})();
