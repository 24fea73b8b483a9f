// safegp dashboard: draws the studies of a `safegp serve` as inline SVG.
// Read-only: it only GETs /v1/studies and /v1/studies/{name}/view, the
// latter every POLL_MS while the tab is visible, and the observations as
// CSV when the download button is pressed. No library, no build
// step; the page's Content-Security-Policy (default-src 'self') allows this
// file and nothing inline, so every mark is an SVG element with presentation
// attributes, and every handler is attached here.
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
    return m ? { study: decode(m[1]) } : { study: null };
  }

  const dataURL = (r) => (r.study ? 'v1/studies/' + encodeURIComponent(r.study) + '/view' : 'v1/studies');

  // refresh fetches what the route shows and draws it; it polls again
  // after POLL_MS while the tab is visible. early is a request started
  // before the document was parsed, for the same route.
  async function refresh(early) {
    clearTimeout(timer);
    const my = ++generation;
    const r = route();
    const key = r.study ? 'study:' + r.study : 'list';
    const shown = document.documentElement.dataset.rendered === key;
    try {
      const got = early ? await early : await api(dataURL(r), shown ? lastETag : '');
      if (my !== generation) return;
      if (got && (got.text !== lastText || !shown)) {
        const data = JSON.parse(got.text);
        lastData = data;
        if (r.study) renderStudy(data); else renderList(data.studies);
        lastText = got.text;
        rendered(key);
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
      return;
    }
    const rows = studies.map((s) => `<tr>
      <td><a href="#/study/${encodeURIComponent(s.study)}">${esc(s.study)}</a></td>
      <td>${esc(s.algorithm)}</td>
      <td>${s.box ? 'box' : fmt(s.actions) + ' actions'}, d = ${s.d}</td>
      <td class="r num">${s.rounds} / ${s.horizon}<progress max="${s.horizon}" value="${s.rounds}"></progress></td>
      <td class="r num${s.violations ? ' bad' : ''}">${s.violations}</td>
      <td class="r num${s.failures ? ' bad' : ''}">${s.failures || 0}</td>
      <td class="r num">${s.pending}</td>
      <td class="r num">${s.retracted}</td>
      <td data-ago="${esc(s.updated)}">${esc(ago(s.updated))}</td></tr>`).join('');
    app.innerHTML = `<h1>Studies</h1><table class="studies" id="study-list"><thead><tr><th>study</th><th>algorithm</th>
      <th>decision set</th><th class="r">rounds / horizon</th><th class="r">violations</th><th class="r">failed</th><th class="r">pending</th>
      <th class="r">retracted</th><th>last event</th></tr></thead><tbody>${rows}</tbody></table>`;
  }

  // ---- the study page ----

  function renderStudy(v) {
    if (v.summary.parameters) { renderNamed(v); return; }
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
        <div class="card pending-card"><h2>Pending asks (${v.pending.length})</h2>${pend}</div>
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
      if (s.d >= 2) html += parallel(obs, s);
      v.thresholds.forEach((_, i) => { html += progress(obs, s, i, v.thresholds); });
      html += slicesOf(v);
    }
    html += '</div>';
    if (v.posterior_skipped) html += `<p class="note" id="posterior-skipped">No posterior drawn: ${esc(v.posterior_skipped)}.</p>`;
    html += obsTable(obs, v.thresholds.length, s);
    app.innerHTML = html;
    wire(s.study);
  }

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
      wb.addEventListener('change', () => {
        wholeBand = wb.checked;
        sessionStorage.setItem(BAND_KEY, wholeBand ? '1' : '0');
        if (lastData) {
          // Drawn again from the same data: counted apart from the
          // renders of new data (data-redraws), which tests count.
          renderStudy(lastData);
          const d = document.documentElement.dataset;
          d.redraws = String((Number(d.redraws) || 0) + 1);
        }
      });
    }
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
      const a = document.createElement('a');
      a.href = URL.createObjectURL(await resp.blob());
      a.download = name + '.csv';
      document.body.appendChild(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(a.href), 60000);
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
    const notes = (s.notes || []).length ? `<div class="card notes" id="notes"><h2>Notes</h2><ul>${s.notes.map((n) => `<li>${esc(n)}</li>`).join('')}</ul></div>` : '';
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
    html += outcomePlot(obs, obj, true);
    lims.forEach((c) => { html += outcomePlot(obs, c, false); });
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
  }

  // outcomePlot plots outcome c's value at each trial in the user's
  // units, its limits as dashed lines and, for the objective, the best
  // safe value so far.
  function outcomePlot(obs, c, objective) {
    const val = (o) => o.values[c.name];
    const lim = [c.min, c.max].filter((h) => h != null);
    const ys = inForce(obs, val).concat(lim);
    const ydom = extent(ys);
    const better = (a, b) => (c.goal === 'maximize' ? a > b : a < b);
    const pts = [];
    if (objective) {
      let best = null;
      for (const o of obs) if (!o.retracted && !o.violation && (best === null || better(val(o), best))) { best = val(o); pts.push([o.k, best]); }
    }
    const n = Math.max(...obs.map((o) => o.k), 0);
    const bad = objective ? (o) => o.violation : (o) => (c.min != null && val(o) < c.min) || (c.max != null && val(o) > c.max);
    return frame({
      cls: objective ? 'progress progress-f' : 'progress progress-g',
      title: `${esc(c.name)} of each trial` + (lim.length ? ` (${lim.map((h) => fmt(h)).join(' … ')})` : ''),
      legend: [['obs', 'trial'], ['bad', objective ? 'violation' : 'outside its limits'], ['retracted', 'retracted']].concat(lim.length ? [['threshold', 'limit']] : [], pts.length ? [['best', 'best safe so far']] : []),
      xlabel: 'trial', ylabel: named(c.name),
      xdom: [-0.5, n + 0.5], ydom, xticks: obs.length ? null : [],
      draw: (sc) => {
        let d = '';
        if (pts.length) {
          d = `M${sc.x(pts[0][0])} ${sc.y(pts[0][1])}`;
          for (let j = 1; j < pts.length; j++) d += `H${sc.x(pts[j][0])}V${sc.y(pts[j][1])}`;
          d = `<path class="best-line" d="${d}H${sc.x(n + 0.5)}" fill="none" stroke="${C.best}" stroke-width="2"/>`;
        }
        return none(sc, obs) + lim.map((h) => hline(sc, h, 'threshold', C.threshold)).join('') + d +
          marks(obs, (o) => sc.x(o.k), (o) => sc.y(pin(val(o), ydom)), bad, radius(obs.length), c.name, val);
      },
    });
  }

  // shownNote says, in a posterior plot of a study with a context, how
  // many of the observations it draws: those made in the context drawn.
  const shownNote = (sel) => (ctxNames ? `<p class="note shown">${sel.obs.length} of ${sel.all} observation${sel.all === 1 ? '' : 's'} drawn: those made in this context</p>` : '');

  // ---- plots ----

  // ticks returns about n round numbers (1, 2 or 5 × 10^k apart) in [a, b].
  function ticks(a, b, n) {
    const span = b - a;
    if (!(span > 0)) return [a];
    const raw = span / n, mag = 10 ** Math.floor(Math.log10(raw)), e = raw / mag;
    const step = (e >= 7.5 ? 10 : e >= 3.5 ? 5 : e >= 1.5 ? 2 : 1) * mag;
    const out = [];
    for (let v = Math.ceil(a / step - 1e-9) * step; v <= b + step * 1e-9; v += step) out.push(Math.abs(v) < step * 1e-9 ? 0 : v);
    return out;
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

  // Legend swatches, drawn in the caption outside the plot area so that
  // they never cover data.
  const SW = {
    obs: `<circle cx="7" cy="6" r="3.5" fill="${C.obs}"/>`,
    bad: `<circle cx="7" cy="6" r="3.5" fill="${C.bad}"/>`,
    retracted: `<circle cx="7" cy="6" r="3.5" fill="#fff" stroke="${C.retracted}" stroke-width="1.5"/>`,
    threshold: `<line x1="0" x2="14" y1="6" y2="6" stroke="${C.threshold}" stroke-width="2" stroke-dasharray="4 2"/>`,
    mean: `<line x1="0" x2="14" y1="6" y2="6" stroke="${C.f}" stroke-width="2"/>`,
    band: `<rect x="0" y="2" width="14" height="8" fill="${C.band}"/>`,
    safe: `<rect x="0" y="1" width="14" height="10" fill="${C.safe}" stroke="${C.safeEdge}"/>`,
    unsafe: `<rect x="0" y="1" width="14" height="10" fill="#fff" stroke="${C.axis}"/><path d="M0 9 L6 1 M5 11 L13 1" stroke="${C.axis}"/>`,
    pending: `<path d="M7 1 L12 6 L7 11 L2 6 Z" fill="${C.pending}"/>`,
    pendingRing: `<path d="M7 1 L12 6 L7 11 L2 6 Z" fill="none" stroke="${C.pending}" stroke-width="1.5"/>`,
    seed: `<rect x="3" y="2" width="8" height="8" fill="none" stroke="${C.safeEdge}" stroke-width="1.5"/>`,
    best: `<path d="M0 10 H5 V5 H10 V2 H14" fill="none" stroke="${C.best}" stroke-width="2"/>`,
    byF: ['#440154', '#21918c', '#fde725'].map((c, k) => `<rect x="${k * 5}" y="1" width="5" height="10" fill="${c}"/>`).join(''),
  };
  const legend = (items) => '<div class="legend">' + items.map(([k, label]) => `<span><svg width="14" height="12" aria-hidden="true">${SW[k]}</svg>${label}</span>`).join('') + '</div>';

  // frame draws a plot: axes, grid, labels, and o.draw(s)'s marks clipped
  // to the plot area, with s.x and s.y mapping data to the SVG.
  function frame(o) {
    const W = o.w || 600, H = o.h || 280;
    const m = { l: 58, r: o.right || 14, t: o.top || 8, b: 42 };
    const iw = W - m.l - m.r, ih = H - m.t - m.b;
    const [x0, x1] = o.xdom, [y0, y1] = o.ydom;
    const s = {
      x: (v) => r1(m.l + ((v - x0) / (x1 - x0)) * iw),
      y: (v) => r1(m.t + ih - ((v - y0) / (y1 - y0)) * ih),
      m, iw, ih, W, H, id: ++uid,
    };
    let g = '';
    for (const t of ticks(y0, y1, 5)) {
      const y = s.y(t);
      g += `<line x1="${m.l}" x2="${m.l + iw}" y1="${y}" y2="${y}" stroke="${C.grid}"/><text x="${m.l - 6}" y="${y}" dy="0.32em" text-anchor="end" font-size="11" fill="${C.text}">${fmt(t)}</text>`;
    }
    for (const t of o.xticks || ticks(x0, x1, 6)) {
      const x = s.x(t);
      g += `<line x1="${x}" x2="${x}" y1="${m.t}" y2="${m.t + ih}" stroke="${C.grid}"/><text x="${x}" y="${m.t + ih + 15}" text-anchor="middle" font-size="11" fill="${C.text}">${fmt(t)}</text>`;
    }
    g += `<rect x="${m.l}" y="${m.t}" width="${iw}" height="${ih}" fill="none" stroke="${C.axis}"/>` +
      `<text x="${m.l + iw / 2}" y="${H - 6}" text-anchor="middle" font-size="12" fill="${C.text}">${o.xlabel}</text>` +
      `<text transform="translate(14 ${m.t + ih / 2}) rotate(-90)" text-anchor="middle" font-size="12" fill="${C.text}">${o.ylabel}</text>`;
    const clip = 'clip' + s.id;
    return `<figure class="plot ${o.cls}${o.wide ? ' wide' : ''}" data-y0="${y0}" data-y1="${y1}"><figcaption><h2>${o.title}</h2>${legend(o.legend)}${o.note || ''}</figcaption>` +
      `<svg viewBox="0 0 ${W} ${H}" role="img" aria-label="${esc(o.title.replace(/<[^>]*>/g, ''))}"><defs><clipPath id="${clip}"><rect x="${m.l}" y="${m.t}" width="${iw}" height="${ih}"/></clipPath>${o.defs ? o.defs(s) : ''}</defs>` +
      `${g}<g clip-path="url(#${clip})">${o.draw(s)}</g>${o.after ? o.after(s) : ''}</svg></figure>`;
  }

  // marks draws the observations as dots at (x(o), y(o)): red for a
  // violation (bad(o)), hollow grey when retracted. Up to TITLED of them are
  // circles with a title (a tooltip) each. More are drawn as one path per
  // kind, a dot per subpath — a zero-length segment with round caps, or a
  // ring of two arcs when hollow: thousands of SVG elements would take the
  // browser longer to lay out than the rest of the page.
  const TITLED = 300;
  function marks(obs, x, y, bad, r, label, value, halo) {
    const ring = halo ? ' stroke="#fff" stroke-width="0.8"' : '';
    const paint = {
      obs: `fill="${C.obs}"${ring}`, 'obs violation': `fill="${C.bad}"${ring}`,
      'obs retracted': `fill="#fff" stroke="${C.retracted}" stroke-width="1.2"`,
    };
    const kind = (o) => (o.retracted ? 'obs retracted' : bad(o) ? 'obs violation' : 'obs');
    if (obs.length <= TITLED) {
      return obs.map((o) => `<circle class="${kind(o)}" ${paint[kind(o)]} cx="${x(o)}" cy="${y(o)}" r="${r}"><title>#${o.k} (event ${o.seq})` +
        `${o.retracted ? ', retracted' : ''}: ${esc(label)} = ${fmt(value(o))} at ${o.params ? esc(JSON.stringify(o.params)) : 'x = ' + esc(point(o.x))}${o.context ? ' in context ' + esc(ctxText(o.context)) : ''}</title></circle>`).join('');
    }
    const d = { obs: [], 'obs violation': [], 'obs retracted': [] };
    for (const o of obs) {
      const k = kind(o);
      d[k].push(k === 'obs retracted' ? `M${r1(x(o) - r)} ${y(o)}a${r} ${r} 0 1 0 ${2 * r} 0a${r} ${r} 0 1 0 ${-2 * r} 0` : `M${x(o)} ${y(o)}h0`);
    }
    const dot = (k, color) => (halo ? `<path d="${d[k].join('')}" stroke="#fff" stroke-width="${2 * r + 1.6}" stroke-linecap="round"/>` : '') +
      `<path class="${k}" d="${d[k].join('')}" stroke="${color}" stroke-width="${2 * r}" stroke-linecap="round"/>`;
    return (d.obs.length ? dot('obs', C.obs) : '') + (d['obs violation'].length ? dot('obs violation', C.bad) : '') +
      (d['obs retracted'].length ? `<path class="obs retracted" ${paint['obs retracted']} d="${d['obs retracted'].join('')}"/>` : '');
  }
  // none says so in an empty plot.
  const none = (s, list, what = 'no observation yet') => (list.length ? '' : `<text x="${s.m.l + s.iw / 2}" y="${s.m.t + s.ih / 2}" text-anchor="middle" font-size="13" fill="${C.axis}">${what}</text>`);
  const radius = (n) => (n > 300 ? 2.2 : n > 60 ? 3 : 3.8);
  const hline = (s, y, cls, color) => `<line class="${cls}" x1="${s.m.l}" x2="${s.m.l + s.iw}" y1="${s.y(y)}" y2="${s.y(y)}" stroke="${color}" stroke-width="1.8" stroke-dasharray="6 3"/>`;

  // progress plots f (i = −1) or g_i of every observation against its
  // order, with the threshold as a dashed line.
  function progress(obs, s, i, hs) {
    const name = i < 0 ? 'f' : `g<sub>${i + 1}</sub>`, plain = i < 0 ? 'f' : `g${i + 1}`;
    const val = (o) => (i < 0 ? o.f : o.g[i]);
    const h = i < 0 ? s.objective_threshold : hs[i];
    const ys = inForce(obs, val);
    if (h != null) ys.push(h);
    const ydom = extent(ys);
    const r = radius(obs.length);
    return frame({
      cls: i < 0 ? 'progress progress-f' : 'progress progress-g',
      title: `${name} of each observation` + (h != null ? ` (threshold ${fmt(h)})` : ''),
      legend: [['obs', 'observation'], ['bad', i < 0 ? 'violation' : `${name} &lt; ${fmt(h)}`], ['retracted', 'retracted']].concat(h != null ? [['threshold', 'threshold']] : []),
      xlabel: 'observation (in the order told)', ylabel: plain,
      xdom: [0.5, Math.max(obs.length, 1) + 0.5], ydom, xticks: obs.length ? null : [],
      draw: (sc) => none(sc, obs) + (h != null ? hline(sc, h, 'threshold', C.threshold) : '') +
        marks(obs, (o) => sc.x(o.k), (o) => sc.y(pin(val(o), ydom)), i < 0 ? (o) => o.violation : (o) => o.g[i] < h, r, plain, val),
    });
  }

  // bestObserved is the observation in force with the highest f among
  // those without a violation, or null.
  function bestObserved(obs) {
    let top = null;
    for (const o of obs) if (!o.retracted && !o.violation && (!top || o.f > top.f)) top = o;
    return top;
  }

  // bestSoFar plots the best f among the safe observations in force
  // (no violation, not retracted) against the evaluations.
  function bestSoFar(obs) {
    let best = -Infinity;
    const pts = [];
    for (const o of obs) {
      if (!o.retracted && !o.violation && o.f > best) { best = o.f; pts.push([o.k, best]); }
    }
    const n = Math.max(obs.length, 1);
    return frame({
      cls: 'best', title: 'Best safe f so far' + (ctxNames ? ', over all contexts' : ''),
      legend: [['best', 'best f among safe observations']],
      xlabel: 'evaluations', ylabel: 'best f',
      xdom: [0.5, n + 0.5], ydom: extent(pts.map((q) => q[1])), xticks: obs.length ? null : [],
      draw: (s) => {
        if (!pts.length) return none(s, pts, obs.length ? 'no safe observation yet' : undefined);
        let d = `M${s.x(pts[0][0])} ${s.y(pts[0][1])}`;
        for (let j = 1; j < pts.length; j++) d += `H${s.x(pts[j][0])}V${s.y(pts[j][1])}`;
        d += `H${s.x(n + 0.5)}`;
        return `<path d="${d}" fill="none" stroke="${C.best}" stroke-width="2"/>` +
          pts.map((q) => `<circle class="best-step" cx="${s.x(q[0])}" cy="${s.y(q[1])}" r="3" fill="${C.best}"><title>evaluation ${q[0]}: f = ${fmt(q[1])}</title></circle>`).join('');
      },
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
    const lo = order.map((j) => post.mean[j] - p.sqrt_beta * post.std[j]);
    const hi = order.map((j) => post.mean[j] + p.sqrt_beta * post.std[j]);
    // The y axis follows the data — the mean and the observations in
    // force (and the threshold) — and clips the band, unless the whole
    // band is asked for (wholeBand): the band of √β ≈ 5 standard
    // deviations would squash the data flat.
    const ys = order.map((j) => post.mean[j]).concat(inForce(obs, val), wholeBand ? lo.concat(hi) : []);
    if (h != null) ys.push(h);
    const ydom = extent(ys);
    const [a, b] = extent(xs, 0.02);
    const r = radius(obs.length);
    return frame({
      cls: i < 0 ? 'posterior posterior-f' : 'posterior posterior-g',
      title: `Posterior of ${name} over the decision set (round ${p.round})${sel.where}`, note: shownNote(sel),
      legend: [['mean', 'mean'], ['band', '± √β·σ'], ['safe', 'safe set'], ['obs', 'observed'], ['bad', 'violation'], ['pending', 'pending'], ['seed', 'seed']]
        .concat(h != null ? [['threshold', 'threshold']] : []),
      xlabel: 'x', ylabel: plain, xdom: [a, b], ydom,
      draw: (sc) => {
        let out = safeRuns(sc, xs, order.map((j) => p.safe[j]), a, b) + bandMean(sc, xs, lo, hi, order.map((j) => post.mean[j]));
        if (h != null) out += hline(sc, h, 'threshold', C.threshold);
        for (const j of p.seed) out += `<rect class="seed" x="${sc.x(p.x[j][0]) - 4}" y="${sc.m.t + sc.ih - 10}" width="8" height="8" fill="none" stroke="${C.safeEdge}" stroke-width="1.5"><title>seed action ${j}</title></rect>`;
        for (const q of v.pending) out += `<line class="pending" x1="${sc.x(q.x[0])}" x2="${sc.x(q.x[0])}" y1="${sc.m.t}" y2="${sc.m.t + sc.ih}" stroke="${C.pending}" stroke-width="1.5" stroke-dasharray="3 3"/>` +
          `<path class="pending-mark" d="M${sc.x(q.x[0])} ${sc.m.t + 2}l5 5l-5 5l-5 -5Z" fill="${C.pending}"><title>pending ask ${q.ask}: x = ${fmt(q.x[0])}</title></path>`;
        const bad = (o) => (i < 0 ? o.violation : o.g[i] < h);
        return out + marks(obs, (o) => sc.x(o.x[0]), (o) => sc.y(pin(val(o), ydom)), bad, r, plain, val);
      },
    });
  }

  // Viridis (matplotlib's, sampled at 9 stops), for the heat map and the
  // parallel coordinates.
  const VIRIDIS = ['#440154', '#472d7b', '#3b528b', '#2c728e', '#21918c', '#28ae80', '#5ec962', '#addc30', '#fde725'];
  function viridis(t) {
    t = Math.min(1, Math.max(0, Number.isFinite(t) ? t : 0)) * (VIRIDIS.length - 1);
    const k = Math.min(Math.floor(t), VIRIDIS.length - 2), u = t - k;
    const c0 = parseInt(VIRIDIS[k].slice(1), 16), c1 = parseInt(VIRIDIS[k + 1].slice(1), 16);
    const ch = (sh) => Math.round(((c0 >> sh) & 255) * (1 - u) + ((c1 >> sh) & 255) * u);
    return '#' + ((1 << 24) | (ch(16) << 16) | (ch(8) << 8) | ch(0)).toString(16).slice(1);
  }
  const colorBar = (s, x, lo, hi, label) => {
    const id = 'vir' + s.id, top = s.m.t, hgt = s.ih;
    let out = `<defs><linearGradient id="${id}" x1="0" y1="1" x2="0" y2="0">` +
      VIRIDIS.map((c, k) => `<stop offset="${k / (VIRIDIS.length - 1)}" stop-color="${c}"/>`).join('') +
      `</linearGradient></defs><rect x="${x}" y="${top}" width="12" height="${hgt}" fill="url(#${id})" stroke="${C.axis}"/>`;
    for (const t of ticks(lo, hi, 5)) {
      const y = r1(top + hgt - ((t - lo) / (hi - lo || 1)) * hgt);
      out += `<line x1="${x + 12}" x2="${x + 15}" y1="${y}" y2="${y}" stroke="${C.axis}"/><text x="${x + 17}" y="${y}" dy="0.32em" font-size="10.5" fill="${C.text}">${fmt(t)}</text>`;
    }
    return out + `<text x="${x + 6}" y="${top - 7}" text-anchor="middle" font-size="11" fill="${C.text}">${label}</text>`;
  };

  // heatmap draws f's posterior mean over a 2-D decision set: cells on a
  // grid (one per action) when the actions form one, dots otherwise; the
  // unsafe actions hatched, the safe set's border drawn, and the
  // observations sel.obs (as posterior1D), seeds and pending asks marked.
  // heatmap draws one quantity qty over a 2-D decision set — by default
  // the posterior mean of f; also its σ and each g_i's mean (heatmapsOf)
  // — with the safe set outlined and the observations on top.
  function heatmap(p, sel, v, qty = { vals: p.f.mean, cls: 'heatmap', title: 'Posterior mean of f', bar: 'mean f' }) {
    const obs = sel.obs;
    const n = p.x.length;
    const uniq = (j) => [...new Set(p.x.map((x) => x[j]))].sort((a, b) => a - b);
    const ux = uniq(0), uy = uniq(1);
    const grid = ux.length * uy.length === n;
    const ix = new Map(ux.map((x, k) => [x, k])), iy = new Map(uy.map((y, k) => [y, k]));
    const at = new Int32Array(grid ? n : 0).fill(-1); // cell (kx, ky) → action
    if (grid) p.x.forEach((x, j) => { at[ix.get(x[0]) * uy.length + iy.get(x[1])] = j; });
    // Cell borders at the midpoints between grid values.
    const edges = (u) => u.map((_, k) => (k === 0 ? u[0] - (u[1] - u[0] || 1) / 2 : (u[k - 1] + u[k]) / 2)).concat([u[u.length - 1] + (u[u.length - 1] - u[u.length - 2] || 1) / 2]);
    const ex = grid ? edges(ux) : extent(ux, 0.03), ey = grid ? edges(uy) : extent(uy, 0.03);
    const [mlo, mhi] = extent(qty.vals, 0);
    const levels = 64;
    const level = (m) => Math.min(levels - 1, Math.floor(((m - mlo) / (mhi - mlo || 1)) * levels));
    const r = radius(obs.length) + 0.6;
    return frame({
      cls: 'posterior ' + qty.cls, w: 600, h: 450, right: 74, top: 20,
      title: `${qty.title} over the decision set (round ${p.round})${sel.where}`, note: shownNote(sel),
      legend: [['safe', 'safe set'], ['unsafe', 'not safe'], ['obs', 'observation'], ['bad', 'violation'], ['pendingRing', 'pending ask'], ['seed', 'seed']],
      xlabel: 'x<tspan font-size="9" dy="3">1</tspan>', ylabel: 'x<tspan font-size="9" dy="3">2</tspan>',
      xdom: [ex[0], ex[ex.length - 1]], ydom: [ey[0], ey[ey.length - 1]],
      defs: (sc) => `<pattern id="hatch${sc.id}" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#fff" fill-opacity="0.35"/><line x1="0" y1="0" x2="0" y2="6" stroke="#fff" stroke-width="2"/></pattern>`,
      draw: (sc) => {
        let out = '';
        if (grid) {
          // One path per colour level, not one element per cell.
          const paths = Array.from({ length: levels }, () => []);
          const unsafe = [];
          let border = '';
          for (let kx = 0; kx < ux.length; kx++) {
            const x0 = sc.x(ex[kx]), x1 = sc.x(ex[kx + 1]);
            for (let ky = 0; ky < uy.length; ky++) {
              const j = at[kx * uy.length + ky];
              const y0 = sc.y(ey[ky + 1]), y1 = sc.y(ey[ky]);
              const cell = `M${x0} ${y0}H${x1}V${y1}H${x0}Z`;
              paths[level(qty.vals[j])].push(cell);
              if (!p.safe[j]) { unsafe.push(cell); continue; }
              const safeAt = (a, b) => a >= 0 && b >= 0 && a < ux.length && b < uy.length && p.safe[at[a * uy.length + b]];
              if (!safeAt(kx - 1, ky)) border += `M${x0} ${y0}V${y1}`;
              if (!safeAt(kx + 1, ky)) border += `M${x1} ${y0}V${y1}`;
              if (!safeAt(kx, ky - 1)) border += `M${x0} ${y1}H${x1}`;
              if (!safeAt(kx, ky + 1)) border += `M${x0} ${y0}H${x1}`;
            }
          }
          out += paths.map((cells, k) => (cells.length ? `<path class="cells" d="${cells.join('')}" fill="${viridis((k + 0.5) / levels)}" stroke="${viridis((k + 0.5) / levels)}" stroke-width="0.5"/>` : '')).join('');
          if (unsafe.length) out += `<path class="unsafe" d="${unsafe.join('')}" fill="url(#hatch${sc.id})"/>`;
          if (border) out += `<path class="safe-outline" d="${border}" fill="none" stroke="#fff" stroke-width="4"/><path class="safe-outline" d="${border}" fill="none" stroke="${C.safeEdge}" stroke-width="2"/>`;
        } else {
          out += p.x.map((x, j) => `<circle class="cell" cx="${sc.x(x[0])}" cy="${sc.y(x[1])}" r="4" fill="${viridis((qty.vals[j] - mlo) / (mhi - mlo || 1))}"` +
            (p.safe[j] ? ` stroke="${C.safeEdge}" stroke-width="1.5"` : ' fill-opacity="0.45"') + '/>').join('');
        }
        for (const j of p.seed) {
          const x = sc.x(p.x[j][0]) - 5, y = sc.y(p.x[j][1]) - 5;
          out += `<rect x="${x}" y="${y}" width="10" height="10" fill="none" stroke="#fff" stroke-width="4"/><rect class="seed" x="${x}" y="${y}" width="10" height="10" fill="none" stroke="${C.safeEdge}" stroke-width="2"><title>seed action ${j}</title></rect>`;
        }
        // The pending asks as hollow diamonds around their actions, under
        // the observations: an ask often goes to an action observed
        // already (a seed, early on), whose marks must stay in sight.
        for (const q of v.pending) {
          const x = sc.x(q.x[0]), y = sc.y(q.x[1]), d = `M${x} ${y - 8}l8 8l-8 8l-8 -8Z`;
          out += `<path d="${d}" fill="none" stroke="#fff" stroke-width="4"/><path class="pending-mark" d="${d}" fill="none" stroke="${C.pending}" stroke-width="2"><title>pending ask ${q.ask}: x = ${esc(point(q.x))}</title></path>`;
        }
        return out + marks(obs, (o) => sc.x(o.x[0]), (o) => sc.y(o.x[1]), (o) => o.violation, r, 'f', (o) => o.f, true);
      },
      after: (sc) => colorBar(sc, sc.m.l + sc.iw + 12, mlo, mhi, qty.bar),
    });
  }
  // safeRuns shades the runs of safe points of a 1-D curve (xs
  // increasing, safe[k] for xs[k]), each out to the midpoints with its
  // neighbours, [a, b] the x range.
  function safeRuns(sc, xs, safe, a, b) {
    let out = '';
    const edge = (k) => (k <= 0 ? a : k >= xs.length ? b : (xs[k - 1] + xs[k]) / 2);
    for (let k = 0; k < xs.length; k++) {
      if (!safe[k]) continue;
      let e = k;
      while (e + 1 < xs.length && safe[e + 1]) e++;
      const x0 = sc.x(edge(k)), x1 = sc.x(edge(e + 1));
      out += `<rect class="safe-set" x="${x0}" y="${sc.m.t}" width="${r1(Math.max(x1 - x0, 1))}" height="${sc.ih}" fill="${C.safe}"/>`;
      k = e;
    }
    return out;
  }

  // bandMean draws a posterior over xs: the band from lo to hi, the mean
  // on it.
  function bandMean(sc, xs, lo, hi, mean) {
    let band = '', line = '';
    xs.forEach((x, k) => { band += (k ? 'L' : 'M') + sc.x(x) + ' ' + sc.y(hi[k]); line += (k ? 'L' : 'M') + sc.x(x) + ' ' + sc.y(mean[k]); });
    for (let k = xs.length - 1; k >= 0; k--) band += 'L' + sc.x(xs[k]) + ' ' + sc.y(lo[k]);
    return `<path class="band" d="${band}Z" fill="${C.band}" fill-opacity="0.75"/><path class="mean" d="${line}" fill="none" stroke="${C.f}" stroke-width="2"/>`;
  }

  // slicesOf draws, for a box or a set of dimension above 2, the posterior
  // of f along each coordinate through the best safe point (v.slices,
  // computed by the server): the mean, its ±√β·σ band, where every
  // limit's lower confidence bound holds shaded as the safe set is in 1-D,
  // and the point itself as a dashed line.
  function slicesOf(v) {
    const sl = v.slices;
    if (!sl) return '';
    const obj = v.summary.objective; // a study stated in parameters'
    return sl.dims.map((d) => {
      const sb = sl.sqrt_beta;
      const lo = d.f.mean.map((m, k) => m - sb * d.f.std[k]), hi = d.f.mean.map((m, k) => m + sb * d.f.std[k]);
      const [a, b] = extent(d.x, 0.02);
      const xname = d.name != null ? named(d.name) : `x<tspan font-size="9" dy="3">${d.dim + 1}</tspan>`;
      const fname = obj ? named(obj.name) : 'f';
      const atX = d.name != null ? sl.at_params[d.name] : sl.at[d.dim];
      const where = d.name != null ? `the best safe trial (${esc(setting(sl.at_params, Object.keys(sl.at_params)))})` : `the best safe point ${esc(point(sl.at))}`;
      return frame({
        cls: 'slice', w: 420, h: 240,
        title: `${obj ? esc(obj.name) : 'f'} along ${d.name != null ? esc(d.name) : `x<sub>${d.dim + 1}</sub>`} through ${where}`,
        legend: [['mean', 'mean'], ['band', '± √β·σ'], ['safe', 'every limit within its confidence bound']],
        xlabel: xname, ylabel: fname, xdom: [a, b], ydom: extent(lo.concat(hi)),
        draw: (sc) => {
          const xa = sc.x(atX);
          return safeRuns(sc, d.x, d.safe, a, b) + bandMean(sc, d.x, lo, hi, d.f.mean) +
            `<line class="at" x1="${xa}" x2="${xa}" y1="${sc.m.t}" y2="${sc.m.t + sc.ih}" stroke="${C.best}" stroke-width="1.5" stroke-dasharray="4 3"><title>${d.name != null ? esc(d.name) : 'x' + (d.dim + 1)} = ${fmt(atX)}</title></line>`;
        },
      });
    }).join('');
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


  // parallel draws every observation as a line through one axis per
  // coordinate (the box's bounds) and one for f, coloured by f; violations
  // red, retracted grey and dashed.
  function parallel(obs, s) {
    const d = s.d;
    const doms = [];
    for (let j = 0; j < d; j++) doms.push(s.box ? s.box[j] : extent(obs.map((o) => o.x[j]), 0));
    const [flo, fhi] = extent(obs.map((o) => o.f), 0);
    doms.push([flo, fhi]);
    const names = doms.map((_, j) => (j < d ? `x${j + 1}` : 'f'));
    const W = 1000, H = 320, m = { l: 40, r: 40, t: 28, b: 26 };
    const ax = (j) => r1(m.l + (j / d) * (W - m.l - m.r));
    const ay = (j, v) => r1(m.t + (H - m.t - m.b) * (1 - (v - doms[j][0]) / (doms[j][1] - doms[j][0] || 1)));
    // Values at the right of an axis, at its left for the last one.
    const side = (j) => (j < d ? `x="${ax(j) + 4}"` : `x="${ax(j) - 4}" text-anchor="end"`);
    const line = (o) => {
      const pts = o.x.map((v, j) => ax(j) + ',' + ay(j, v)).concat([ax(d) + ',' + ay(d, o.f)]).join(' ');
      const cls = o.retracted ? 'pc-line retracted' : o.violation ? 'pc-line violation' : 'pc-line';
      const paint = o.retracted ? `stroke="${C.retracted}" stroke-dasharray="3 3"` : o.violation ? `stroke="${C.bad}" stroke-width="1.6"` : `stroke="${viridis((o.f - flo) / (fhi - flo || 1))}"`;
      return `<polyline class="${cls}" points="${pts}" fill="none" ${paint} stroke-opacity="0.8"><title>#${o.k}: f = ${fmt(o.f)} at x = ${esc(point(o.x))}</title></polyline>`;
    };
    // Violations and retractions over the rest, so that they show.
    const order = obs.filter((o) => !o.retracted && !o.violation).concat(obs.filter((o) => o.retracted), obs.filter((o) => !o.retracted && o.violation));
    let svg = order.map(line).join('');
    doms.forEach((dm, j) => {
      const x = ax(j);
      svg += `<line x1="${x}" x2="${x}" y1="${m.t}" y2="${H - m.b}" stroke="${C.axis}" stroke-width="1.2"/>` +
        `<text x="${x}" y="${m.t - 10}" text-anchor="middle" font-size="12" font-weight="600" fill="${C.text}">${names[j]}</text>` +
        `<text ${side(j)} y="${m.t + 4}" font-size="10.5" fill="${C.text}">${fmt(dm[1])}</text>` +
        `<text ${side(j)} y="${H - m.b}" font-size="10.5" fill="${C.text}">${fmt(dm[0])}</text>`;
    });
    return `<figure class="plot parallel wide"><figcaption><h2>Observations in parallel coordinates</h2>` +
      legend([['byF', 'coloured by f, low to high'], ['bad', 'violation'], ['retracted', 'retracted']]) +
      `</figcaption><svg viewBox="0 0 ${W} ${H}" role="img" aria-label="Observations in parallel coordinates"><title>Observations in parallel coordinates</title>${svg}</svg></figure>`;
  }

  // ---- start ----

  takeToken();
  // The first answer is asked for at once; its failure is handled when
  // refresh awaits it, so it is caught here to not count as unhandled.
  const early = api(dataURL(route()));
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
