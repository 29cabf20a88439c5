// The supply map: the organisation's workers as H3 cells over a MapLibre map, coloured by
// availability and presence. Every figure is read from the public API:
//   GET /v1/allocation/supply                      eligible workers near the centre, with positions
//   GET /v1/allocation/events?starting_after=...   what changed (availability, presence, flags)
//   GET /v1/allocation/availability/{worker_id}    a changed worker's availability, presence, supply state and cell
//   GET /v1/allocation/work_orders?status=open     open work orders: geofence (location.radius_metres) and cascade counts
//   GET /v1/allocation/work_orders/{id}/offers     each drawn work order's offers (worker, status, rank)
//   GET /v1/allocation/work_orders?status=unfilled recent supply gaps with supply_gap.reason
// Live by polling (every POLL_MS): the platform's WebSocket carries device heartbeats only and a
// browser cannot send its credential header on an upgrade (docs/gaps.md#console).
import * as maplibregl from '/console/maplibre-gl.mjs';
import { cellToBoundary, getResolution, latLngToCell } from '/console/h3-js.es.js';
import { esc } from '/console/api.js';

export const POLL_MS = 2000;
const REFRESH_PER_TICK = 50;
const EVENT_PAGES_PER_TICK = 20;
const WORK_ORDER_PROBE_MS = 30_000;
/** Open work orders read per tick (newest first) and, of those, whose offers are read. */
const WORK_ORDERS_PER_TICK = 100;
const OFFERS_PER_TICK = 20;
const GAPS_PER_TICK = 25;
/** The cascade counts of a work order's `cascade`, in the order shown. */
export const CASCADE_COUNTS = ['offered', 'pending', 'accepted', 'declined', 'expired', 'withdrawn'];
export const GEOFENCE = { open: { label: 'open work order: geofence', color: '#1f6fd1' }, gap: { label: 'supply gap (closed unfilled): geofence', color: '#d2363a' } };

/** A circle of `metres` around a point as a closed ring of [lng, lat] (spherical offsets). */
export function circle(latitude, longitude, metres, steps = 64) {
  const R = 6_371_000;
  const d = metres / R;
  const lat1 = (latitude * Math.PI) / 180;
  const lng1 = (longitude * Math.PI) / 180;
  const ring = [];
  for (let i = 0; i <= steps; i++) {
    const b = (2 * Math.PI * (i % steps)) / steps;
    const lat2 = Math.asin(Math.sin(lat1) * Math.cos(d) + Math.cos(lat1) * Math.sin(d) * Math.cos(b));
    const lng2 = lng1 + Math.atan2(Math.sin(b) * Math.sin(d) * Math.cos(lat1), Math.cos(d) - Math.sin(lat1) * Math.sin(lat2));
    ring.push([(lng2 * 180) / Math.PI, (lat2 * 180) / Math.PI]);
  }
  return ring;
}

/** Display categories, from the API's own fields (availability, presence, supply.in_map). */
export const CATEGORIES = [
  { id: 'available', label: 'available, reporting, in supply', color: '#2e9d48' },
  { id: 'stale', label: 'available, stale', color: '#e0a21b' },
  { id: 'ghost', label: 'available, ghost', color: '#7b4bb7' },
  { id: 'excluded', label: 'held out of supply (see excluded_because)', color: '#d2363a' },
  { id: 'unavailable', label: 'unavailable', color: '#7d8793' },
];
const colorOf = Object.fromEntries(CATEGORIES.map((c) => [c.id, c.color]));

function categoryOf(w) {
  if (w.availability && w.availability !== 'available') return 'unavailable';
  if (w.presence === 'ghost') return 'ghost';
  if (w.presence === 'stale') return 'stale';
  if (w.in_map === false) return 'excluded';
  return 'available';
}

export class SupplyMap {
  constructor(api, els) {
    this.api = api;
    this.els = els;
    this.workers = new Map();
    this.pending = new Set();
    this.cursor = undefined;
    this.resolution = 9;
    this.timer = undefined;
    this.workOrdersCheckedAt = -Infinity;
    this.workOrdersServed = undefined;
    this.workOrders = [];
    this.gaps = [];
    this.offers = new Map();
    this.settings = this.loadSettings();
    this.ticks = 0;
  }

