// Dispatch from the console (docs/gaps.md#console "Dispatch"): open a work order where the map is
// clicked, cancel it, offer its next wave, make the assignment of an accepted offer; the work orders
// and their cascades arrive on the supply socket (supply-map.js), so what an action changes is
// shown as the feed pushes it. A worker's card (presence, gates, last readings, offers,
// assignments), assignments followed to their proof, exceptions raised: read over HTTP when a person
// opens them.
import { act, esc, fromLocalInput, idTag, localInput, newIdempotencyKey } from '/console/api.js';
import { CASCADE_COUNTS, GEOFENCE } from '/console/supply-map.js';

const enc = encodeURIComponent;

export class Dispatch {
  constructor(api, els, supply) {
    this.api = api;
    this.els = els;
    this.supply = supply;
    /** The last answer to each action (`op id`), shown again when the feed redraws its list. */
    this.results = new Map();
    const f = els.form;
    f.onsubmit = (e) => {
      e.preventDefault();
      this.open();
    };
    f.querySelector('[data-action=close]').onclick = () => (f.hidden = true);
    // one listener per element, replaced at each sign-in: actions of the lists, by data attributes
    els.list.onclick = (e) => this.onListClick(e);
    els.card.onclick = (e) => this.onListClick(e);
    els.assignments.onclick = (e) => this.onListClick(e);
  }

  /** A click on the map away from any record: the form to open a work order there. */
  pick(lngLat) {
    const f = this.els.form;
    f.hidden = false;
    f.elements.latitude.value = lngLat.lat.toFixed(6);
    f.elements.longitude.value = lngLat.lng.toFixed(6);
    if (!f.elements.starts_at.value) {
      f.elements.starts_at.value = localInput(Date.now());
      f.elements.ends_at.value = localInput(Date.now() + 4 * 3_600_000);
    }
    f.querySelector('[data-role=result]').textContent = '';
    f.elements.radius_metres.focus();
  }

  async open() {
    const f = this.els.form;
    const v = (k) => f.elements[k].value.trim();
    const body = {
      location: { latitude: Number(v('latitude')), longitude: Number(v('longitude')), radius_metres: Number(v('radius_metres')) },
      window: { starts_at: fromLocalInput(v('starts_at')), ends_at: fromLocalInput(v('ends_at')) },
      headcount: Number(v('headcount')),
    };
    if (v('search_radius_metres')) body.search_radius_metres = Number(v('search_radius_metres'));
    if (v('occupation_code')) body.occupation_code = v('occupation_code');
    const claims = v('claim_codes').split(/[\s,]+/).filter(Boolean);
    if (claims.length) body.claim_codes = claims;
    if (v('cascade_width')) body.cascade_width = Number(v('cascade_width'));
    if (v('offer_timeout_seconds')) body.offer_timeout_seconds = Number(v('offer_timeout_seconds'));
    await act(f, async (ik) => {
      const wo = await this.api.post('/v1/allocation/work_orders', body, ik);
      f.dataset.opened = wo.id;
      return `Opened ${wo.id}: ${wo.status}${wo.supply_gap ? ` (supply gap: ${wo.supply_gap.reason})` : ''}.`;
    });
  }

