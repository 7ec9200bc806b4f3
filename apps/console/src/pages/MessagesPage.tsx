import {
  Anchor,
  Badge,
  Button,
  Group,
  Select,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'wouter';
import type { MessageSearchResult } from '@smsgw/contracts';
import { MESSAGE_STATE_FILTERS } from '@smsgw/contracts/plain';
import { Failure } from '../parts';
import { api, query } from '../api';
import { useLoggedIn } from '../session';

/** The filters a search takes from the page's address, so that a link to it can be shared. */
const FILTERS = ['to', 'from', 'state', 'account', 'batch', 'since', 'until', 'next'] as const;
type Filters = Partial<Record<(typeof FILTERS)[number], string>>;

const STATE_COLORS: Record<string, string> = {
  delivered: 'green',
  undelivered: 'red',
  failed: 'red',
  rejected: 'red',
  expired: 'orange',
};

export function StateBadge({ state }: { state: string }) {
  return (
    <Badge color={STATE_COLORS[state] ?? 'blue'} variant="light">
      {state}
    </Badge>
  );
}

/** The message search: the customer's own (/secure/messages), or any account's (/admin/v1/messages). */
export function MessagesPage() {
  const session = useLoggedIn();
  const operator = session.kind === 'operator';
  const prefix = operator ? '/admin/v1' : '/secure';
  const [params, setParams] = useSearchParams();
  const filters: Filters = Object.fromEntries(
    FILTERS.flatMap((f) => (params.get(f) ? [[f, params.get(f) ?? '']] : [])),
  );
  const [draft, setDraft] = useState<Filters>(filters);
  const search = useQuery({
    queryKey: ['messages', prefix, filters],
    queryFn: () => api<MessageSearchResult>('GET', `${prefix}/messages${query(filters)}`),
  });

  const apply = (e: FormEvent) => {
    e.preventDefault();
    const next = new URLSearchParams();
    for (const f of FILTERS) if (f !== 'next' && draft[f]) next.set(f, draft[f] ?? '');
    setParams(next);
  };
  const field = (name: keyof Filters, label: string, description?: string) => (
    <TextInput
      label={label}
      description={description}
      value={draft[name] ?? ''}
      onChange={(e) => setDraft({ ...draft, [name]: e.currentTarget.value })}
    />
  );
  const page = search.data?.data;
  const exportHref = `/admin/v1/cdrs${query({
    format: 'csv',
    since: page?.since,
    until: page?.until,
    account: filters.account,
  })}`;

  return (
    <Stack>
      <Title order={1} size="h2">
        Messages
      </Title>
      <form onSubmit={apply} aria-label="Search messages">
        <Group align="end">
          {field('to', 'To', 'a number, or a prefix ending in *')}
          {field('from', 'From')}
          <Select
            label="State"
            clearable
            data={[...MESSAGE_STATE_FILTERS]}
            value={draft.state ?? null}
            onChange={(v) => setDraft({ ...draft, state: v ?? undefined })}
          />
          {operator && field('account', 'Account')}
          {field('since', 'Since', 'ISO time; default: a day ago')}
          {field('until', 'Until', 'ISO time; default: now')}
          <Button type="submit">Search</Button>
        </Group>
      </form>
      <Failure error={search.error} title="The search was refused" />
      {page && (
        <>
          <Group justify="space-between">
            <Text size="sm">
              {page.messages.length} {page.messages.length === 1 ? 'message' : 'messages'} accepted
              from {page.since} to {page.until}, newest first
            </Text>
            {operator && session.scopes.includes('messages:read') && (
              <Anchor href={exportHref}>Export these CDRs (CSV)</Anchor>
            )}
          </Group>
          <Table striped highlightOnHover aria-label="Messages found">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Accepted</Table.Th>
                {operator && <Table.Th>Account</Table.Th>}
                <Table.Th>To</Table.Th>
                <Table.Th>From</Table.Th>
                <Table.Th>State</Table.Th>
                <Table.Th>Text</Table.Th>
                <Table.Th>Cost</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {page.messages.map((m) => (
                <Table.Tr key={m.id}>
                  <Table.Td>
                    <Link href={`/messages/${m.id}`}>{m.createdAt}</Link>
                  </Table.Td>
                  {operator && <Table.Td>{m.account}</Table.Td>}
                  <Table.Td>{m.to}</Table.Td>
                  <Table.Td>{m.from ?? ''}</Table.Td>
                  <Table.Td>
                    <StateBadge state={m.state} />
                  </Table.Td>
                  <Table.Td>{m.contentMasked ? '(hidden)' : (m.content ?? '(binary)')}</Table.Td>
                  <Table.Td>{m.cost}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
          {page.messages.length === 0 && <Text>No message matches.</Text>}
          {page.next !== null && (
            <Group>
              <Button
                variant="default"
                onClick={() => {
                  const next = new URLSearchParams(params);
                  next.set('next', page.next ?? '');
                  setParams(next);
                }}
              >
                Older messages
              </Button>
            </Group>
          )}
        </>
      )}
    </Stack>
  );
}