  loadSettings() {
    const saved = JSON.parse(localStorage.getItem('console.map') ?? '{}');
    const q = new URLSearchParams(location.search);
    return {
      latitude: Number(q.get('latitude') ?? saved.latitude ?? 6.5244),
      longitude: Number(q.get('longitude') ?? saved.longitude ?? 3.3792),
      radius: Number(q.get('radius') ?? saved.radius ?? 20000),
      tiles: q.get('tiles') ?? saved.tiles ?? '',
    };
  }

  style() {
    const layers = [{ id: 'background', type: 'background', paint: { 'background-color': '#e8edf1' } }];
    const sources = {};
    if (this.settings.tiles) {
      sources.tiles = { type: 'raster', tiles: [this.settings.tiles], tileSize: 256, attribution: 'tiles: operator-configured' };
      layers.push({ id: 'tiles', type: 'raster', source: 'tiles' });
    }
    return { version: 8, sources, layers };
  }

  start() {
    const f = this.els.settings;
    for (const k of ['latitude', 'longitude', 'radius', 'tiles']) f.elements[k].value = this.settings[k];
    f.addEventListener('submit', (e) => {
      e.preventDefault();
      this.settings = { latitude: Number(f.elements.latitude.value), longitude: Number(f.elements.longitude.value), radius: Number(f.elements.radius.value), tiles: f.elements.tiles.value.trim() };
      localStorage.setItem('console.map', JSON.stringify(this.settings));
      this.map?.setStyle(this.style());
      this.map?.once('styledata', () => this.addLayers());
      this.map?.jumpTo({ center: [this.settings.longitude, this.settings.latitude] });
      this.tick();
    });
    this.els.legend.innerHTML = CATEGORIES.map((c) => `<li><span class="swatch" style="background:${c.color}"></span>${esc(c.label)}</li>`).join('')
      + Object.values(GEOFENCE).map((g) => `<li><span class="swatch ring" style="border-color:${g.color}"></span>${esc(g.label)}</li>`).join('');
    this.els.mapBox.dataset.mapState = 'loading';
    try {
      this.map = new maplibregl.Map({ container: this.els.mapBox, style: this.style(), center: [this.settings.longitude, this.settings.latitude], zoom: 11, attributionControl: { compact: true } });
      this.map.addControl(new maplibregl.NavigationControl({ showCompass: false }));
      this.map.on('load', () => {
        this.addLayers();
        this.els.mapBox.dataset.mapState = 'ready';
        this.draw();
      });
      this.map.on('error', (e) => console.warn('map:', e?.error?.message ?? e));
      this.map.on('click', 'cells', (e) => {
        const p = e.features?.[0]?.properties;
        if (p) new maplibregl.Popup().setLngLat(e.lngLat).setHTML(`<b>${esc(p.cell)}</b><br>${esc(p.summary)}`).addTo(this.map);
      });
      this.map.on('click', 'geofences', (e) => {
        const p = e.features?.[0]?.properties;
        if (p) new maplibregl.Popup().setLngLat(e.lngLat).setHTML(`<b>${esc(p.id)}</b><br>${esc(p.summary)}`).addTo(this.map);
      });
    } catch (e) {
      this.els.mapBox.dataset.mapState = 'failed';
      this.els.mapBox.textContent = `The map could not start (it needs WebGL): ${e.message}. The worker table still updates.`;
    }
    this.tick();
  }

  stop() {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.stopped = true;
    this.map?.remove();
  }

