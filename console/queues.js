// Queues for people: integrity flags and assignment exceptions (adjudicated here, one by one or in
// bulk with one reason), beside the payroll runs for approvers (payroll.js). A
// queue is read whole (at most QUEUE_MAX records) and then paged, filtered and searched on the page;
// it is read again when the supply socket names a worker or work order while the tab is shown (a
// flag or an exception changes its worker), at most every LIVE_EVERY_MS. The page decides nothing:
// it sends the person's choice to the API and shows the API's answer, refusals included, in the
// API's words.
import { act, esc, idTag, newIdempotencyKey } from '/console/api.js';
import { Payroll } from '/console/payroll.js';
import { PayrollLive } from '/console/payroll-live.js';

const QUEUE_MAX = 1000;
const PAGE_SIZES = [25, 50, 100];
/** The least time between two reads of the queues pushed by the supply socket. */
export const LIVE_EVERY_MS = 2000;
/** Decisions sent at once by a bulk decision (each its own request and Idempotency-Key). */
const BULK_AT_ONCE = 4;

const enc = encodeURIComponent;

/** How each queue is read, shown and decided. */
const KINDS = {
  flag: {
    title: 'integrity flags',
    statuses: ['open', 'upheld', 'dismissed'],
    read: (api, status) => api.all(`/v1/allocation/integrity_flags?status=${enc(status)}`, QUEUE_MAX),
    signals: (f) => (f.signals ?? []).map((x) => ({ name: x.source, detail: `${x.fired_at}${x.detail ? `: ${x.detail}` : ''}` })),
    about: (f) => `raised ${esc(f.raised_at)}${f.mocked ? ', mocked' : ''}`,
    decide: (api, f, body, ik) => api.post(`/v1/allocation/integrity_flags/${enc(f.id)}/adjudicate`, body, ik),
    told: (r) => `Recorded: ${r.status}${r.suspends ? ' (the worker is suspended)' : ''}.`,
  },
  exception: {
    title: 'exceptions',
    statuses: ['open'],
    read: (api) => api.all('/v1/allocation/exceptions', QUEUE_MAX),
    signals: (x) => (x.conflicting_signals ?? []).map((s) => ({ name: s.name, detail: s.detail ?? '' })),
    about: (x) => `assignment ${idTag(x.assignment_id)}, step ${esc(x.step)}, raised ${esc(x.raised_at)}${x.mocked ? ', mocked' : ''}`,
    decide: (api, x, body, ik) => api.post(`/v1/allocation/exceptions/${enc(x.id)}/adjudicate`, body, ik),
    told: (r) => `Recorded: ${r.status}${r.decision?.accepted_signals?.length ? ` (accepted: ${r.decision.accepted_signals.join(', ')})` : ''}.`,
  },
};

/** One queue: its records, the page shown, the search, and the ones ticked for a bulk decision. */
class Queue {
  constructor(api, el, kind) {
    Object.assign(this, { api, el, kind, k: KINDS[kind], all: [], page: 0, size: PAGE_SIZES[0], query: '', status: KINDS[kind].statuses[0], ticked: new Set(), decided: new Map() });
    el.innerHTML = `<div class="toolbar">
        <input type="search" name="q" placeholder="search id, worker, signal" aria-label="search ${this.k.title}">
        ${this.k.statuses.length > 1 ? `<select name="status" aria-label="status">${this.k.statuses.map((x) => `<option>${x}</option>`).join('')}</select>` : ''}
        <select name="size" aria-label="page size">${PAGE_SIZES.map((n) => `<option>${n}</option>`).join('')}</select>
        <button data-nav="-1">Previous</button> <span data-role="page"></span> <button data-nav="1">Next</button>
      </div>
      <form class="bulk" data-prefix="bulk-${kind}" data-needs="match:write">
        <label><input type="checkbox" name="page-all"> this page</label> <button type="button" data-select="matching">Select all matching</button> <button type="button" data-select="none">Clear</button>
        <span data-role="ticked">0 selected</span>
        <select name="outcome" aria-label="outcome"><option value="dismissed">dismissed</option><option value="upheld">upheld</option></select>
        <input name="reason" placeholder="one reason for all selected" size="34" aria-label="reason">
        <button type="submit">Decide selected</button> <span data-role="result"></span>
      </form>
      <div data-role="rows"></div>`;
    const q = (s) => el.querySelector(s);
    q('[name=q]').oninput = (e) => this.show({ query: e.target.value.trim().toLowerCase(), page: 0 });
    if (q('[name=status]')) q('[name=status]').onchange = (e) => ((this.status = e.target.value), this.ticked.clear(), this.refresh());
    q('[name=size]').onchange = (e) => this.show({ size: Number(e.target.value), page: 0 });
    for (const b of el.querySelectorAll('[data-nav]')) b.onclick = () => this.show({ page: this.page + Number(b.dataset.nav) });
    q('[name=page-all]').onchange = (e) => this.tick(this.visible().map((r) => r.id), e.target.checked);
    q('[data-select=matching]').onclick = () => this.tick(this.matching().map((r) => r.id), true);
    q('[data-select=none]').onclick = () => this.tick([...this.ticked], false);
    q('form.bulk').onsubmit = (e) => (e.preventDefault(), this.bulk(e.currentTarget));
    q('[data-role=rows]').onchange = (e) => e.target.name === 'pick' && this.tick([e.target.value], e.target.checked);
  }