  async onListClick(e) {
    const b = e.target.closest('button');
    if (!b) return;
    const d = b.dataset;
    if (d.card) return this.card(d.card);
    if (d.locate) return this.supply.locateWorker(d.locate);
    if (d.at) {
      const [lat, lng] = d.at.split(',').map(Number);
      return this.supply.locate(lat, lng);
    }
    if (d.proof) return this.proof(d.proof, b.closest('[data-assignment]'));
    const card = b.closest('[data-work-order], [data-offer-row], [data-assignment]');
    const out = card?.querySelector('[data-role=result]');
    if (!out) return;
    b.dataset.ik ??= newIdempotencyKey(d.op ?? 'dispatch');
    b.disabled = true;
    try {
      const reason = card.querySelector('input[name=reason]')?.value.trim();
      let r;
      if (d.op === 'cancel' || d.op === 'offer') r = await this.api.post(`/v1/allocation/work_orders/${enc(d.id)}/${d.op}`, reason ? { reason } : undefined, b.dataset.ik);
      else if (d.op === 'assign') r = await this.api.post('/v1/allocation/assignments', { offer_id: d.id }, b.dataset.ik);
      else if (d.op === 'raise_exception') r = await this.api.post(`/v1/allocation/assignments/${enc(d.id)}/raise_exception`, { reason: reason ?? '' }, b.dataset.ik);
      delete b.dataset.ik;
      out.className = 'ok';
      out.textContent = d.op === 'assign' ? `Assignment ${r.id} made; passcodes (shown once): start ${r.passcodes?.start}, completion ${r.passcodes?.completion}.` : `Done: ${r.status ?? 'sent'}.`;
      if (d.op === 'assign' || d.op === 'raise_exception') this.assignments();
    } catch (x) {
      if (x.status !== undefined) delete b.dataset.ik;
      out.className = 'error';
      out.textContent = x.code ? `${x.message} (${x.code})` : `Not sent: ${x.message}`;
    } finally {
      b.disabled = false;
      this.results.set(`${d.op} ${d.id}`, { className: out.className, text: out.textContent });
    }
  }

  /** The open work orders and supply gaps the feed holds, with their cascades and actions. */
  render() {
    const m = this.supply;
    const el = this.els.list;
    if (m.workOrdersServed === undefined) return;
    // typed reasons survive a redraw pushed by the feed
    const typed = new Map([...el.querySelectorAll('input[name=reason]')].map((i) => [i.closest('[data-work-order]')?.dataset.workOrder, i.value]));
    const where = (wo) => `geofence ${esc(wo.location.radius_metres)} m around <button class="link" data-at="${wo.location.latitude},${wo.location.longitude}" title="show on the map">${esc(wo.location.latitude.toFixed(5))}, ${esc(wo.location.longitude.toFixed(5))}</button>`;
    const offersOf = (wo) => {
      const list = m.offers.get(wo.id);
      if (!list || !list.length) return '<p class="muted">no offers</p>';
      return `<table class="compact offers"><thead><tr><th>offered to</th><th>rank</th><th>status</th><th></th></tr></thead><tbody>${list.map((o) => `<tr data-offer="${esc(o.id)}" data-offer-row data-status="${esc(o.status)}" title="${esc(o.id)}"><td><button class="link" data-card="${esc(o.worker_id)}">${esc(o.worker_id)}</button></td><td>${esc(o.rank)}</td><td>${esc(o.status)}${o.reason ? ` <span class="muted">(${esc(o.reason)})</span>` : ''}</td><td>${o.status === 'accepted' ? `<button data-op="assign" data-needs="match:write" data-id="${esc(o.id)}">Make assignment</button> <span data-role="result"></span>` : ''}</td></tr>`).join('')}</tbody></table>`;
    };
    const openHtml = m.workOrders.map((wo) => `
      <div class="wo" data-work-order="${esc(wo.id)}" data-status="${esc(wo.status)}" data-geofence-radius="${esc(wo.location.radius_metres)}">
        <div><span class="swatch ring" style="border-color:${GEOFENCE.open.color}"></span> <b>${idTag(wo.id)}</b></div>
        <div class="muted">${where(wo)}; ${esc(wo.accepted_count)}/${esc(wo.headcount)} accepted; window to ${esc(wo.window?.ends_at)}</div>
        <div class="cascade">cascade: ${CASCADE_COUNTS.map((k) => `<span data-cascade="${k}">${k} ${esc(wo.cascade?.[k] ?? 0)}</span>`).join(', ')}</div>
        ${offersOf(wo)}
        <div class="actions" data-needs="match:write"><input name="reason" placeholder="reason (optional)" value="${esc(typed.get(wo.id) ?? '')}"> <button data-op="offer" data-id="${esc(wo.id)}">Offer next wave</button> <button data-op="cancel" data-id="${esc(wo.id)}">Cancel</button> <span data-role="result"></span></div>
      </div>`).join('');
    const gapHtml = m.gaps.map((wo) => `
      <div class="wo gap" data-supply-gap="${esc(wo.id)}" data-reason="${esc(wo.supply_gap?.reason ?? wo.closed_reason)}">
        <div><span class="swatch ring" style="border-color:${GEOFENCE.gap.color}"></span> <b>${idTag(wo.id)}</b></div>
        <div>supply gap: <b data-field="reason">${esc(wo.supply_gap?.reason ?? wo.closed_reason)}</b></div>
        <div class="muted">${where(wo)}; ${esc(wo.accepted_count)}/${esc(wo.headcount)} accepted; closed ${esc(wo.closed_at)}; cascade: ${CASCADE_COUNTS.map((k) => `${k} ${esc(wo.cascade?.[k] ?? 0)}`).join(', ')}</div>
      </div>`).join('');
    const closedHtml = (m.closed ?? []).map((wo) => `
      <div class="wo closed" data-work-order="${esc(wo.id)}" data-status="${esc(wo.status)}">
        <div><b>${idTag(wo.id)}</b> ${esc(wo.status)}${wo.closed_reason ? ` (${esc(wo.closed_reason)})` : ''}; ${esc(wo.accepted_count)}/${esc(wo.headcount)} accepted</div>
        <div class="muted">${where(wo)}</div>
        ${offersOf(wo)}
      </div>`).join('');
    el.innerHTML = `<p data-testid="work-order-count">${m.workOrders.length}${m.workOrdersMore ? '+' : ''} open work order(s), ${m.gaps.length} recent supply gap(s). Click the map to open one there.</p>`
      + (openHtml || '<p class="muted">No open work orders.</p>')
      + (m.gaps.length ? `<h3>Supply gaps</h3>${gapHtml}` : '')
      + (closedHtml ? `<h3>Filled and cancelled</h3>${closedHtml}` : '');
    this.restoreResults(el);
  }