  addLayers() {
    if (!this.map.getSource('cells')) this.map.addSource('cells', { type: 'geojson', data: { type: 'FeatureCollection', features: [] } });
    if (!this.map.getLayer('cells')) {
      this.map.addLayer({ id: 'cells', type: 'fill', source: 'cells', paint: { 'fill-color': ['get', 'color'], 'fill-opacity': 0.6 } });
      this.map.addLayer({ id: 'cells-outline', type: 'line', source: 'cells', paint: { 'line-color': ['get', 'color'], 'line-width': 1.5 } });
    }
    if (!this.map.getSource('geofences')) this.map.addSource('geofences', { type: 'geojson', data: { type: 'FeatureCollection', features: [] } });
    if (!this.map.getLayer('geofences')) {
      this.map.addLayer({ id: 'geofences', type: 'fill', source: 'geofences', paint: { 'fill-color': ['get', 'color'], 'fill-opacity': 0.12 } });
      this.map.addLayer({ id: 'geofences-open', type: 'line', source: 'geofences', filter: ['==', ['get', 'kind'], 'open'], paint: { 'line-color': GEOFENCE.open.color, 'line-width': 2 } });
      this.map.addLayer({ id: 'geofences-gap', type: 'line', source: 'geofences', filter: ['==', ['get', 'kind'], 'gap'], paint: { 'line-color': GEOFENCE.gap.color, 'line-width': 2, 'line-dasharray': [2, 2] } });
    }
    this.draw();
  }

  async tick() {
    clearTimeout(this.timer);
    try {
      await this.readSupply();
      await this.readEvents();
      await this.refreshChanged();
      await this.readWorkOrders();
      this.ticks++;
      this.els.live.textContent = `Live: reads the API every ${POLL_MS / 1000} s (polling; last read ${new Date().toLocaleTimeString()}).`;
      this.els.live.classList.remove('error');
    } catch (e) {
      this.els.live.textContent = `Last read failed: ${e.message}`;
      this.els.live.classList.add('error');
    }
    this.draw();
    if (!this.stopped) this.timer = setTimeout(() => this.tick(), POLL_MS);
  }

  async readSupply() {
    const { latitude, longitude, radius } = this.settings;
    const page = await this.api.get(`/v1/allocation/supply?latitude=${latitude}&longitude=${longitude}&radius_metres=${radius}&limit=100`);
    const seen = new Set();
    for (const n of page.data) {
      seen.add(n.worker_id);
      const w = this.worker(n.worker_id);
      w.latitude = n.latitude;
      w.longitude = n.longitude;
      if (w.in_map !== true || w.availability === undefined) this.pending.add(n.worker_id);
    }
    // a worker that left the nearest list may have left supply: read its state again
    for (const [id, w] of this.workers) if (w.nearest && !seen.has(id)) this.pending.add(id);
    for (const [id, w] of this.workers) w.nearest = seen.has(id);
  }

  async readEvents() {
    for (let i = 0; i < EVENT_PAGES_PER_TICK; i++) {
      const page = await this.api.get(`/v1/allocation/events?limit=100${this.cursor ? `&starting_after=${encodeURIComponent(this.cursor)}` : ''}`);
      for (const ev of page.data) {
        const id = ev.data?.worker_id;
        if (typeof id === 'string') this.pending.add(id);
        this.cursor = ev.id;
      }
      if (!page.has_more) return;
    }
  }

  async refreshChanged() {
    const batch = [...this.pending].slice(0, REFRESH_PER_TICK);
    await Promise.all(batch.map(async (id) => {
      this.pending.delete(id);
      try {
        const r = await this.api.get(`/v1/allocation/availability/${encodeURIComponent(id)}`);
        const w = this.worker(id);
        w.availability = r.availability;
        w.on_assignment = r.on_assignment;
        w.presence = r.presence;
        w.in_map = r.supply?.in_map;
        w.excluded_because = r.supply?.excluded_because ?? null;
        if (r.supply?.cell) {
          w.cell = r.supply.cell;
          this.resolution = getResolution(r.supply.cell);
        }
      } catch (e) {
        if (e.status !== 404) this.pending.add(id);
      }
    }));
  }

