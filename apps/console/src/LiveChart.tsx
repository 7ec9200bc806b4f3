import { Card, SimpleGrid, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { LiveMinute, LiveStats } from '@smsgw/contracts';
import { api } from './api';
import { Figure } from './parts';

const MINUTES = 15;

/** What is drawn of each minute, each with its colour. */
const SERIES = [
  { key: 'accepted', label: 'accepted', stroke: '#1864ab' },
  { key: 'delivered', label: 'delivered', stroke: '#2b8a3e' },
  { key: 'failed', label: 'failed', stroke: '#c92a2a' },
  { key: 'waiting', label: 'waiting', stroke: '#e67700' },
] as const satisfies readonly {
  key: Exclude<keyof LiveMinute, 'minute'>;
  label: string;
  stroke: string;
}[];

function columns(minutes: readonly LiveMinute[]): uPlot.AlignedData {
  return [
    minutes.map((m) => Date.parse(m.minute) / 1000),
    ...SERIES.map((s) => minutes.map((m) => m[s.key])),
  ];
}

/**
 * Every account's messages of the last 15 minutes by minute of acceptance, and what has become of
 * them, read again every five seconds: what is happening now, without a page reload.
 */
export function LiveChart() {
  const live = useQuery({
    queryKey: ['live'],
    queryFn: () => api<LiveStats>('GET', `/admin/v1/stats/live?minutes=${MINUTES}`),
    refetchInterval: 5000,
  });
  const holder = useRef<HTMLDivElement>(null);
  const chart = useRef<uPlot | null>(null);
  const minutes = live.data?.data.minutes;
  useEffect(() => {
    const element = holder.current;
    if (!element || !minutes) return;
    // Made once, then given each reading's data, so the chart does not flicker every 5 s.
    if (chart.current) {
      chart.current.setData(columns(minutes));
      return;
    }
    chart.current = new uPlot(
      {
        width: Math.max(320, element.clientWidth),
        height: 220,
        series: [{}, ...SERIES.map((s) => ({ label: s.label, stroke: s.stroke, width: 2 }))],
        axes: [{}, { label: 'messages per minute' }],
      },
      columns(minutes),
      element,
    );
  }, [minutes]);
  useEffect(
    () => () => {
      chart.current?.destroy();
      chart.current = null;
    },
    [],
  );
  const last5 = minutes?.slice(-5);
  const sum = (key: keyof Omit<LiveMinute, 'minute'>) =>
    last5?.reduce((n, m) => n + m[key], 0).toString();
  return (
    <Card withBorder component="section" aria-labelledby="live-chart">
      <Title order={2} size="h4" id="live-chart" mb="xs">
        Live: the last 15 minutes by minute
      </Title>
      <SimpleGrid cols={{ base: 2, md: 4 }} mb="sm">
        <Figure label="Accepted, last 5 min" value={sum('accepted')} />
        <Figure label="Delivered, last 5 min" value={sum('delivered')} />
        <Figure label="Failed, last 5 min" value={sum('failed')} />
        <Figure label="Waiting, last 5 min" value={sum('waiting')} />
      </SimpleGrid>
      <Text size="sm" mb="sm">
        {live.data
          ? `Messages by the minute they were accepted, and what has become of them; read at ${new Date(live.data.data.until).toLocaleTimeString()}`
          : 'Loading…'}
      </Text>
      <div
        ref={holder}
        role="img"
        aria-label="Accepted, delivered, failed and waiting messages per minute"
      />
    </Card>
  );
}
