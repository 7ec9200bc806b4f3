import { Badge, Button, Card, Group, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'wouter';
import type { AccountView, MessageSearchResult, StatsResult } from '@smsgw/contracts';
import { Confirm, Failure, Figure } from '../parts';
import { api, query } from '../api';
import { useLoggedIn } from '../session';
import { Applications } from '../Applications';
import { SenderRules, SmppAccess } from './AccountAccess';
import { StateBadge } from './MessagesPage';

const DAY_MS = 86_400_000;
const path = (username: string) => `/admin/v1/accounts/${encodeURIComponent(username)}`;

/** Disable or enable, after a confirmation that says what it does. */
function AccountControl({ account }: { account: AccountView }) {
  const client = useQueryClient();
  const [asking, setAsking] = useState(false);
  const disabled = account.disabled_at !== null;
  const change = useMutation({
    mutationFn: () =>
      api<AccountView>('POST', `${path(account.username)}/${disabled ? 'enable' : 'disable'}`),
    onSuccess: () => {
      setAsking(false);
      void client.invalidateQueries({ queryKey: ['account', account.username] });
    },
  });
  const verb = disabled ? 'Enable' : 'Disable';
  return (
    <>
      <Button variant="default" onClick={() => setAsking(true)}>
        {verb} {account.username}
      </Button>
      <Confirm
        opened={asking}
        title={`${verb} account ${account.username}?`}
        what={
          disabled
            ? 'It can log in and send again; its held batches go on.'
            : 'Its logins, tokens and SMPP sessions are refused at once and its batches are held, until it is enabled again.'
        }
        confirm={`${verb} it`}
        danger={!disabled}
        busy={change.isPending}
        error={change.error}
        onConfirm={() => change.mutate()}
        onClose={() => setAsking(false)}
      />
    </>
  );
}

/** One account: its balance and state, its day by final state, and its newest messages. */
export function AccountPage({ username }: { username: string }) {
  const session = useLoggedIn();
  const account = useQuery({
    queryKey: ['account', username],
    queryFn: () => api<AccountView>('GET', path(username)),
  });
  const since = new Date(Date.now() - DAY_MS).toISOString();
  const canReadMessages = session.scopes.includes('messages:read');
  const stats = useQuery({
    queryKey: ['stats', 'account', username, since],
    queryFn: () =>
      api<StatsResult>(
        'GET',
        `/admin/v1/stats${query({ account: username, period: 'day', group: 'state', since })}`,
      ),
    enabled: canReadMessages,
  });
  const recent = useQuery({
    queryKey: ['messages', 'account', username],
    queryFn: () =>
      api<MessageSearchResult>(
        'GET',
        `/admin/v1/messages${query({ account: username, limit: '10' })}`,
      ),
    enabled: canReadMessages,
  });
  if (account.error) return <Failure error={account.error} />;
  const a = account.data;
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1} size="h2">
          Account {username}
        </Title>
        {a && session.scopes.includes('accounts:write') && <AccountControl account={a} />}
      </Group>
      {a && (
        <SimpleGrid cols={{ base: 1, md: 3 }}>
          <Figure label="Balance" value={a.balance} />
          <Figure label="Quota" value={a.sms_count} />
          <Figure
            label="State"
            value={
              <Badge color={a.disabled_at === null ? 'green' : 'red'} variant="light" size="lg">
                {a.disabled_at === null ? 'enabled' : 'disabled'}
              </Badge>
            }
          />
        </SimpleGrid>
      )}
      {stats.data && (
        <Card withBorder component="section" aria-labelledby="traffic">
          <Title order={2} size="h4" id="traffic" mb="sm">
            Its last 24 hours, counted messages by final state
          </Title>
          <Group>
            {stats.data.data.rows.length === 0 && <Text>None counted yet.</Text>}
            {stats.data.data.rows.map((r) => (
              <Text key={`${r.period}-${r.state}`}>
                {r.period.slice(0, 10)} {r.state}: <strong>{r.messages}</strong>
              </Text>
            ))}
          </Group>
        </Card>
      )}
      {recent.data && (
        <Card withBorder component="section" aria-labelledby="recent">
          <Group justify="space-between" mb="sm">
            <Title order={2} size="h4" id="recent">
              Newest messages
            </Title>
            <Link href={`/messages?account=${encodeURIComponent(username)}`}>All its messages</Link>
          </Group>
          <Table aria-label="Newest messages">
            <Table.Tbody>
              {recent.data.data.messages.map((m) => (
                <Table.Tr key={m.id}>
                  <Table.Td>
                    <Link href={`/messages/${m.id}`}>{m.createdAt}</Link>
                  </Table.Td>
                  <Table.Td>{m.to}</Table.Td>
                  <Table.Td>
                    <StateBadge state={m.state} />
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Card>
      )}
      {a && <SenderRules username={username} canChange={session.scopes.includes('senders')} />}
      {a && (
        <SmppAccess username={username} canChange={session.scopes.includes('accounts:write')} />
      )}
      {a && (
        <Applications
          base={`${path(username)}/applications`}
          canChange={session.scopes.includes('accounts:write')}
        />
      )}
    </Stack>
  );
}
