// Queues for people: integrity flags and assignment exceptions (adjudicated here, one by one or in
// bulk with one reason), and payroll runs in every state for approvers (approved, rejected or
// executed here, each run with its history and its change against the previous period). A
// queue is read whole (at most QUEUE_MAX records) and then paged, filtered and searched on the page;
// it is read again when the supply socket names a worker or work order while the tab is shown (a
// flag or an exception changes its worker), at most every LIVE_EVERY_MS. The page decides nothing:
// it sends the person's choice to the API and shows the API's answer, refusals included, in the
// API's words.
import { act, esc, idTag, newIdempotencyKey } from '/console/api.js';

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
      <form class="bulk" data-prefix="bulk-${kind}">
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
        <td>${open ? `<form id="${esc(form)}" data-prefix="adjudicate" class="decide"><select name="outcome"><option value="dismissed">dismissed</option><option value="upheld">upheld</option></select> <input name="reason" placeholder="reason" size="24"> <button type="submit">Decide</button> <span data-role="result"></span></form>` : `${esc(r.status)}: ${esc(r.decision?.reason ?? '')}`}</td>
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
  }

  async refresh(forget = false) {
    await Promise.all([this.flagQueue.refresh(forget), this.exceptionQueue.refresh(forget), this.runs()]);
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
  }
}

const RUN_STATUSES = ['pending_approval', 'approved', 'executing', 'completed', 'partially_settled', 'failed', 'simulated', 'draft', 'cancelled'];
/** Runs not yet executed: an earlier period's among them makes a later approval out of order. */
const UNEXECUTED = new Set(['draft', 'simulated', 'pending_approval', 'approved']);
const RUNS_PER_PAGE = 10;
const TOTALS = [['gross', 'gross'], ['total_deductions', 'deductions'], ['net', 'net'], ['employer_contributions', 'employer contributions']];
const previousPeriod = (p) => {
  const [y, m] = p.split('-').map(Number);
  return m === 1 ? `${y - 1}-12` : `${y}-${String(m - 1).padStart(2, '0')}`;
};

/** Payroll runs for approvers: every state, paged and searched by period, acted on by state. */
class Payroll {
  constructor(api, el, money) {
    // told: the last answer to an action on each run, shown again after the list is read anew
    Object.assign(this, { api, el, money, runs: [], page: 0, status: '', query: '', names: new Map(), asked: new Map(), told: new Map() });
    el.innerHTML = `<div class="toolbar"><select name="status" aria-label="status"><option value="">every state</option>${RUN_STATUSES.map((x) => `<option>${x}</option>`).join('')}</select>
      <input type="search" name="q" placeholder="period (2026-02) or id" aria-label="search runs"> <button data-nav="-1">Previous</button> <span data-role="page"></span> <button data-nav="1">Next</button></div><div data-role="rows"></div>`;
    el.querySelector('[name=status]').onchange = (e) => ((this.status = e.target.value), (this.page = 0), this.refresh());
    el.querySelector('[name=q]').oninput = (e) => ((this.query = e.target.value.trim()), (this.page = 0), this.show());
    for (const b of el.querySelectorAll('[data-nav]')) b.onclick = () => ((this.page += Number(b.dataset.nav)), this.show());
    el.querySelector('[data-role=rows]').onclick = (e) => this.onClick(e);
  }

  async refresh() {
    try {
      this.runs = await this.api.all(`/v1/payroll/runs${this.status ? `?status=${this.status}` : ''}`, 500);
      // the period order is judged over every run, whatever the filter shows
      this.every = this.status ? await this.api.all('/v1/payroll/runs', 500) : this.runs;
    } catch (e) {
      this.el.querySelector('[data-role=rows]').innerHTML = `<p class="error">${esc(e.message)}</p>`;
      return;
    }
    await Promise.all([...new Set(this.runs.flatMap((r) => [r.prepared_by, r.approved_by]).filter(Boolean))].map((id) => this.name(id)));
    this.show();
  }

  /** A person's name for the id a run names them with (GET /v1/people); the id when none is known. */
  async name(id) {
    if (!this.asked.has(id)) this.asked.set(id, this.api.get(`/v1/people/${encodeURIComponent(id)}`).then((p) => p.name, () => id).then((n) => (this.names.set(id, n), n)));
    return this.asked.get(id);
  }

  show() {
    const q = this.query.toLowerCase();
    const all = this.runs.filter((r) => !q || r.period.includes(q) || r.id.toLowerCase().includes(q));
    const pages = Math.max(1, Math.ceil(all.length / RUNS_PER_PAGE));
    this.page = Math.min(Math.max(0, this.page), pages - 1);
    this.el.querySelector('[data-role=page]').textContent = `page ${this.page + 1} of ${pages}; ${all.length} run(s)`;
    const rows = all.slice(this.page * RUNS_PER_PAGE, (this.page + 1) * RUNS_PER_PAGE);
    const box = this.el.querySelector('[data-role=rows]');
    if (!rows.length) {
      box.innerHTML = `<p class="muted" data-testid="no-runs">No payroll run${this.status ? ` ${this.status}` : ''}.</p>`;
      return;
    }
    box.innerHTML = rows.map((r) => this.card(r)).join('');
    for (const r of rows) this.fill(r);
    this.retell();
  }