  /**
   * Open work orders (geofence and cascade counts), the offers of the newest OFFERS_PER_TICK, and
   * the newest supply gaps, every tick. A deployment without work orders (404) is asked again
   * every WORK_ORDER_PROBE_MS only.
   */
  async readWorkOrders() {
    const now = Date.now();
    if (this.workOrdersServed === false && now - this.workOrdersCheckedAt < WORK_ORDER_PROBE_MS) return;
    this.workOrdersCheckedAt = now;
    let open;
    let gaps;
    try {
      [open, gaps] = await Promise.all([
        this.api.get(`/v1/allocation/work_orders?status=open&limit=${WORK_ORDERS_PER_TICK}`),
        this.api.get(`/v1/allocation/work_orders?status=unfilled&limit=${GAPS_PER_TICK}`),
      ]);
    } catch (e) {
      this.workOrders = [];
      this.gaps = [];
      if (e.status === 404) {
        this.workOrdersServed = false;
        this.workOrdersNote = 'Work orders are not served by this deployment (GET /v1/allocation/work_orders answered 404): no cascades or supply gaps to draw.';
      } else this.workOrdersNote = `Work orders could not be read: ${e.message}`;
      return;
    }
    this.workOrdersServed = true;
    this.workOrdersNote = undefined;
    this.workOrders = open.data;
    this.workOrdersMore = open.has_more;
    this.gaps = gaps.data;
    const offers = new Map();
    await Promise.all(open.data.slice(0, OFFERS_PER_TICK).map(async (wo) => {
      try {
        offers.set(wo.id, (await this.api.get(`/v1/allocation/work_orders/${encodeURIComponent(wo.id)}/offers`)).data);
      } catch (e) {
        offers.set(wo.id, { error: e.message });
      }
    }));
    this.offers = offers;
  }

  drawWorkOrders() {
    const cascadeText = (c) => CASCADE_COUNTS.map((k) => `${k} ${c?.[k] ?? 0}`).join(', ');
    const features = [
      ...this.workOrders.map((wo) => ({ wo, kind: 'open', summary: `open, ${wo.accepted_count}/${wo.headcount} accepted; ${cascadeText(wo.cascade)}` })),
      ...this.gaps.map((wo) => ({ wo, kind: 'gap', summary: `supply gap: ${wo.supply_gap?.reason ?? wo.closed_reason}` })),
    ].filter(({ wo }) => wo.location).map(({ wo, kind, summary }) => ({
      type: 'Feature',
      properties: { id: wo.id, kind, color: GEOFENCE[kind].color, summary },
      geometry: { type: 'Polygon', coordinates: [circle(wo.location.latitude, wo.location.longitude, wo.location.radius_metres)] },
    }));
    this.map?.getSource('geofences')?.setData({ type: 'FeatureCollection', features });
    this.els.mapBox.dataset.geofences = String(features.length);
    this.els.mapBox.dataset.geofenceIds = features.map((f) => f.properties.id).join(' ');
    const el = this.els.workOrders;
    if (this.workOrdersNote) {
      el.innerHTML = `<p class="muted">${esc(this.workOrdersNote)}</p>`;
      return;
    }
    if (this.workOrdersServed === undefined) return;
    const where = (wo) => `geofence ${esc(wo.location.radius_metres)} m around ${esc(wo.location.latitude.toFixed(5))}, ${esc(wo.location.longitude.toFixed(5))}`;
    const offersOf = (wo) => {
      const list = this.offers.get(wo.id);
      if (!list) return '<p class="muted">offers: read for the newest ' + OFFERS_PER_TICK + ' open work orders only</p>';
      if (list.error) return `<p class="error">offers could not be read: ${esc(list.error)}</p>`;
      if (!list.length) return '<p class="muted">no offers</p>';
      return `<table class="compact offers"><thead><tr><th>offered to</th><th>rank</th><th>status</th></tr></thead><tbody>${list.map((o) => `<tr data-offer="${esc(o.id)}" data-status="${esc(o.status)}" title="${esc(o.id)}"><td>${esc(o.worker_id)}</td><td>${esc(o.rank)}</td><td>${esc(o.status)}${o.reason ? ` <span class="muted">(${esc(o.reason)})</span>` : ''}</td></tr>`).join('')}</tbody></table>`;
    };
    const openHtml = this.workOrders.map((wo) => `
      <div class="wo" data-work-order="${esc(wo.id)}" data-status="${esc(wo.status)}" data-geofence-radius="${esc(wo.location.radius_metres)}">
        <div><span class="swatch ring" style="border-color:${GEOFENCE.open.color}"></span> <b>${esc(wo.id)}</b></div>
        <div class="muted">${where(wo)}; ${esc(wo.accepted_count)}/${esc(wo.headcount)} accepted; window to ${esc(wo.window?.ends_at)}</div>
        <div class="cascade">cascade: ${CASCADE_COUNTS.map((k) => `<span data-cascade="${k}">${k} ${esc(wo.cascade?.[k] ?? 0)}</span>`).join(', ')}</div>
        ${offersOf(wo)}
      </div>`).join('');
    const gapHtml = this.gaps.map((wo) => `
      <div class="wo gap" data-supply-gap="${esc(wo.id)}" data-reason="${esc(wo.supply_gap?.reason ?? wo.closed_reason)}">
        <div><span class="swatch ring" style="border-color:${GEOFENCE.gap.color}"></span> <b>${esc(wo.id)}</b></div>
        <div>supply gap: <b data-field="reason">${esc(wo.supply_gap?.reason ?? wo.closed_reason)}</b></div>
        <div class="muted">${where(wo)}; ${esc(wo.accepted_count)}/${esc(wo.headcount)} accepted; closed ${esc(wo.closed_at)}; cascade: ${CASCADE_COUNTS.map((k) => `${k} ${esc(wo.cascade?.[k] ?? 0)}`).join(', ')}</div>
      </div>`).join('');
    el.innerHTML = `<p data-testid="work-order-count">${this.workOrders.length}${this.workOrdersMore ? '+' : ''} open work order(s), ${this.gaps.length} recent supply gap(s).</p>`
      + (openHtml || '<p class="muted">No open work orders.</p>')
      + (this.gaps.length ? `<h3>Supply gaps</h3>${gapHtml}` : '');
  }

