// Payroll runs for approvers: every state, paged and searched by period, each with its totals,
// the people who prepared and approved it by name, its findings, its history and its change
// against the previous period (line by line on request, with the payslip's explanation); approved,
// rejected or executed here by state (docs/gaps.md#console "Payroll for approvers").
import { act, esc, idTag } from '/console/api.js';

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
export class Payroll {
  constructor(api, el, money) {
    // told: the last answer to an action on each run, shown again after the list is read anew;
    // explained: each run's change line by line as last read, kept over a redraw
    Object.assign(this, { api, el, money, runs: [], page: 0, status: '', query: '', names: new Map(), asked: new Map(), told: new Map(), explained: new Map() });
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
    // the signed-in person's own name is known from GET /v1/me, whatever iam:read their key carries
    if (id && id === this.api.me?.person) this.names.set(id, this.api.me.name);
    if (this.names.has(id)) return this.names.get(id);
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
    const kept = this.typed();
    box.innerHTML = rows.map((r) => this.card(r)).join('');
    for (const r of rows) this.fill(r);
    this.retell();
    this.typed(kept);
  }

  /**
   * What a person typed, ticked or opened in the cards, read before a redraw (no `kept`) and put
   * back after it (`kept`), so a run's event arriving while a reason is written loses nothing.
   */
  typed(kept) {
    const fields = this.el.querySelectorAll('[data-run] input[name=reason], [data-run] input[name=out_of_order], [data-run] details[data-role=history]');
    const key = (n) => `${n.closest('[data-run]').dataset.run}|${n.name ?? ''}|${n.tagName}`;
    const value = (n) => (n.tagName === 'DETAILS' ? n.open : n.type === 'checkbox' ? n.checked : n.value);
    if (!kept) return new Map([...fields].map((n) => [key(n), value(n)]));
    for (const n of fields) {
      const v = kept.get(key(n));
      if (v === undefined) continue;
      if (n.tagName === 'DETAILS') n.open = v;
      else if (n.type === 'checkbox') n.checked = v;
      else n.value = v;
    }
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
      ? `${earlier.length ? '<label data-needs="run:approve"><input type="checkbox" name="out_of_order"> approve out of order</label>' : ''}<button type="button" data-op="approve" data-needs="run:approve">Approve</button> <input name="reason" data-needs="run:write" placeholder="reason to reject" size="28"> <button type="button" data-op="reject" data-needs="run:write">Reject</button>`
      : r.status === 'approved' ? '<button type="button" data-op="execute" data-needs="run:write">Execute</button>' : '';
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
      const shown = this.explained.get(r.id);
      if (shown?.before === before.id) card.querySelector('[data-role=explained]').innerHTML = shown.html;
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
      this.explained.set(run.id, { before: beforeId, html: el.innerHTML });
    } catch (e) {
      el.innerHTML = `<p class="error">${esc(e.message)}</p>`;
    }
  }
}

