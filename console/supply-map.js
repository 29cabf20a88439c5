// The supply map: the organisation's workers as H3 cells over a MapLibre map, coloured by
// availability and presence, with open work orders (geofence, cascade and offers) and supply gaps.
// Live over the platform's WebSocket (docs/gaps.md#console): the page mints a single-use ticket
// with the person's session (POST /v1/account/socket_tickets), opens
// /v1/allocation/supply/stream?ticket=..., and asks with the cursor of the last batch it read;
// the platform answers as soon as a worker, a work order or its cascade changes (a snapshot marked
// resync first, and again whenever the page fell behind). Nothing is polled; a dropped socket is
// reopened with a new ticket after a short wait. The page asks at most once every ASK_EVERY_MS and
// draws at most once a frame, so a busy organisation's changes arrive coalesced (a batch names each
// changed record once) and the socket's 20-frames-a-second budget is never reached.
import * as maplibregl from '/console/maplibre-gl.mjs';
import { cellToBoundary, cellToLatLng, cellToParent, getResolution, latLngToCell } from '/console/h3-js.es.js';
import { esc } from '/console/api.js';

export const SUPPLY_SOCKET_PATH = '/v1/allocation/supply/stream';
/** Waits before reopening a dropped socket (doubling, at most the last). */
const RECONNECT_MS = [500, 1000, 2000, 5000, 10000];
/** The least time between two asks: 4 a second, a fifth of the socket's budget (docs/gaps.md#console). */
export const ASK_EVERY_MS = 250;
/** Waits before asking again after a refusal: a retryable one (the budget, a full node) soon, any other later. */
const REFUSED_RETRY_MS = { retryable: 1000, other: 10000 };
/** Supply gaps shown (newest first). */
const GAPS_SHOWN = 25;
/** Rows of the worker list (the rest are found with its search box). */
const WORKERS_LISTED = 300;
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

/**
 * The H3 resolution workers are drawn at for a zoom: their own cells when zoomed in, their parents
 * when zoomed out, so every worker is drawn and a city's thousands of workers stay a few hundred
 * shapes (a cluster's colour is its largest category; its popup counts each).
 */
export function clusterResolution(zoom, finest) {
  return Math.max(4, Math.min(finest, Math.floor(zoom) - 3));
}

