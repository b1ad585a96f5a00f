import type { StateMetricsFacts } from '../metrics/facts.js';

/**
 * The state's facts, from before the command has metrics to tell them to: the session restores (or
 * finds the lease held) before the command runs and builds its registry. The relay keeps what it
 * hears until `attach`, hands that over in order, and passes on everything after.
 */
export class StateFactsRelay implements StateMetricsFacts {
  private readonly heard: Array<(to: StateMetricsFacts) => void> = [];
  private target: StateMetricsFacts | null = null;

  attach(target: StateMetricsFacts): void {
    this.target = target;
    for (const tell of this.heard.splice(0)) tell(target);
  }

  restored(...args: Parameters<StateMetricsFacts['restored']>): void {
    this.pass((to) => to.restored(...args));
  }

  saved(...args: Parameters<StateMetricsFacts['saved']>): void {
    this.pass((to) => to.saved(...args));
  }

  leaseSkipped(): void {
    this.pass((to) => to.leaseSkipped());
  }

  lastSaveRead(...args: Parameters<StateMetricsFacts['lastSaveRead']>): void {
    this.pass((to) => to.lastSaveRead(...args));
  }

  private pass(tell: (to: StateMetricsFacts) => void): void {
    if (this.target === null) this.heard.push(tell);
    else tell(this.target);
  }
}
