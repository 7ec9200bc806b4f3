import {
  Alert,
  Button,
  Card,
  Group,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
  Textarea,
  Title,
} from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link } from 'wouter';
import type {
  BalanceResult,
  ConnectorView,
  SendResult,
  SmppWaitingList,
  StalledBatches,
  StatsResult,
} from '@smsgw/contracts';
import { Failure, Figure } from '../parts';
import { api, query } from '../api';
import { useLoggedIn } from '../session';
import { LiveChart } from '../LiveChart';
import { TrafficChart } from '../TrafficChart';

const DAY_MS = 86_400_000;

/** Today's messages by final state, from the statistics (an operator's: every account). */
function TodayByState({ prefix }: { prefix: string }) {
  const since = new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS).toISOString();
  const stats = useQuery({
    queryKey: ['stats', prefix, since],
    queryFn: () =>
      api<StatsResult>('GET', `${prefix}/stats${query({ period: 'day', group: 'state', since })}`),
    refetchInterval: 10_000,
  });
  const count = (state: string) =>
    stats.data?.data.rows
      .filter((r) => r.state === state)
      .reduce((n, r) => n + Number(r.messages), 0)
      .toString();
  return (
    <Stack>
      <Title order={2} size="h4">
        Today (UTC), counted messages
      </Title>
      <SimpleGrid cols={{ base: 2, md: 4 }}>
        <Figure label="Delivered" value={count('delivered')} />
        <Figure label="Undelivered" value={count('undelivered')} />
        <Figure label="Failed" value={count('failed')} />
        <Figure label="Expired" value={count('expired')} />
      </SimpleGrid>
    </Stack>
  );
}

/** The connectors' states at a glance, refreshed live. */
function ConnectorStates() {
  const list = useQuery({
    queryKey: ['connectors'],
    queryFn: () => api<{ data: ConnectorView[] }>('GET', '/admin/v1/connectors'),
    refetchInterval: 5000,
  });
  return (
    <Card withBorder component="section" aria-labelledby="connector-states">
      <Title order={2} size="h4" id="connector-states" mb="sm">
        Connectors
      </Title>
      <Group>
        {list.data?.data.map((c) => (
          <Text key={c.name}>
            {c.name}: <strong>{c.state}</strong> ({c.sessions} of {c.binds} binds, {c.waiting}{' '}
            waiting)
          </Text>
        ))}
        {list.data?.data.length === 0 && <Text>None configured.</Text>}
      </Group>
    </Card>
  );
}

/** Batches that stopped moving, with the reason and what to look at. */
function StalledList() {
  const list = useQuery({
    queryKey: ['stalled'],
    queryFn: () => api<StalledBatches>('GET', '/admin/v1/batches/stalled'),
    refetchInterval: 10_000,
  });
  const batches = list.data?.data.batches ?? [];
  return (
    <Card withBorder component="section" aria-labelledby="stalled">
      <Title order={2} size="h4" id="stalled" mb="sm">
        Stalled batches
      </Title>
      {batches.length === 0 && <Text>None: every open batch is moving.</Text>}
      {batches.map((b) => (
        <Text key={b.batchId}>
          {b.batchId}: {b.expanded} of {b.total}, still for {b.stalledSeconds} s. {b.detail}
        </Text>
      ))}
    </Card>
  );
}

/** Receipts and inbound messages waiting for customers' SMPP receiver sessions to take them. */
function SmppWaiting() {
  const list = useQuery({
    queryKey: ['smpp-waiting'],
    queryFn: () => api<SmppWaitingList>('GET', '/admin/v1/smpp/waiting'),
    refetchInterval: 10_000,
  });
  const data = list.data?.data;
  return (
    <Card withBorder component="section" aria-labelledby="smpp-waiting">
      <Title order={2} size="h4" id="smpp-waiting" mb="sm">
        Waiting for SMPP customers
      </Title>
      <Failure error={list.error} title="Not read" />
      {data && (
        <Text mb="xs">
          {data.receipts} receipts and {data.inbound} inbound messages wait for a receiver session.
        </Text>
      )}
      {data?.accounts.map((a) => (
        <Text key={a.account}>
          <Link href={`/accounts/${encodeURIComponent(a.account)}`}>{a.account}</Link>: {a.receipts}{' '}
          receipts, {a.inbound} inbound, the oldest since {new Date(a.oldest_at).toLocaleString()}
          {a.max_attempts > 0 && `, sent up to ${a.max_attempts} times unanswered`}
        </Text>
      ))}
    </Card>
  );
}

function SendTest() {
  const client = useQueryClient();
  const [to, setTo] = useState('');
  const [content, setContent] = useState('');
  const send = useMutation({
    mutationFn: () => api<SendResult>('POST', '/secure/send', { to, content }),
    onSuccess: () => void client.invalidateQueries({ queryKey: ['balance'] }),
  });
  const id = send.data ? /[0-9a-f-]{36}/.exec(send.data.data)?.[0] : undefined;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    send.mutate();
  };
  return (
    <Card withBorder component="section" aria-labelledby="send-test">
      <form onSubmit={submit}>
        <Stack>
          <Title order={2} size="h4" id="send-test">
            Send a test message
          </Title>
          <TextInput
            label="To"
            description="The destination number, international, digits only"
            required
            value={to}
            onChange={(e) => setTo(e.currentTarget.value)}
          />
          <Textarea
            label="Text"
            required
            value={content}
            onChange={(e) => setContent(e.currentTarget.value)}
          />
          <Group>
            <Button type="submit" loading={send.isPending}>
              Send
            </Button>
          </Group>
          <Failure error={send.error} title="Not sent" />
          {id !== undefined && (
            <Alert color="green" role="status" title="Accepted">
              Message <Link href={`/messages/${id}`}>{id}</Link> is on its way.
            </Alert>
          )}
        </Stack>
      </form>
    </Card>
  );
}

/** A customer's balance, test message and day; an operator's day over every account. */
export function OverviewPage() {
  const session = useLoggedIn();
  const customer = session.kind === 'customer';
  const balance = useQuery({
    queryKey: ['balance'],
    queryFn: () => api<BalanceResult>('GET', '/secure/balance'),
    enabled: customer,
  });
  return (
    <Stack>
      <Title order={1} size="h2">
        {customer ? 'Balance and test message' : 'Overview'}
      </Title>
      {customer && (
        <SimpleGrid cols={{ base: 1, md: 2 }}>
          <Figure label="Balance" value={balance.data?.data.balance} />
          <Figure label="Messages left (quota)" value={balance.data?.data.sms_count} />
        </SimpleGrid>
      )}
      {!customer && session.scopes.includes('messages:read') && <LiveChart />}
      {(customer || session.scopes.includes('messages:read')) && (
        <TodayByState prefix={customer ? '/secure' : '/admin/v1'} />
      )}
      {(customer || session.scopes.includes('messages:read')) && (
        <TrafficChart prefix={customer ? '/secure' : '/admin/v1'} />
      )}
      {customer && <SendTest />}
      {!customer && session.scopes.includes('connectors') && <ConnectorStates />}
      {!customer && session.scopes.includes('batches:read') && <StalledList />}
      {!customer && session.scopes.includes('accounts:read') && <SmppWaiting />}
    </Stack>
  );
}
