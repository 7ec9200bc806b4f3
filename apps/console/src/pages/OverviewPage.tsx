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
import type { BalanceResult, SendResult, StatsResult } from '@smsgw/contracts';
import { api, query } from '../api';
import { useLoggedIn } from '../session';

const DAY_MS = 86_400_000;

function Figure({ label, value }: { label: string; value: string | undefined }) {
  return (
    <Card withBorder>
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <Text size="xl" fw={700}>
        {value ?? '…'}
      </Text>
    </Card>
  );
}

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
          {send.error && (
            <Alert color="red" role="alert" title="Not sent">
              {send.error.message}
            </Alert>
          )}
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
      {(customer || session.scopes.includes('messages:read')) && (
        <TodayByState prefix={customer ? '/secure' : '/admin/v1'} />
      )}
      {customer && <SendTest />}
    </Stack>
  );
}