  restoreResults(el) {
    for (const b of el.querySelectorAll('button[data-op]')) {
      const r = this.results.get(`${b.dataset.op} ${b.dataset.id}`);
      const out = b.closest('td, .actions')?.querySelector('[data-role=result]');
      if (r && out) Object.assign(out, { className: r.className, textContent: r.text });
    }
  }

  /** A worker's card: availability, presence and supply gates, last position, current offers and assignments. */
  async card(workerId) {
    const el = this.els.card;
    el.hidden = false;
    el.dataset.worker = workerId;
    el.innerHTML = `<h3>Worker ${esc(workerId)}</h3><p class="muted">Reading...</p>`;
    const w = enc(workerId);
    const [avail, offers, assignments, readings] = await Promise.allSettled([
      this.api.get(`/v1/allocation/availability/${w}`),
      this.api.get(`/v1/allocation/offers?worker_id=${w}&status=pending&limit=20`),
      this.api.get(`/v1/allocation/assignments?worker_id=${w}&limit=20`),
      this.api.get(`/v1/allocation/heartbeats?worker_id=${w}&limit=5`),
    ]);
    if (el.dataset.worker !== workerId) return;
    const seen = this.supply.workers.get(workerId);
    const a = avail.status === 'fulfilled' ? avail.value : undefined;
    const gate = a?.supply?.excluded_because ? [].concat(a.supply.excluded_because).join(', ') : 'none: in supply';
    el.innerHTML = `<h3>Worker ${esc(workerId)} <button class="link" data-locate="${esc(workerId)}">show on the map</button></h3>
      ${a ? `<table class="compact"><tbody>
        <tr><th>availability</th><td data-field="availability">${esc(a.availability)}${a.on_assignment ? ' (on an assignment)' : ''}</td></tr>
        <tr><th>presence</th><td data-field="presence">${esc(a.presence)}</td></tr>
        <tr><th>gates</th><td data-field="gates">${esc(a.supply?.in_map ? 'in the supply map' : 'out of the supply map')}; held out by: ${esc(gate)}</td></tr>
        <tr><th>last position</th><td data-field="position">${seen?.latitude != null ? `${esc(seen.latitude.toFixed(5))}, ${esc(seen.longitude.toFixed(5))} (cell ${esc(seen.cell ?? seen.lastCell ?? '')})` : 'no reading yet'}</td></tr>
      </tbody></table>` : `<p class="error">${esc(avail.reason?.message)}</p>`}
      <h4>Last readings</h4>${readings.status === 'fulfilled' && readings.value.data.length ? `<table class="compact" data-role="readings"><thead><tr><th>recorded</th><th>position</th><th>battery</th><th>connectivity</th><th>signals</th></tr></thead><tbody>${readings.value.data.map((r) => `<tr><td>${esc(r.recorded_at)}</td><td>${r.position ? `${esc(r.position.latitude.toFixed(5))}, ${esc(r.position.longitude.toFixed(5))} ±${esc(r.position.accuracy_metres)} m` : '-'}</td><td>${esc(r.battery_percent ?? '-')}%</td><td>${esc(r.connectivity)}</td><td>${r.mock_location_detected ? 'mock location' : ''}${r.device_integrity_attested === false ? ' not attested' : ''}</td></tr>`).join('')}</tbody></table>` : '<p class="muted">none in the last six hours</p>'}
      <h4>Pending offers</h4>${offers.status === 'fulfilled' && offers.value.data.length ? `<ul>${offers.value.data.map((o) => `<li data-offer="${esc(o.id)}">${idTag(o.id)} for ${idTag(o.work_order_id)}, expires ${esc(o.expires_at)}</li>`).join('')}</ul>` : '<p class="muted">none</p>'}
      <h4>Assignments</h4>${assignments.status === 'fulfilled' && assignments.value.data.length ? this.assignmentRows(assignments.value.data) : '<p class="muted">none</p>'}`;
  }