  /** Puts each run's last answer into its card as drawn now (a read that finished meanwhile drew it anew). */
  retell() {
    for (const [id, t] of this.told) {
      const out = this.el.querySelector(`[data-run="${CSS.escape(id)}"] form.run-ops [data-role=result]`);
      if (out) Object.assign(out, t);
    }
  }

  /** Earlier periods' runs not yet executed: approving this one now would be out of order. */
  earlier(r) {
    return (this.every ?? []).filter((o) => o.id !== r.id && o.run_type === r.run_type && o.period < r.period && UNEXECUTED.has(o.status));
  }

  card(r) {
    const m = (x) => esc(this.money.format(x));
    const who = (id) => (id ? `<span title="${esc(id)}">${esc(this.names.get(id) ?? id)}</span>` : '-');
    const earlier = this.earlier(r);
    const order = earlier.length ? `<p class="warning" data-role="order">Out of order: ${earlier.map((o) => `${esc(o.period)} (${idTag(o.id)}, ${esc(o.status)})`).join(', ')} not executed yet. Approve and execute periods in order${r.status === 'pending_approval' ? ', or tick to approve this one first' : ''}.</p>` : '';
    const ops = r.status === 'pending_approval'
      ? `${earlier.length ? '<label><input type="checkbox" name="out_of_order"> approve out of order</label>' : ''}<button type="button" data-op="approve">Approve</button> <input name="reason" placeholder="reason to reject" size="28"> <button type="button" data-op="reject">Reject</button>`
      : r.status === 'approved' ? '<button type="button" data-op="execute">Execute</button>' : '';
    return `<div class="card" data-run="${esc(r.id)}" data-status="${esc(r.status)}">
      <h3>${idTag(r.id)} ${esc(r.run_type)} ${esc(r.period)}: <span data-field="status">${esc(r.status)}</span></h3>
      <table class="compact"><tbody>
        <tr><th>payees</th><td>${esc(r.payee_count)}</td><th>gross</th><td data-total="gross">${m(r.totals.gross)}</td></tr>
        <tr><th>deductions</th><td data-total="total_deductions">${m(r.totals.total_deductions)}</td><th>net</th><td data-total="net">${m(r.totals.net)}</td></tr>
        <tr><th>employer contributions</th><td>${m(r.totals.employer_contributions)}</td><th>prepared by</th><td data-field="prepared_by">${who(r.prepared_by)}</td></tr>
        <tr><th>approved by</th><td data-field="approved_by">${who(r.approved_by)}</td><th>open findings</th><td>${Object.entries(r.open_findings ?? {}).map(([k, n]) => `${esc(k)}: ${esc(n)}`).join(', ')}</td></tr>
      </tbody></table>
      ${r.prepared_by && r.prepared_by === this.api.me?.person && r.status === 'pending_approval' ? '<p class="muted" data-role="role">You prepared this run: above the maker-checker threshold, another person approves it.</p>' : ''}
      ${order}<div data-role="findings"></div><div data-role="change"></div>
      <details data-role="history"><summary>History</summary><div></div></details>
      <form data-prefix="run" class="run-ops">${ops} <span data-role="result"></span></form>
    </div>`;
  }

  /** What a card reads after it is drawn: findings, the change against the previous period, the history. */
  async fill(r) {
    const card = this.el.querySelector(`[data-run="${CSS.escape(r.id)}"]`);
    const [findings, history] = await Promise.all([
      this.api.all(`/v1/payroll/runs/${encodeURIComponent(r.id)}/findings`, 200).catch(() => []),
      this.api.get(`/v1/payroll/audit_entries?record_id=${encodeURIComponent(r.id)}&limit=50`).then((p) => p.data, () => []),
    ]);
    card.querySelector('[data-role=findings]').innerHTML = findings.length
      ? `<table class="compact"><thead><tr><th>severity</th><th>code</th><th>status</th><th>detail</th></tr></thead><tbody>${findings.map((f) => `<tr><td>${esc(f.severity)}</td><td>${esc(f.code)}</td><td>${esc(f.status)}</td><td>${esc(this.money.inText(f.detail))}</td></tr>`).join('')}</tbody></table>`
      : '<p class="muted">No findings.</p>';
    const names = await Promise.all(history.map((h) => this.name(h.principal ?? '')));
    card.querySelector('[data-role=history] div').innerHTML = history.length
      ? `<ol>${history.map((h, i) => `<li data-action="${esc(h.action)}">${esc(h.occurred_at)}: ${esc(h.action)}${h.principal ? ` by ${esc(names[i])}` : ''}</li>`).join('')}</ol>` : '<p class="muted">No history recorded yet.</p>';
    const before = (this.every ?? []).filter((o) => o.run_type === r.run_type && o.period === previousPeriod(r.period) && o.status !== 'cancelled')[0];
    if (before) {
      card.querySelector('[data-role=change]').innerHTML = `<p data-role="against">Against ${esc(before.period)} (${idTag(before.id)}): ${TOTALS.map(([k, label]) => {
        const d = r.totals[k].amount - before.totals[k].amount;
        return `${label} ${d === 0 ? 'unchanged' : `${d > 0 ? '+' : '-'}${esc(this.money.format({ amount: Math.abs(d), currency: r.totals[k].currency }))}`}`;
      }).join('; ')} <button type="button" data-explain="${esc(before.id)}">Explain line by line</button></p><div data-role="explained"></div>`;
    }
  }

