import { Card, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { StatsResult } from '@smsgw/contracts';
import { api, query } from './api';

const HOUR_MS = 3_600_000;

/** The final states drawn, each with its colour. */
const SERIES = [
  { state: 'delivered', stroke: '#2b8a3e' },
  { state: 'undelivered', stroke: '#c92a2a' },
  { state: 'failed', stroke: '#862e9c' },
  { state: 'expired', stroke: '#e67700' },
] as const;

/** The statistics' rows as uPlot's columns: the hours, then one count per state and hour. */
function columns(result: StatsResult, since: number, hours: number): uPlot.AlignedData {
  const times = Array.from({ length: hours }, (_, i) => (since + i * HOUR_MS) / 1000);
  const index = new Map(times.map((t, i) => [t, i]));
  const counts = SERIES.map(() => new Array<number>(hours).fill(0));
  for (const row of result.data.rows) {
    const i = index.get(Date.parse(row.period) / 1000);
    const s = SERIES.findIndex((x) => x.state === row.state);
    if (i !== undefined && s >= 0) counts[s][i] += Number(row.messages);
  }
  return [times, ...counts];
}

/**
 * The last 24 hours by hour and final state, from the statistics (the customer's own, or every
 * account's), redrawn as they are counted.
 */
export function TrafficChart({ prefix }: { prefix: string }) {
  const hours = 24;
  const since = Math.floor(Date.now() / HOUR_MS) * HOUR_MS - (hours - 1) * HOUR_MS;
  const stats = useQuery({
    queryKey: ['traffic', prefix, since],
    queryFn: () =>
      api<StatsResult>(
        'GET',
        `${prefix}/stats${query({ period: 'hour', group: 'state', since: new Date(since).toISOString() })}`,
      ),
    refetchInterval: 30_000,
  });
  const holder = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = holder.current;
    if (!element || !stats.data) return;
    const chart = new uPlot(
      {
        width: Math.max(320, element.clientWidth),
        height: 220,
        series: [{}, ...SERIES.map((s) => ({ label: s.state, stroke: s.stroke, width: 2 }))],
        axes: [{}, { label: 'messages' }],
      },
      columns(stats.data, since, hours),
      element,
    );
    return () => chart.destroy();
  }, [stats.data, since]);
  const total = stats.data?.data.totals.messages;
  return (
    <Card withBorder component="section" aria-labelledby="traffic-chart">
      <Title order={2} size="h4" id="traffic-chart" mb="xs">
        The last 24 hours by hour
      </Title>
      <Text size="sm" mb="sm">
        {total === undefined ? 'Loading…' : `${total} messages counted, by final state`}
      </Text>
      <div ref={holder} role="img" aria-label="Counted messages per hour and final state" />
    </Card>
  );
}