  worker(id) {
    let w = this.workers.get(id);
    if (!w) this.workers.set(id, (w = { worker_id: id }));
    return w;
  }

  cellOf(w) {
    if (w.cell && getResolution(w.cell) === this.resolution && w.in_map) return w.cell;
    if (typeof w.latitude === 'number') return latLngToCell(w.latitude, w.longitude, this.resolution);
    return w.cell ?? null;
  }

  draw() {
    const cells = new Map();
    for (const w of this.workers.values()) {
      w.category = categoryOf(w);
      const cell = this.cellOf(w);
      w.drawnCell = cell;
      if (!cell) continue;
      let c = cells.get(cell);
      if (!c) cells.set(cell, (c = {}));
      c[w.category] = (c[w.category] ?? 0) + 1;
    }
    const features = [...cells].map(([cell, counts]) => {
      const top = Object.entries(counts).sort((a, b) => b[1] - a[1])[0][0];
      const summary = Object.entries(counts).map(([k, n]) => `${n} ${k}`).join(', ');
      return { type: 'Feature', properties: { cell, color: colorOf[top], category: top, summary }, geometry: { type: 'Polygon', coordinates: [cellToBoundary(cell, true)] } };
    });
    this.cellFeatures = features;
    this.drawWorkOrders();
    this.els.mapBox.dataset.cells = String(features.length);
    this.map?.getSource('cells')?.setData({ type: 'FeatureCollection', features });
    const rows = [...this.workers.values()].sort((a, b) => (a.worker_id < b.worker_id ? -1 : 1)).slice(0, 200);
    this.els.count.textContent = String(this.workers.size);
    this.els.table.innerHTML = rows
      .map((w) => `<tr data-worker="${esc(w.worker_id)}" data-category="${w.category}"><td><span class="swatch" style="background:${colorOf[w.category]}"></span> ${esc(w.worker_id)}</td><td>${esc(w.availability ?? '?')}</td><td>${esc(w.presence ?? '?')}${w.excluded_because ? `<br><span class="muted">${esc([].concat(w.excluded_because).join(', '))}</span>` : ''}</td><td class="muted">${esc(w.drawnCell ?? 'no position')}</td></tr>`)
      .join('');
  }
}
