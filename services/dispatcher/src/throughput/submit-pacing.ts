import Bottleneck from 'bottleneck';
import type { AccountCaps } from './account-caps';
import type { SmartQos } from './smart-qos';
import type { ThroughputGate } from './throughput-gate';

export interface SubmitPacingOptions {
  gate: ThroughputGate;
  accountCaps: AccountCaps;
  /** Messages per second this worker submits; 0 = unlimited (HTTP_THROUGHPUT_PER_WORKER). */
  throughputPerWorker: number;
  /** Present when SMART_QOS is on. */
  qos?: SmartQos;
}

/**
 * Every wait a job makes before its submit: the cluster-wide caps of its connector and account
 * (Redis), then this worker's own rate, which smart QoS lowers while the SMSC throttles or slows
 * down. The dispatcher only asks to pass.
 */
export class SubmitPacing {
  /** Only when a per-worker rate applies: it costs time per job. */
  private readonly pacer: Bottleneck | undefined;
  private appliedRate = 0;

  constructor(private readonly options: SubmitPacingOptions) {
    if (options.throughputPerWorker > 0 || options.qos) {
      this.pacer = new Bottleneck({
        maxConcurrent: null,
        minTime: options.throughputPerWorker > 0 ? 1000 / options.throughputPerWorker : 0,
      });
    }
  }

  get qos(): SmartQos | undefined {
    return this.options.qos;
  }

  /**
   * Waits until the job may go. Cost is PDUs, not messages: a three-part message takes three
   * places (docs/architecture.md § Throughput caps). `stopping` lets a paused gate let go.
   */
  async pass(accountId: string | undefined, pdus: number, stopping: () => boolean): Promise<void> {
    await this.options.gate.pass(await this.options.accountCaps.of(accountId), pdus, stopping);
    this.applyQos();
    if (this.pacer) await this.pacer.schedule(() => Promise.resolve());
  }

  /** Follows the smart-QoS rate with the worker's pacing (changes of less than 2% are ignored). */
  private applyQos(): void {
    const qos = this.options.qos;
    if (!qos || !this.pacer) return;
    const rate = qos.current();
    if (Math.abs(rate - this.appliedRate) < this.appliedRate * 0.02) return;
    this.appliedRate = rate;
    this.pacer.updateSettings({ minTime: 1000 / rate });
  }

  /** Lets the jobs already scheduled go, then stops (graceful shutdown). */
  async stop(): Promise<void> {
    await this.pacer?.stop({ dropWaitingJobs: false });
  }
}
