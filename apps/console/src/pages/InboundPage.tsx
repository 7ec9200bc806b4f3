import { Stack, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';

import type { InboundPage as InboundPageResult } from '@smsgw/contracts';
import { Failure, Pager, useCursorPages } from '../parts';
import { api, query } from '../api';

/** A customer's inbound (MO) messages, newest first, paged by the API's cursor. */
export function InboundPage() {
  const pages = useCursorPages();
  const cursor = pages.cursor;
  const list = useQuery({
    queryKey: ['inbound', cursor],
    queryFn: () => api<InboundPageResult>('GET', `/secure/inbound${query({ cursor })}`),
    refetchInterval: 10_000,
  });
  return (
    <Stack>
      <Title order={1} size="h2">
        Inbound messages
      </Title>
      <Failure error={list.error} />
      <Table striped aria-label="Inbound messages">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Received</Table.Th>
            <Table.Th>From</Table.Th>
            <Table.Th>To</Table.Th>
            <Table.Th>Text</Table.Th>
            <Table.Th>State</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {list.data?.data.messages.map((m) => (
            <Table.Tr key={m.id}>
              <Table.Td>{m.receivedAt}</Table.Td>
              <Table.Td>{m.from}</Table.Td>
              <Table.Td>{m.to}</Table.Td>
              <Table.Td>{m.text ?? `(binary) ${m.binary ?? ''}`}</Table.Td>
              <Table.Td>{m.state}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {list.data?.data.messages.length === 0 && <Text>No inbound message yet.</Text>}
      <Pager pages={pages} nextCursor={list.data?.data.next} />
    </Stack>
  );
}
