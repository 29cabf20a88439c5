// Queues for people: open integrity flags and open assignment exceptions (both adjudicated here), and payroll runs
// pending approval (approved here by a second person). The page decides nothing: it sends the
// person's choice to the API and shows the API's answer, refusals included, in the API's words.
import { act, esc } from '/console/api.js';

export class Queues {
  constructor(api, els, money) {
    this.api = api;
    this.els = els;
    this.money = money;
  }

  async refresh() {
    await Promise.all([this.flags(), this.exceptions(), this.runs()]);
  }

  async flags() {
    const el = this.els.flags;
    let flags;
    try {
      flags = await this.api.all('/v1/allocation/integrity_flags?status=open', 200);
    } catch (e) {
      el.innerHTML = `<p class="error">${esc(e.message)}</p>`;
      return;
    }
    if (!flags.length) {
      el.innerHTML = '<p class="muted" data-testid="no-flags">No open integrity flags.</p>';
      return;
    }
    el.innerHTML = flags.map((f) => `
      <div class="card" data-flag="${esc(f.id)}">
        <h3>${esc(f.id)}: worker ${esc(f.worker_id)}</h3>
        <div class="muted">raised ${esc(f.raised_at)}${f.mocked ? ', from a simulated source (mocked)' : ''}</div>
        <table class="compact"><thead><tr><th>accept</th><th>signal</th><th>fired at</th><th>detail</th></tr></thead><tbody>
          ${f.signals.map((s) => `<tr><td><input type="checkbox" name="accepted_signals" value="${esc(s.source)}" form="adj-${esc(f.id)}"></td><td>${esc(s.source)}</td><td>${esc(s.fired_at)}</td><td>${esc(s.detail ?? '')}</td></tr>`).join('')}
        </tbody></table>
        <form id="adj-${esc(f.id)}" data-prefix="adjudicate">
          <label>Outcome <select name="outcome"><option value="dismissed">dismissed</option><option value="upheld">upheld</option></select></label>
          <label>Reason <input name="reason" size="40"></label>
          <button type="submit">Adjudicate</button>
          <span data-role="result"></span>
        </form>
      </div>`).join('');
    for (const f of flags) {
      const form = el.querySelector(`form[id="adj-${CSS.escape(f.id)}"]`);
      form.addEventListener('submit', async (e) => {
        e.preventDefault();
        const body = { outcome: form.elements.outcome.value, reason: form.elements.reason.value };
        const accepted = [...el.querySelectorAll(`input[form="adj-${CSS.escape(f.id)}"]:checked`)].map((i) => i.value);
        if (accepted.length) body.accepted_signals = accepted;
        await act(form, async (ik) => {
          const r = await this.api.post(`/v1/allocation/integrity_flags/${encodeURIComponent(f.id)}/adjudicate`, body, ik);
          return `Recorded: ${r.status}${r.suspends ? ' (the worker is suspended)' : ''}.`;
        });
      });
    }
  }