  /** Reads the queue again; `forget`: the records decided here since are no longer shown (a person's refresh). */
  async refresh(forget = false) {
    if (forget) this.decided.clear();
    try {
      this.all = await this.k.read(this.api, this.status);
    } catch (e) {
      this.el.querySelector('[data-role=rows]').innerHTML = e.status === 404 ? `<p class="muted">Not served by this deployment (${esc(e.message)}).</p>` : `<p class="error">${esc(e.message)}</p>`;
      return;
    }
    const ids = new Set(this.all.map((r) => r.id));
    for (const id of this.ticked) if (!ids.has(id)) this.ticked.delete(id);
    this.show({});
  }

  matching() {
    const q = this.query;
    if (!q) return this.all;
    return this.all.filter((r) => [r.id, r.worker_id, r.assignment_id, r.step, ...this.k.signals(r).map((s) => `${s.name} ${s.detail}`)].some((t) => String(t ?? '').toLowerCase().includes(q)));
  }

  visible() {
    return this.matching().slice(this.page * this.size, (this.page + 1) * this.size);
  }

  tick(ids, on) {
    for (const id of ids) on ? this.ticked.add(id) : this.ticked.delete(id);
    this.show({});
  }

  show(change) {
    Object.assign(this, change);
    const all = this.matching();
    const pages = Math.max(1, Math.ceil(all.length / this.size));
    this.page = Math.min(Math.max(0, this.page), pages - 1);
    const rows = this.visible();
    const el = this.el;
    el.dataset.count = String(this.all.length);
    el.querySelector('[data-role=page]').textContent = `page ${this.page + 1} of ${pages}; ${all.length} of ${this.all.length} ${this.status} ${this.k.title}`;
    el.querySelector('[data-role=ticked]').textContent = `${this.ticked.size} selected`;
    el.querySelector('[name=page-all]').checked = rows.length > 0 && rows.every((r) => this.ticked.has(r.id));
    const box = el.querySelector('[data-role=rows]');
    // what was decided here stays shown with the API's answer until the person refreshes
    const gone = [...this.decided.values()].filter((d) => !this.all.some((r) => r.id === d.id));
    if (!all.length && !gone.length) {
      box.innerHTML = `<p class="muted" data-testid="no-${this.kind}s">No ${this.status} ${this.k.title}${this.query ? ' matching the search' : ''}.</p>`;
      return;
    }
    const open = this.status === 'open';
    const kept = this.typed(box);
    box.innerHTML = `<table class="compact queue"><thead><tr><th></th><th>id</th><th>worker</th><th>signals (tick those accepted)</th><th>${open ? 'decide' : 'decision'}</th></tr></thead><tbody>${rows.map((r) => {
      const form = `${this.kind}-${r.id}`;
      return `<tr data-${this.kind}="${esc(r.id)}">
        <td><input type="checkbox" name="pick" value="${esc(r.id)}" ${this.ticked.has(r.id) ? 'checked' : ''} aria-label="select"></td>
        <td>${idTag(r.id)}<br><span class="muted">${this.k.about(r)}</span></td>
        <td><button class="link" data-card="${esc(r.worker_id)}" title="the worker's card">${esc(r.worker_id)}</button> <button class="link" data-locate="${esc(r.worker_id)}">map</button></td>
        <td>${this.k.signals(r).map((s) => `<label class="signal"><input type="checkbox" name="accepted_signals" value="${esc(s.name)}" form="${esc(form)}"> ${esc(s.name)} <span class="muted">${esc(s.detail)}</span></label>`).join('')}</td>
        <td>${open ? `<form id="${esc(form)}" data-prefix="adjudicate" class="decide" data-needs="match:write"><select name="outcome"><option value="dismissed">dismissed</option><option value="upheld">upheld</option></select> <input name="reason" placeholder="reason" size="24"> <button type="submit">Decide</button> <span data-role="result"></span></form>` : `${esc(r.status)}: ${esc(r.decision?.reason ?? '')}`}</td>
      </tr>`;
    }).join('')}${gone.map((d) => `<tr data-${this.kind}="${esc(d.id)}" data-decided><td></td><td>${idTag(d.id)}</td><td>${esc(d.worker_id)}</td><td></td><td><span data-role="result" class="ok">${esc(d.told)}</span></td></tr>`).join('')}</tbody></table>`;
    for (const f of box.querySelectorAll('form.decide')) f.onsubmit = (e) => (e.preventDefault(), this.one(f));
    this.typed(box, kept);
  }