  async onClick(e) {
    const b = e.target.closest('button');
    const card = b?.closest('[data-run]');
    if (!card) return;
    const run = this.runs.find((r) => r.id === card.dataset.run);
    if (b.dataset.explain) return this.explain(run, b.dataset.explain, card.querySelector('[data-role=explained]'));
    if (!b.dataset.op) return;
    e.preventDefault();
    const form = card.querySelector('form.run-ops');
    const reason = form.elements.reason?.value.trim();
    const id = encodeURIComponent(run.id);
    if (b.dataset.op === 'approve' && form.elements.out_of_order && !form.elements.out_of_order.checked) {
      const out = form.querySelector('[data-role=result]');
      out.className = 'error';
      out.textContent = 'An earlier period is not executed yet: tick "approve out of order" to approve this one first.';
      return;
    }
    const done = await act(form, async (ik) => {
      if (b.dataset.op === 'approve') {
        const out = await this.api.post(`/v1/payroll/runs/${id}/approve`, undefined, ik);
        return `Approved by ${await this.name(out.approved_by)}; status ${out.status}.`;
      }
      if (b.dataset.op === 'execute') return `Executed; status ${(await this.api.post(`/v1/payroll/runs/${id}/execute`, undefined, ik)).status}.`;
      // the platform has no reject: a rejected run is cancelled with the approver's reason (docs/gaps.md#console)
      if (!reason) throw Object.assign(new Error('Write the reason for the rejection; the preparer reads it in the run\'s history.'), { status: 0 });
      return `Rejected: ${(await this.api.post(`/v1/payroll/runs/${id}/cancel`, { reason: `rejected: ${reason}` }, ik)).status}.`;
    }, (m) => this.money.inText(m));
    const out = form.querySelector('[data-role=result]');
    this.told.set(run.id, { className: out.className, textContent: out.textContent });
    this.retell();
    if (done) await this.refresh();
  }

  /** The payees whose pay changed against the previous period's run, line by line, with the payslip's explanation. */
  async explain(run, beforeId, el) {
    el.innerHTML = '<p class="muted">Reading payslips...</p>';
    try {
      const [now, then] = await Promise.all([run.id, beforeId].map((id) => this.api.all(`/v1/payroll/runs/${encodeURIComponent(id)}/payslips`, 5000)));
      const prior = new Map(then.map((p) => [p.payee_ref, p]));
      const changed = now.filter((p) => !prior.has(p.payee_ref) || ['gross', 'total_deductions', 'net'].some((k) => p[k].amount !== prior.get(p.payee_ref)[k].amount)).slice(0, 25);
      const sentences = await Promise.all(changed.map((p) => this.api.get(`/v1/payroll/payslips/${encodeURIComponent(p.id)}/explanation`).then((x) => x.sentences, () => [])));
      el.innerHTML = changed.length ? changed.map((p, i) => {
        const b = prior.get(p.payee_ref);
        const lines = new Map(b ? b.lines.map((l) => [l.code, l]) : []);
        const diff = p.lines.filter((l) => lines.get(l.code)?.amount.amount !== l.amount.amount);
        return `<div class="explained" data-payee="${esc(p.payee_ref)}"><b>${esc(p.payee_ref)}</b>${b ? '' : ' (new this period)'}<table class="compact"><thead><tr><th>line</th><th>${esc(b?.period ?? 'before')}</th><th>${esc(p.period)}</th></tr></thead><tbody>${diff.map((l) => `<tr><td>${esc(l.label)}</td><td>${esc(this.money.format(lines.get(l.code)?.amount) || '-')}</td><td>${esc(this.money.format(l.amount))}</td></tr>`).join('')}</tbody></table><ul>${sentences[i].map((x) => `<li>${esc(this.money.inText(x))}</li>`).join('')}</ul></div>`;
      }).join('') : '<p class="muted">No payee\'s pay changed.</p>';
    } catch (e) {
      el.innerHTML = `<p class="error">${esc(e.message)}</p>`;
    }
  }
}