  /** Open assignment exceptions (GET /v1/allocation/exceptions), each adjudicated here through POST .../adjudicate. */
  async exceptions() {
    const el = this.els.exceptions;
    let list;
    try {
      list = await this.api.all('/v1/allocation/exceptions', 200);
    } catch (e) {
      el.innerHTML = e.status === 404
        ? '<p class="muted">Exceptions are not served by this deployment (GET /v1/allocation/exceptions answered 404).</p>'
        : `<p class="error">Exceptions could not be read: ${esc(e.message)}</p>`;
      return;
    }
    if (!list.length) {
      el.innerHTML = '<p class="muted" data-testid="no-exceptions">No open exceptions.</p>';
      return;
    }
    el.innerHTML = list.map((x) => `
      <div class="card" data-exception="${esc(x.id)}">
        <h3>${esc(x.id)}: worker ${esc(x.worker_id)}</h3>
        <div class="muted">assignment ${esc(x.assignment_id)}, step ${esc(x.step)}, raised ${esc(x.raised_at)}${x.mocked ? ', from a simulated source (mocked)' : ''}</div>
        <table class="compact signals"><thead><tr><th>accept</th><th>conflicting signal</th><th>detail</th></tr></thead><tbody>
          ${(x.conflicting_signals ?? []).map((s) => `<tr><td><input type="checkbox" name="accepted_signals" value="${esc(s.name)}" form="exc-${esc(x.id)}"></td><td>${esc(s.name)}</td><td>${esc(s.detail ?? '')}</td></tr>`).join('')}
        </tbody></table>
        <form id="exc-${esc(x.id)}" data-prefix="adjudicate-exception">
          <label>Outcome <select name="outcome"><option value="dismissed">dismissed</option><option value="upheld">upheld</option></select></label>
          <label>Reason <input name="reason" size="40"></label>
          <button type="submit">Adjudicate</button>
          <span data-role="result"></span>
        </form>
      </div>`).join('');
    for (const x of list) {
      const form = el.querySelector(`form[id="exc-${CSS.escape(x.id)}"]`);
      form.addEventListener('submit', async (e) => {
        e.preventDefault();
        // the page checks nothing itself: the API decides and its refusal is shown in its words
        const body = { outcome: form.elements.outcome.value, reason: form.elements.reason.value };
        const accepted = [...el.querySelectorAll(`input[form="exc-${CSS.escape(x.id)}"]:checked`)].map((i) => i.value);
        if (accepted.length) body.accepted_signals = accepted;
        await act(form, async (ik) => {
          const r = await this.api.post(`/v1/allocation/exceptions/${encodeURIComponent(x.id)}/adjudicate`, body, ik);
          return `Recorded: ${r.status}${r.decision?.accepted_signals?.length ? ` (accepted: ${r.decision.accepted_signals.join(', ')})` : ''}.`;
        });
      });
    }
  }

  async runs() {
    const el = this.els.runs;
    let runs;
    try {
      runs = await this.api.all('/v1/payroll/runs?status=pending_approval', 100);
    } catch (e) {
      el.innerHTML = `<p class="error">${esc(e.message)}</p>`;
      return;
    }
    if (!runs.length) {
      el.innerHTML = '<p class="muted" data-testid="no-runs">No payroll run is pending approval.</p>';
      return;
    }
    const findings = await Promise.all(runs.map((r) => this.api.all(`/v1/payroll/runs/${encodeURIComponent(r.id)}/findings`, 200).catch(() => [])));
    el.innerHTML = runs.map((r, i) => `
      <div class="card" data-run="${esc(r.id)}">
        <h3>${esc(r.id)}: ${esc(r.run_type)} ${esc(r.period)}</h3>
        <table class="compact"><tbody>
          <tr><th>payees</th><td>${esc(r.payee_count)}</td><th>gross</th><td data-total="gross">${esc(this.money.format(r.totals.gross))}</td></tr>
          <tr><th>deductions</th><td>${esc(this.money.format(r.totals.total_deductions))}</td><th>net</th><td data-total="net">${esc(this.money.format(r.totals.net))}</td></tr>
          <tr><th>employer contributions</th><td>${esc(this.money.format(r.totals.employer_contributions))}</td><th>prepared by</th><td>${esc(r.prepared_by)}</td></tr>
          <tr><th>open findings</th><td colspan="3">${Object.entries(r.open_findings).map(([k, n]) => `${esc(k)}: ${esc(n)}`).join(', ')}</td></tr>
        </tbody></table>
        ${findings[i].length ? `<table class="compact"><thead><tr><th>severity</th><th>code</th><th>status</th><th>detail</th></tr></thead><tbody>${findings[i].map((f) => `<tr><td>${esc(f.severity)}</td><td>${esc(f.code)}</td><td>${esc(f.status)}</td><td>${esc(f.detail)}</td></tr>`).join('')}</tbody></table>` : '<p class="muted">No findings.</p>'}
        <form data-prefix="approve"><button type="submit">Approve</button> <span data-role="result"></span></form>
      </div>`).join('');
    runs.forEach((r, i) => {
      const form = el.querySelectorAll('form')[i];
      form.addEventListener('submit', async (e) => {
        e.preventDefault();
        await act(form, async (ik) => {
          const out = await this.api.post(`/v1/payroll/runs/${encodeURIComponent(r.id)}/approve`, undefined, ik);
          return `Approved by ${out.approved_by}; status ${out.status}.`;
        });
      });
    });
  }
}