/** Nigeria's states as the page ships them (index.html #basemap-states); empty when absent. */
function basemapStates() {
  try {
    return JSON.parse(document.getElementById('basemap-states')?.textContent ?? '');
  } catch {
    return { type: 'FeatureCollection', features: [] };
  }
}

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
    this.resolution = 9;
    this.cursor = null;
    this.ws = undefined;
    this.failures = 0;
    this.openOrders = new Map();
    this.gapOrders = new Map();
    /** Work orders seen filled or cancelled since the page subscribed (their accepted offers await assignments). */
    this.closedOrders = new Map();
    this.workOrders = [];
    this.gaps = [];
    this.offers = new Map();
    this.workOrdersServed = undefined;
    this.settings = this.loadSettings();
    this.batches = 0;
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

  /** The offline base layer (states, from the page) always; the operator's tiles over it when set. */
  style() {
    const layers = [
      { id: 'background', type: 'background', paint: { 'background-color': '#dfe7ee' } },
      { id: 'states', type: 'fill', source: 'states', paint: { 'fill-color': '#f6f4ee' } },
      { id: 'states-outline', type: 'line', source: 'states', paint: { 'line-color': '#a7b0ba', 'line-width': 1 } },
    ];
    const sources = { states: { type: 'geojson', data: basemapStates(), attribution: 'states: Natural Earth' } };
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
      this.resubscribe();
    });
    this.els.legend.innerHTML = CATEGORIES.map((c) => `<li><span class="swatch" style="background:${c.color}"></span>${esc(c.label)}</li>`).join('')
      + Object.values(GEOFENCE).map((g) => `<li><span class="swatch ring" style="border-color:${g.color}"></span>${esc(g.label)}</li>`).join('');
    // assigned, not added: each sign-in makes a new map over the same elements
    if (this.els.filter) this.els.filter.oninput = () => this.renderWorkers(Number(this.els.mapBox.dataset.awaitingPosition ?? 0));
    this.els.table.onclick = (e) => {
      const b = e.target.closest('button');
      if (b?.dataset.locate) this.locateWorker(b.dataset.locate);
      else if (b?.dataset.card) this.onWorker?.(b.dataset.card);
    };
    this.els.mapBox.dataset.mapState = 'loading';
    try {
      this.map = new maplibregl.Map({ container: this.els.mapBox, style: this.style(), center: [this.settings.longitude, this.settings.latitude], zoom: 11, attributionControl: { compact: true } });
      this.map.addControl(new maplibregl.NavigationControl({ showCompass: false }));
      this.map.on('load', () => {
        this.addLayers();
        this.els.mapBox.dataset.mapState = 'ready';
        this.els.mapBox.dataset.basemapStates = String(this.map.querySourceFeatures?.('states')?.length ?? 0);
        this.draw();
      });
      // a zoom changes the cluster resolution: redrawn once it ends, not on every frame of it
      this.map.on('zoomend', () => this.drawSoon());
      // a click away from any record: the dispatcher opens a work order there (people.js Dispatch)
      this.map.on('click', (e) => {
        if (!this.map.queryRenderedFeatures(e.point, { layers: ['cells', 'geofences'] }).length) this.onMapClick?.(e.lngLat);
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
    this.connect();
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    clearTimeout(this.askTimer);
    this.timer = undefined;
    const ws = this.ws;
    this.ws = undefined;
    ws?.close(1000, 'signed out');
    this.map?.remove();
  }

  status(text, error = false) {
    this.els.live.textContent = text;
    this.els.live.classList.toggle('error', error);
    this.els.live.dataset.state = error ? 'error' : this.ws?.readyState === 1 ? 'live' : 'connecting';
  }

  /** Opens the socket with a fresh ticket; asks from the cursor held (a snapshot when none). */
  async connect() {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.status('Connecting to the supply feed...');
    let token;
    try {
      token = (await this.api.socketTicket()).token;
    } catch (e) {
      return this.retry(`The supply feed could not start: ${e.message}`);
    }
    if (this.stopped) return;
    const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}${SUPPLY_SOCKET_PATH}?ticket=${encodeURIComponent(token)}`;
    const ws = new WebSocket(url);
    this.ws = ws;
    ws.onopen = () => {
      this.failures = 0;
      this.askSoon();
    };
    ws.onmessage = (m) => this.receive(m.data);
    ws.onclose = (e) => {
      if (this.ws !== ws) return;
      this.ws = undefined;
      this.retry(`The supply feed closed${e.reason ? `: ${e.reason}` : ''}; reconnecting.`);
    };
  }

  /** Draws once before the next frame, however many batches arrived since the last drawing. */
  drawSoon() {
    if (this.drawPending) return;
    this.drawPending = true;
    const run = () => {
      this.drawPending = false;
      if (!this.stopped) this.draw();
    };
    if (document.hidden) setTimeout(run, ASK_EVERY_MS);
    else requestAnimationFrame(run);
  }

  /** The next ask, no sooner than ASK_EVERY_MS after the last one (or `wait` when longer). */
  askSoon(wait = 0) {
    clearTimeout(this.askTimer);
    const due = Math.max(wait, (this.lastAsk ?? 0) + ASK_EVERY_MS - Date.now());
    if (due <= 0) return this.ask();
    this.askTimer = setTimeout(() => this.ask(), due);
  }

  retry(text) {
    if (this.stopped) return;
    this.status(text, true);
    const wait = RECONNECT_MS[Math.min(this.failures++, RECONNECT_MS.length - 1)];
    this.timer = setTimeout(() => this.connect(), wait);
  }

  /** Asks for what changed after the cursor held (with where the map looks, for the first snapshot). */
  ask() {
    const { latitude, longitude, radius } = this.settings;
    const near = this.cursor === null && Number.isFinite(latitude) && Number.isFinite(longitude) && radius >= 1 && radius <= 100000 ? { latitude, longitude, radius_metres: radius } : undefined;
    if (this.ws?.readyState !== 1) return;
    this.lastAsk = Date.now();
    this.asked = (this.asked ?? 0) + 1;
    // a truncated snapshot is read whole first, page by page, from the cursor it gave
    this.ws.send(JSON.stringify(near ? { after: this.cursor, near } : this.restFrom ? { after: this.cursor, rest: this.restFrom } : { after: this.cursor }));
  }

  /** The map moved: a fresh snapshot around it. */
  resubscribe() {
    this.cursor = null;
    this.restFrom = undefined;
    if (this.ws?.readyState === 1) this.ws.close(1000, 'resubscribing');
    else this.connect();
  }

  receive(text) {
    let b;
    try {
      b = JSON.parse(text);
    } catch {
      return this.status('The supply feed sent something unreadable.', true);
    }
    if (b.error) {
      this.refusals = (this.refusals ?? 0) + 1;
      this.els.mapBox.dataset.feedRefusals = String(this.refusals);
      this.status(`The supply feed refused a request: ${b.error.message}`, true);
      this.askSoon(b.error.retryable ? REFUSED_RETRY_MS.retryable : REFUSED_RETRY_MS.other);
      return;
    }
    this.apply(b);
    this.onBatch?.(b);
    this.cursor = b.cursor;
    this.batches++;
    const changed = b.workers.length + b.work_orders.length;
    if (b.resync || changed) this.lastChange = new Date();
    if (b.resync || b.rest !== undefined) this.restFrom = b.truncated ? b.next_rest : undefined;
    this.status(`Live: pushed over the platform's WebSocket${b.resync ? ` (snapshot: ${b.reason})` : ''}; last change ${this.lastChange ? this.lastChange.toLocaleTimeString() : 'none yet'}.${this.restFrom ? ` Reading the rest of the snapshot from worker ${this.restFrom}...` : ''}`);
    this.drawSoon();
    this.askSoon();
  }

  /** A batch: a snapshot replaces what the page holds; changes replace the records they name. */
  apply(b) {
    if (b.resync) {
      this.workers.clear();
      this.openOrders.clear();
      this.gapOrders.clear();
    }
    for (const r of b.workers) {
      if (r.removed) {
        this.workers.delete(r.worker_id);
        continue;
      }
      const w = this.worker(r.worker_id);
      Object.assign(w, r);
      if (r.cell) {
        w.lastCell = r.cell;
        this.resolution = getResolution(r.cell);
      }
    }
    for (const wo of b.work_orders) {
      this.openOrders.delete(wo.id);
      this.gapOrders.delete(wo.id);
      if (wo.status === 'open') this.openOrders.set(wo.id, wo);
      else if (wo.status === 'unfilled') this.gapOrders.set(wo.id, wo);
      else {
        this.closedOrders.delete(wo.id);
        this.closedOrders.set(wo.id, wo);
        if (this.closedOrders.size > GAPS_SHOWN) this.closedOrders.delete(this.closedOrders.keys().next().value);
      }
    }
    const newest = (a, c) => (a.created_at < c.created_at ? 1 : a.created_at > c.created_at ? -1 : 0);
    this.workOrders = [...this.openOrders.values()].sort(newest);
    this.gaps = [...this.gapOrders.values()].sort((a, c) => ((a.closed_at ?? '') < (c.closed_at ?? '') ? 1 : -1)).slice(0, GAPS_SHOWN);
    for (const id of [...this.gapOrders.keys()]) if (!this.gaps.some((g) => g.id === id)) this.gapOrders.delete(id);
    this.closed = [...this.closedOrders.values()].reverse();
    this.offers = new Map([...this.workOrders, ...this.closed].map((wo) => [wo.id, wo.offers ?? []]));
    this.workOrdersServed = true;
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
    this.onWorkOrders?.();
  }

  worker(id) {
    let w = this.workers.get(id);
    if (!w) this.workers.set(id, (w = { worker_id: id }));
    return w;
  }

  /** Where the worker is drawn: their cell in the map, else where they were last seen in it. */
  cellOf(w) {
    if (w.cell) return w.cell;
    if (typeof w.latitude === 'number') return latLngToCell(w.latitude, w.longitude, this.resolution);
    return w.lastCell ?? null;
  }

  draw() {
    const cells = new Map();
    const zoom = this.map?.getZoom?.() ?? 12;
    const res = clusterResolution(zoom, this.resolution);
    let drawn = 0;
    let awaiting = 0;
    for (const w of this.workers.values()) {
      w.category = categoryOf(w);
      const own = this.cellOf(w);
      w.drawnCell = own;
      if (!own) {
        awaiting++;
        continue;
      }
      drawn++;
      const cell = getResolution(own) > res ? cellToParent(own, res) : own;
      let c = cells.get(cell);
      if (!c) cells.set(cell, (c = {}));
      c[w.category] = (c[w.category] ?? 0) + 1;
    }
    const features = [...cells].map(([cell, counts]) => {
      const top = Object.entries(counts).sort((a, b) => b[1] - a[1])[0][0];
      const total = Object.values(counts).reduce((a, b) => a + b, 0);
      const summary = Object.entries(counts).map(([k, n]) => `${n} ${k}`).join(', ');
      return { type: 'Feature', properties: { cell, color: colorOf[top], category: top, summary, total }, geometry: { type: 'Polygon', coordinates: [cellToBoundary(cell, true)] } };
    });
    this.cellFeatures = features;
    this.drawWorkOrders();
    Object.assign(this.els.mapBox.dataset, { cells: String(features.length), workersDrawn: String(drawn), awaitingPosition: String(awaiting), clusterResolution: String(res) });
    this.map?.getSource('cells')?.setData({ type: 'FeatureCollection', features });
    this.renderWorkers(awaiting);
  }

  /** The worker list: those still without a position first (they are not on the map yet), then by id. */
  renderWorkers(awaiting) {
    const q = (this.els.filter?.value ?? '').trim().toLowerCase();
    const all = [...this.workers.values()].filter((w) => !q || w.worker_id.toLowerCase().includes(q) || w.category.includes(q));
    const rows = all.sort((a, b) => (!a.drawnCell !== !b.drawnCell ? (a.drawnCell ? 1 : -1) : a.worker_id < b.worker_id ? -1 : 1)).slice(0, WORKERS_LISTED);
    this.els.count.textContent = `${this.workers.size}${awaiting ? `, ${awaiting} awaiting a first position` : ''}`;
    this.els.table.innerHTML = rows
      .map((w) => `<tr data-worker="${esc(w.worker_id)}" data-category="${w.category}"${w.drawnCell ? '' : ' data-awaiting-position'}><td><button class="link" data-card="${esc(w.worker_id)}" title="the worker's card">${esc(w.worker_id)}</button></td><td><span class="swatch" style="background:${colorOf[w.category]}"></span> ${esc(w.availability ?? '?')}</td><td>${esc(w.presence ?? '?')}${w.excluded_because ? `<br><span class="muted">${esc([].concat(w.excluded_because).join(', '))}</span>` : ''}</td><td class="muted">${w.drawnCell ? `<button class="link" data-locate="${esc(w.worker_id)}" title="show on the map">${esc(w.drawnCell)}</button>` : 'awaiting a first position'}</td></tr>`)
      .join('') + (all.length > rows.length ? `<tr><td colspan="4" class="muted">${all.length - rows.length} more: search to narrow</td></tr>` : '');
  }

  /** Centres the map on a worker's cell (from any list that names the worker). */
  locateWorker(id) {
    const w = this.workers.get(id);
    const cell = w && this.cellOf(w);
    if (!cell || !this.map) return false;
    const [lat, lng] = cellToLatLng(cell);
    this.map.flyTo({ center: [lng, lat], zoom: Math.max(this.map.getZoom(), 14) });
    return true;
  }

  /** Centres the map on a point (a work order, an assignment's site). */
  locate(latitude, longitude, zoom = 14) {
    this.map?.flyTo({ center: [longitude, latitude], zoom: Math.max(this.map.getZoom(), zoom) });
  }
}
