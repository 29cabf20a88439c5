// Payroll runs live (docs/gaps.md#console "Payroll live"). The spec pushes events only to a
// webhook endpoint's URL, which a browser is not, and gives each module a list of its events in
// sequence order (spec 6: "a gap means read the event list from the number held"); no socket
// carries payroll. So while the runs are shown the page reads GET /v1/payroll/events on from the
// last event it holds, every LIVE_EVERY_MS, and a run's event has the runs read again.
const enc = encodeURIComponent;
/** Audit entries looked through, newest first, for the payroll event to start after. */
const ANCHOR_LOOK = 20;
/** Pages of events read at most in one look (100 each); the rest on the next. */
const PAGES_PER_LOOK = 5;

export class PayrollLive {
  /** `every`: the least time between two looks; `onRun`: called once per look that saw a run's event. */
  constructor(api, every, onRun) {
    Object.assign(this, { api, every, onRun, held: undefined, timer: undefined, on: false, round: 0 });
  }

  /**
   * The newest payroll event when the page starts following: the event of the newest audit entry
   * of a run that the event list holds (an audit entry names its journal event, whose public event
   * has the same id; docs/gaps.md#delivery), so the page never reads the module's whole history.
   * None found: the list is read from its start.
   */
  async anchor() {
    const entries = (await this.api.get(`/v1/payroll/audit_entries?limit=${ANCHOR_LOOK}`)).data;
    for (const e of entries.filter((x) => x.record_type === 'payroll_run').slice(0, 3)) {
      try {
        return (await this.api.get(`/v1/payroll/events/${enc(e.event_id)}`)).id;
      } catch { /* not a public event: the next entry's */ }
    }
    return null;
  }

  /** Events after the one held: whether a run's was among them. */
  async look() {
    if (this.held === undefined) this.held = await this.anchor();
    let run = false;
    for (let n = 0; n < PAGES_PER_LOOK; n++) {
      const page = await this.api.get(`/v1/payroll/events?limit=100${this.held ? `&starting_after=${enc(this.held)}` : ''}`);
      if (page.data.length) this.held = page.data[page.data.length - 1].id;
      run ||= page.data.some((e) => e.data?.object === 'payroll_run');
      if (!page.has_more) break;
    }
    return run;
  }

  /** Follows while `on` (the runs are shown); a look never overlaps the one before. */
  follow(on) {
    if (on === this.on) return;
    this.on = on;
    clearTimeout(this.timer);
    // a look still under way from before belongs to an earlier round and schedules nothing
    this.round++;
    if (on) this.tick(this.round);
  }

  async tick(round) {
    try {
      if ((await this.look()) && round === this.round && this.on) await this.onRun();
    } catch { /* a refused or lost read: the next look tries again from the event held */ }
    if (round === this.round && this.on) this.timer = setTimeout(() => this.tick(round), this.every);
  }
}