  assignmentRows(list) {
    return `<table class="compact"><thead><tr><th>assignment</th><th>worker</th><th>status</th><th></th></tr></thead><tbody>${list.map((x) => `<tr data-assignment="${esc(x.id)}" data-status="${esc(x.status)}"><td>${idTag(x.id)}<br><span class="muted">${idTag(x.work_order_id)}</span>${x.geofence ? ` <button class="link" data-at="${x.geofence.latitude},${x.geofence.longitude}" title="the site on the map">site</button>` : ''}</td><td><button class="link" data-card="${esc(x.worker_id)}">${esc(x.worker_id)}</button></td><td>${esc(x.status)}${x.exception_id ? `<br><span class="muted">exception ${idTag(x.exception_id)}</span>` : ''}</td><td><button data-proof="${esc(x.id)}">Proof</button> <span data-needs="match:write"><input name="reason" placeholder="exception reason"> <button data-op="raise_exception" data-id="${esc(x.id)}">Raise exception</button></span> <span data-role="result"></span><div data-role="proof"></div></td></tr>`).join('')}</tbody></table>`;
  }

  /** The organisation's assignments, newest first, each followed to its proof. */
  async assignments() {
    const el = this.els.assignments;
    try {
      const page = await this.api.get('/v1/allocation/assignments?limit=50');
      el.innerHTML = page.data.length ? this.assignmentRows(page.data) : '<p class="muted">No assignments yet.</p>';
      this.restoreResults(el);
    } catch (e) {
      el.innerHTML = `<p class="error">${esc(e.message)}</p>`;
    }
  }

  async proof(id, row) {
    const out = row?.querySelector('[data-role=proof]');
    if (!out) return;
    try {
      const p = await this.api.get(`/v1/allocation/assignments/${enc(id)}/proof`);
      out.innerHTML = `<pre class="proof">${esc(JSON.stringify(p, null, 2))}</pre>`;
    } catch (e) {
      out.innerHTML = `<span class="error">${esc(e.message)} (${esc(e.code)})</span>`;
    }
  }
}