  /**
   * What a person typed, ticked or was answered in the rows, read before a redraw (no `kept`) and
   * put back after it (`kept`), so a live update never loses a decision being written.
   */
  typed(box, kept) {
    const rowOf = (n) => n.closest('tr')?.getAttribute(`data-${this.kind}`) ?? '';
    const key = (n) => `${rowOf(n)}|${n.name ?? n.dataset.role}|${n.type === 'checkbox' ? n.value : ''}`;
    const fields = box.querySelectorAll('input:not([name=pick]), select, [data-role=result]');
    if (!kept) return new Map([...fields].map((n) => [key(n), n.dataset.role ? [n.className, n.textContent] : n.type === 'checkbox' ? n.checked : n.value]));
    for (const n of fields) {
      const v = kept.get(key(n));
      if (v === undefined) continue;
      if (n.dataset.role) [n.className, n.textContent] = v;
      else if (n.type === 'checkbox') n.checked = v;
      else n.value = v;
    }
  }

  /** One record decided with its own form. */
  async one(form) {
    const r = this.all.find((x) => `${this.kind}-${x.id}` === form.id);
    const body = { outcome: form.elements.outcome.value, reason: form.elements.reason.value };
    const accepted = [...this.el.querySelectorAll(`input[form="${CSS.escape(form.id)}"]:checked`)].map((i) => i.value);
    if (accepted.length) body.accepted_signals = accepted;
    await act(form, async (ik) => {
      const told = this.k.told(await this.k.decide(this.api, r, body, ik));
      this.decided.set(r.id, { id: r.id, worker_id: r.worker_id, told });
      return told;
    });
  }

  /** Every ticked record decided with one outcome and one reason; each is its own request, and what the API refused is listed. */
  async bulk(form) {
    const out = form.querySelector('[data-role=result]');
    const chosen = this.all.filter((r) => this.ticked.has(r.id));
    const body = { outcome: form.elements.outcome.value, reason: form.elements.reason.value };
    const button = form.querySelector('button[type=submit]');
    button.disabled = true;
    let done = 0;
    const refused = [];
    const queue = [...chosen];
    const worker = async () => {
      for (let r = queue.shift(); r; r = queue.shift()) {
        try {
          await this.k.decide(this.api, r, body, newIdempotencyKey(`bulk-${this.kind}`));
          done++;
          this.ticked.delete(r.id);
        } catch (e) {
          refused.push(`${r.id}: ${e.message}${e.code ? ` (${e.code})` : ''}`);
        }
        out.textContent = `${done} of ${chosen.length} decided${refused.length ? `, ${refused.length} refused` : ''}...`;
      }
    };
    await Promise.all(Array.from({ length: Math.min(BULK_AT_ONCE, chosen.length) }, worker));
    button.disabled = false;
    out.className = refused.length ? 'error' : 'ok';
    out.textContent = `${done} of ${chosen.length} decided ${body.outcome}.${refused.length ? ` Refused: ${refused.slice(0, 5).join('; ')}${refused.length > 5 ? ` and ${refused.length - 5} more` : ''}` : ''}`;
    await this.refresh();
  }
}

export class Queues {
  constructor(api, els, money) {
    this.api = api;
    this.els = els;
    this.money = money;
    this.flagQueue = new Queue(api, els.flags, 'flag');
    this.exceptionQueue = new Queue(api, els.exceptions, 'exception');
    this.payroll = new Payroll(api, els.runs, money);
    this.payrollLive = new PayrollLive(api, LIVE_EVERY_MS, () => this.payroll.refresh());
  }

  /** The tab is shown (`on`) or hidden: the runs follow the payroll event list while it is shown. */
  shown(on) {
    this.payrollLive.follow(on && this.api.can('run:read'));
  }

  async refresh(forget = false) {
    const match = this.api.can('match:read');
    await Promise.all([match && this.flagQueue.refresh(forget), match && this.exceptionQueue.refresh(forget), this.api.can('run:read') && this.runs()]);
  }

  /** The supply socket named a worker or a work order: the queues are read again, at most every LIVE_EVERY_MS, while shown. */
  changed(visible) {
    if (!visible || this.liveTimer) return;
    this.liveTimer = setTimeout(() => {
      this.liveTimer = undefined;
      this.flagQueue.refresh();
      this.exceptionQueue.refresh();
    }, LIVE_EVERY_MS);
  }

  runs() {
    return this.payroll.refresh();
  }

  /** Signed out: no read is left to run for the person who left. */
  stop() {
    clearTimeout(this.liveTimer);
    this.payrollLive.follow(false);
  }
}
