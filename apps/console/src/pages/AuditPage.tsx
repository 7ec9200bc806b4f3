import { Button, Group, Stack, Table, TextInput, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import type { AuditPage as AuditPageResult } from '@smsgw/contracts';
import { Failure, Pager, useCursorPages } from '../parts';
import { api, query } from '../api';

/** The audit trail, newest first, by actor and target, paged by the API's cursor. */
export function AuditPage() {
  const [draft, setDraft] = useState({ actor: '', target: '' });
  const [filters, setFilters] = useState({ actor: '', target: '' });
  const pages = useCursorPages();
  const cursor = pages.cursor;
  const list = useQuery({
    queryKey: ['audit', filters, cursor],
    queryFn: () =>
      api<AuditPageResult>(
        'GET',
        `/admin/v1/audit${query({ actor: filters.actor, target: filters.target, cursor, limit: '50' })}`,
      ),
  });
  const apply = (e: FormEvent) => {
    e.preventDefault();
    setFilters(draft);
    pages.reset();
  };
  return (
    <Stack>
      <Title order={1} size="h2">
        Audit trail
      </Title>
      <form onSubmit={apply} aria-label="Filter the audit trail">
        <Group align="end">
          <TextInput
            label="Actor"
            description="a token's name, or ADMIN_TOKEN"
            value={draft.actor}
            onChange={(e) => setDraft({ ...draft, actor: e.currentTarget.value })}
          />
          <TextInput
            label="Target starts with"
            description="/accounts/alice"
            value={draft.target}
            onChange={(e) => setDraft({ ...draft, target: e.currentTarget.value })}
          />
          <Button type="submit">Filter</Button>
        </Group>
      </form>
      <Failure error={list.error} />
      <Table striped aria-label="Audit entries">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>At</Table.Th>
            <Table.Th>Actor</Table.Th>
            <Table.Th>Action</Table.Th>
            <Table.Th>Target</Table.Th>
            <Table.Th>Status</Table.Th>
            <Table.Th>From</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {list.data?.data.map((e) => (
            <Table.Tr key={e.id}>
              <Table.Td>{e.at}</Table.Td>
              <Table.Td>{e.actor}</Table.Td>
              <Table.Td>{e.action}</Table.Td>
              <Table.Td>{e.target}</Table.Td>
              <Table.Td>
                {e.status} {e.result}
              </Table.Td>
              <Table.Td>{e.address}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <Pager pages={pages} nextCursor={list.data?.next} />
    </Stack>
  );
}
